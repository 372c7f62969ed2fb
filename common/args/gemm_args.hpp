// The matrix-product families' launch arguments and lists: gemm (C = A·B) and aat (C = A·Aᵀ).
#pragma once

#include "common/matrix_shape.hpp"
#include "common/variant.hpp"

#include <vector>

namespace kl {

// gemm: C = A·B, row-major and dense: A is M×K (lda = K), B is K×N (ldb = N), C is M×N
// (ldc = N). Any M, N, K >= 1. `workspace`: the variant's workspace_bytes(shape) bytes (split-K
// partial products), nullptr where it asks for none.
template <class T>
struct GemmArgs {
  using Size = GemmShape;
  const T* A;
  const T* B;
  T* C;
  int M, N, K;
  void* workspace = nullptr;
};

// aat: C = A·Aᵀ, row-major: A is M×K (lda = K), C is M×M (ldc = M), every element written.
// `workspace`: the variant's workspace_bytes(shape) bytes (split-K partial products), nullptr
// where it asks for none.
struct AatShape {
  int M, K;
};
template <class T>
struct AatArgs {
  using Size = AatShape;
  const T* A;
  T* C;
  int M, K;
  void* workspace = nullptr;
};

template <class T> using GemmVariant = Variant<GemmArgs<T>>;
template <class T> using AatVariant = Variant<AatArgs<T>>;

template <class T> std::vector<GemmVariant<T>> gemm_handwritten();  // float, double
template <class T> std::vector<GemmVariant<T>> gemm_library();
template <class T> std::vector<AatVariant<T>> aat_handwritten();    // float, double
template <class T> std::vector<AatVariant<T>> aat_library();

}  // namespace kl
