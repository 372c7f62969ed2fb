// aat_smem_padded — document 000 (lab 3, A·Aᵀ), the same `matMult(a, n, c)` with
// `ats[BLOCK_SIZE][BLOCK_SIZE + 1]`.
//
// Lesson: padding each row of ats by one word shifts row tx by tx banks, so ats[tx][k] for
// tx = 0..15 lies in 16 different banks and the column read is conflict-free (for double, the
// word pairs 34·tx + 2k give 16 distinct bank pairs per half-warp phase: also conflict-free).
// The document draws this as the 16 × 17 layout in which every row and every column spans all
// banks. Doc table 3.2: 551 → 120 ms.
//
// Changed from the document: as aat_smem_unpadded (A M × K, zero-filled edge tiles, guarded
// store, 64-bit offsets); the kernel is that one with only the +1 added.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::aat_padded {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 16;

template <class T>
__global__ void matMult(const T* __restrict__ a, T* __restrict__ c, int M, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = kBlock * blockIdx.y;
  const int col0 = kBlock * blockIdx.x;
  __shared__ T as[kBlock][kBlock];
  __shared__ T ats[kBlock][kBlock + 1];  // the only change: one unused word per row
  T sum = T(0);
  for (int t = 0; t < K; t += kBlock) {
    as[ty][tx] = load_or_zero(a, M, K, row0 + ty, t + tx);
    ats[ty][tx] = load_or_zero(a, M, K, col0 + ty, t + tx);
    __syncthreads();
    for (int k = 0; k < kBlock; k++) sum += as[ty][k] * ats[tx][k];  // column: 16 banks now
    __syncthreads();
  }
  store_if_inside(c, M, M, row0 + ty, col0 + tx, sum);
}

template <class T>
AatVariant<T> variant() {
  return {
      .info = {"aat_smem_padded", "000: matMult(a, n, c) A*A^T, ats[16][16+1]",
               "padding ats by one word per row makes its column reads conflict-free"},
      .launch = [](const AatArgs<T>& g, cudaStream_t s) {
        matMult<T><<<gemm_detail::aat_grid(g.M, kBlock), dim3(kBlock, kBlock), 0, s>>>(
            g.A, g.C, g.M, g.K);
        KL_CHECK_LAUNCH();
      },
  };
}

}  // namespace kl::aat_padded
