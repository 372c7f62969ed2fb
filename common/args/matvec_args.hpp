// The matrix-vector families' launch arguments and lists: gemv (y = A·x) and gevm (y = x·A).
#pragma once

#include "common/matrix_shape.hpp"
#include "common/variant.hpp"

#include <vector>

namespace kl {

// gemv: y = A·x (y has M elements, x has N); gevm: y = x·A (x has M elements, y has N).
// A is row-major M×N (lda = N). Any M, N >= 1.
template <class T>
struct MatVecArgs {
  using Size = MatrixShape;
  const T* A;
  const T* x;
  T* y;
  int M, N;
  void* workspace;
};

template <class T> using MatVecVariant = Variant<MatVecArgs<T>>;

template <class T> std::vector<MatVecVariant<T>> gemv_handwritten();  // float, double
template <class T> std::vector<MatVecVariant<T>> gemv_library();
template <class T> std::vector<MatVecVariant<T>> gevm_handwritten();  // float, double
template <class T> std::vector<MatVecVariant<T>> gevm_library();

}  // namespace kl
