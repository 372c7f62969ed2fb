// The transpose family's launch arguments and its two lists.
#pragma once

#include "common/matrix_shape.hpp"
#include "common/variant.hpp"

#include <vector>

namespace kl {

// transpose: B = Aᵀ, A row-major M×N, B row-major N×M. Any M, N >= 1.
template <class T>
struct TransposeArgs {
  using Size = MatrixShape;
  const T* A;
  T* B;
  int M, N;
};

template <class T> using TransposeVariant = Variant<TransposeArgs<T>>;

template <class T> std::vector<TransposeVariant<T>> transpose_handwritten();  // float, double
template <class T> std::vector<TransposeVariant<T>> transpose_library();

}  // namespace kl
