// gemm6_regblock2d — beyond the documents: 2D register blocking (each thread a TM × TN block).
//
// Lesson: SMEM-5 gave each thread 4 outputs in one column, so every value read from shared
// memory fed at most 4 FMAs and the kernel waited on shared loads (ncu at 4096³ float: FFMA is
// a minority of its instructions, short-scoreboard stalls dominate; docs/sgemm-ladder.md, "What
// the profiler shows"). Here a block computes a BM × BN tile of C, each thread a TM × TN block of
// it: per k it reads TM values of A and TN of B into registers and does TM·TN FMAs with them, so
// the FMA : shared-load ratio grows from 4 : 2 to TM·TN : TM+TN (64 : 16 for 8 × 8). Larger
// tiles also cut global traffic: each element of A is read from global memory N / BN times
// instead of N / 32.
//
// What it still leaves: every shared load is a 4-byte scalar (TM + TN load instructions per k),
// and the A reads As[row][k] of a thread are BK apart (gemm7 stores A transposed and loads 16
// bytes at a time); the tile loads go through registers and stall the block at __syncthreads.
// Measured (4096³ float; docs/sgemm-ladder.md, "What the profiler shows"): faster than SMEM-5,
// FFMA a larger share of the instructions, fewer shared-load wavefronts, but a large share of them
// bank conflicts, and long-scoreboard stalls on the staged copy.
//
// Edges: tiles are zero-filled outside the matrices and stores guarded (gemm_common.cuh), so
// any M, N, K >= 1.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm6 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

// BM × BN tile of C per block, BK-deep k tiles, TM × TN outputs per thread.
template <class T, int BM, int BN, int BK, int TM, int TN>
struct Config {
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "the thread blocks must tile the block tile");
  static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0,
                "each thread loads the same number of tile elements");
};

template <class T, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(Config<T, BM, BN, BK, TM, TN>::kThreads, 2)
    kernel_regblock2d(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                      int N, int K) {
  constexpr int kThreads = Config<T, BM, BN, BK, TM, TN>::kThreads;
  __shared__ T as[BM][BK];
  __shared__ T bs[BK][BN];
  const int row0 = BM * blockIdx.y, col0 = BN * blockIdx.x;
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);

  T acc[TM][TN] = {};
  T ra[TM], rb[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    // Consecutive threads take consecutive elements of a tile row: coalesced global reads.
#pragma unroll
    for (int i = threadIdx.x; i < BM * BK; i += kThreads)
      as[i / BK][i % BK] = load_or_zero(a, M, K, row0 + i / BK, k0 + i % BK);
#pragma unroll
    for (int i = threadIdx.x; i < BK * BN; i += kThreads)
      bs[i / BN][i % BN] = load_or_zero(b, K, N, k0 + i / BN, col0 + i % BN);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = as[ty * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = bs[k][tx * TN + j];
      gemm_detail::fma_outer(acc, ra, rb);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      store_if_inside(c, M, N, row0 + ty * TM + i, col0 + tx * TN + j, acc[i][j]);
}

template <class T, int BM, int BN, int BK, int TM, int TN>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  constexpr int kThreads = Config<T, BM, BN, BK, TM, TN>::kThreads;
  gemm_detail::launch_tiled(g, BM, BN, [&](dim3 grid, const T* A, T* C, int M) {
    kernel_regblock2d<T, BM, BN, BK, TM, TN><<<grid, kThreads, 0, s>>>(A, g.B, C, M, g.N, g.K);
  });
}

// float: 128 × 128 tiles, 8 × 8 per thread, 256 threads; __launch_bounds__(…, 2) holds it to
// 128 registers so two blocks share an SM (without it ptxas takes 144 and one block runs).
// double: 64 × 64, 4 × 4 per thread, 256 threads (an 8 × 8 block of
// doubles would take 128 registers for the accumulators alone).
template <class T>
GemmVariant<T> variant() {
  if constexpr (sizeof(T) == 4) {
    return {.info = {"gemm6_regblock2d", "beyond the documents (after SMEM-5)",
                     "2D register blocking: 128x128 block tile, 8x8 outputs per thread; 64 FMAs per 16 "
                     "shared loads"},
            .launch = launch<T, 128, 128, 8, 8, 8>};
  } else {
    return {.info = {"gemm6_regblock2d", "beyond the documents (after SMEM-5)",
                     "2D register blocking: 64x64 block tile, 4x4 outputs per thread; 16 FMAs per 8 "
                     "shared loads"},
            .launch = launch<T, 64, 64, 8, 4, 4>};
  }
}

}  // namespace kl::gemm6
