// gemm_smem3_natural — document 001 (lecture 6, variant «SMEM-3»): SMEM-1 with the natural
// indexing `as[ty][tx]`, `sum += as[ty][k] * bs[k][tx]`, tiles [BLOCK_SIZE][BLOCK_SIZE].
//
// Lesson: lay the tile out the way the warp walks it and no padding is needed. A warp (one ty,
// tx = 0..31) stores a row of as/bs (consecutive words, 32 banks), reads as[ty][k] at one
// address (broadcast) and bs[k][tx] along a row (conflict-free). Doc (K40c): float 56 → 46 ms
// against SMEM-2; double 80 ms (SMEM-2 was 87 in 4-byte mode, 62 in 8-byte mode).
//
// Changed from the document: as gemm_smem1_transposed (general M × K · K × N, zero-filled edge
// tiles, guarded store, 64-bit offsets).
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_smem3 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 32;

template <class T>
__global__ void __launch_bounds__(kBlock * kBlock)
    kernel_smem_3(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                  int N, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = kBlock * blockIdx.y + ty;
  const int col = kBlock * blockIdx.x + tx;
  __shared__ T as[kBlock][kBlock];
  __shared__ T bs[kBlock][kBlock];
  T sum = T(0);
  for (int t = 0; t < K; t += kBlock) {
    as[ty][tx] = load_or_zero(a, M, K, row, t + tx);  // a warp stores one row: 32 banks
    bs[ty][tx] = load_or_zero(b, K, N, t + ty, col);
    __syncthreads();
    for (int k = 0; k < kBlock; k++) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  store_if_inside(c, M, N, row, col, sum);
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kBlock, kernel_smem_3<T>>(
      {"gemm_smem3_natural", "001: SMEM-3 (as[ty][tx] natural indexing)",
       "row-wise tile layout: conflict-free without padding"});
}

}  // namespace kl::gemm_smem3
