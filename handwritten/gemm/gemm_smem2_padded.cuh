// gemm_smem2_padded — document 001 (lecture 6, variant «SMEM-2»): SMEM-1 with the tiles
// declared [BLOCK_SIZE][BLOCK_SIZE + 1].
//
// Lesson: padding. With 33 words per row, element [tx][j] lies in bank (tx + j) mod 32, so the
// column accesses of SMEM-1 (stores as[tx][ty], reads bs[tx][k]) touch 32 different banks and
// the 32-way conflicts vanish, with the transposed indexing unchanged. For double, [tx][k] is
// word pair 66·tx + 2k, banks (2tx + 2k) mod 32: a 64-bit warp access is served in two
// half-warp phases and each phase's 16 threads use 16 different bank pairs, so it is
// conflict-free too. Doc (K40c): float 150 → 56 ms, double 476 → 87 ms in 4-byte bank mode and
// 62 ms in 8-byte mode; on Hopper banks are fixed at 4 bytes (docs/bank-modes.md).
//
// Changed from the document: as gemm_smem1_transposed (general M × K · K × N, zero-filled edge
// tiles, guarded store, 64-bit offsets); the kernel is SMEM-1 with only the +1 added.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_smem2 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 32;

template <class T>
__global__ void __launch_bounds__(kBlock * kBlock)
    kernel_smem_2(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                  int N, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = kBlock * blockIdx.y + ty;
  const int col = kBlock * blockIdx.x + tx;
  // The only change from SMEM-1: one unused word per row shifts each row by one bank.
  __shared__ T as[kBlock][kBlock + 1];
  __shared__ T bs[kBlock][kBlock + 1];
  T sum = T(0);
  for (int t = 0; t < K; t += kBlock) {
    as[tx][ty] = load_or_zero(a, M, K, row, t + tx);  // as[tx][ty] = A'[ty][tx]
    bs[tx][ty] = load_or_zero(b, K, N, t + ty, col);  // bs[tx][ty] = B'[ty][tx]
    __syncthreads();
    for (int k = 0; k < kBlock; k++) sum += as[k][ty] * bs[tx][k];
    __syncthreads();
  }
  store_if_inside(c, M, N, row, col, sum);
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kBlock, kernel_smem_2<T>>(
      {"gemm_smem2_padded", "001: SMEM-2 (SMEM-1 with [BLOCK_SIZE][BLOCK_SIZE+1])",
       "padding rows by one word puts a column in 32 different banks: conflicts gone"});
}

}  // namespace kl::gemm_smem2
