// gemm_smem5_ilp4 — document 001 (lecture 6, variant «SMEM-5»): SMEM-3 with four outputs per
// thread, threads (BLOCK_SIZE, BLOCK_SIZE / 4) = (32, 8).
//
// Lesson: more ILP. Each thread owns rows ty, ty + 8, ty + 16, ty + 24 of the block's 32 × 32
// tile: four independent FMA chains, and each bs[k][tx] read from shared memory feeds four FMAs.
// The last rung of the lecture's ladder (K40c: float 33 → 26 ms, double 50 → 45.5 ms; 134 and
// 220 ms for the global-memory baseline).
//
// Changed from the document: as gemm_smem1_transposed (general M × K · K × N, zero-filled edge
// tiles, guarded stores, 64-bit offsets). The document shows only the lines that differ from
// SMEM-3; this is SMEM-3 with exactly those lines.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_smem5 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 32;
constexpr int kThreadsY = kBlock / 4;  // threads_5(BLOCK_SIZE, BLOCK_SIZE / 4); row step 8

template <class T>
__global__ void __launch_bounds__(kBlock * kThreadsY)
    kernel_smem_5(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                  int N, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = kBlock * blockIdx.y + ty;  // this thread's rows: row + 0, 8, 16, 24
  const int col = kBlock * blockIdx.x + tx;
  constexpr int s = kThreadsY;
  __shared__ T as[kBlock][kBlock];
  __shared__ T bs[kBlock][kBlock];
  T sum1 = T(0), sum2 = T(0), sum3 = T(0), sum4 = T(0);
  for (int t = 0; t < K; t += kBlock) {
    // 8 rows of threads fill the 32-row tiles in four passes.
    as[ty][tx] = load_or_zero(a, M, K, row, t + tx);
    bs[ty][tx] = load_or_zero(b, K, N, t + ty, col);
    as[ty + s][tx] = load_or_zero(a, M, K, row + s, t + tx);
    bs[ty + s][tx] = load_or_zero(b, K, N, t + ty + s, col);
    as[ty + 2 * s][tx] = load_or_zero(a, M, K, row + 2 * s, t + tx);
    bs[ty + 2 * s][tx] = load_or_zero(b, K, N, t + ty + 2 * s, col);
    as[ty + 3 * s][tx] = load_or_zero(a, M, K, row + 3 * s, t + tx);
    bs[ty + 3 * s][tx] = load_or_zero(b, K, N, t + ty + 3 * s, col);
    __syncthreads();
    for (int k = 0; k < kBlock; k++) {
      sum1 += as[ty][k] * bs[k][tx];  // four independent chains, one bs load
      sum2 += as[ty + s][k] * bs[k][tx];
      sum3 += as[ty + 2 * s][k] * bs[k][tx];
      sum4 += as[ty + 3 * s][k] * bs[k][tx];
    }
    __syncthreads();
  }
  store_if_inside(c, M, N, row, col, sum1);
  store_if_inside(c, M, N, row + s, col, sum2);
  store_if_inside(c, M, N, row + 2 * s, col, sum3);
  store_if_inside(c, M, N, row + 3 * s, col, sum4);
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kThreadsY, kernel_smem_5<T>>(
      {"gemm_smem5_ilp4", "001: SMEM-5 (4 outputs per thread, threads(32, 8))",
       "four independent accumulators per thread: more ILP, each shared B load used 4 times"});
}

}  // namespace kl::gemm_smem5
