// gemm7_vectorized — beyond the documents: gemm6 with 16-byte loads and stores, A stored
// transposed in shared memory.
//
// Lesson: gemm6 issues TM + TN scalar shared loads per k, and its global loads and C stores are
// 4-byte. Here:
//   * A's tile is stored transposed, as[k][m], so a thread's TM values of A for one k are
//     contiguous, like its TN values of B: both come in TM/4 + TN/4 16-byte loads (LDS.128),
//     a quarter of the load instructions;
//   * tiles are read from global memory and C is written in 16-byte vectors (LDG.128 /
//     STG.128): a quarter of the memory instructions;
//   * the transposed store pads the row of as[][] by one vector (LDA = BM + 4), so the
//     transposing stores of a warp land in distinct banks.
// What it still leaves: a thread's TN columns are contiguous, so the lanes of a warp read B
// 32 bytes apart and each LDS.128 of B takes more shared-memory wavefronts than its data needs
// (bank conflicts); gemm8 arranges the threads of a warp so they read neighbouring vectors.
// Measured (4096³ float; docs/sgemm-ladder.md, "What the profiler shows"): faster than gemm6,
// FFMA most of the instructions; the conflicts are unchanged and the block still waits on the
// register-staged copy (long scoreboard).
//
// Edges: the vector path needs 16-byte aligned rows (K and N multiples of 4 for float, of 2 for
// double, aligned pointers); any other shape runs the same kernel with element-wise copies
// (gemm_tiles.cuh). Tiles are zero-filled, stores guarded: any M, N, K >= 1.
#pragma once

#include "handwritten/gemm/gemm_tiles.cuh"

namespace kl::gemm7 {

using namespace gemm_detail;

template <class T, int BM, int BN, int BK, int TM, int TN, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    kernel_vectorized(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                      int N, int K) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int LDA = BM + kVec<T>;  // one vector of padding: conflict-free transposed stores
  static_assert(TM % kVec<T> == 0 && TN % kVec<T> == 0, "thread blocks are whole vectors");
  __shared__ __align__(16) T as[BK * LDA];
  __shared__ __align__(16) T bs[BK * BN];
  const int row0 = BM * blockIdx.y, col0 = BN * blockIdx.x;
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);

  T acc[TM][TN] = {};
  T ra[TM], rb[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_a_transposed<T, BM, BK, LDA, kThreads, VEC>(as, a, M, K, row0, k0);
    load_b<T, BK, BN, BN, kThreads, VEC>(bs, b, K, N, k0, col0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += kVec<T>) load_vec(ra + i, as + k * LDA + ty * TM + i);
#pragma unroll
      for (int j = 0; j < TN; j += kVec<T>) load_vec(rb + j, bs + k * BN + tx * TN + j);
      fma_outer(acc, ra, rb);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) store_c<T, TN, VEC>(c, M, N, row0 + ty * TM + i, col0 + tx * TN, acc[i]);
}

template <class T, int BM, int BN, int BK, int TM, int TN>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  const auto kernel = vec_io_ok(g, /*need_a=*/true) ? kernel_vectorized<T, BM, BN, BK, TM, TN, true>
                                                     : kernel_vectorized<T, BM, BN, BK, TM, TN, false>;
  launch_tiled(g, BM, BN, [&](dim3 grid, const T* A, T* C, int M) {
    kernel<<<grid, kThreads, 0, s>>>(A, g.B, C, M, g.N, g.K);
  });
}

template <class T>
GemmVariant<T> variant() {
  // The tiles of gemm6 for each type, so the step changes only the loads and stores.
  if constexpr (sizeof(T) == 4) {
    return {.info = {"gemm7_vectorized", "beyond the documents",
                     "16-byte global/shared loads and stores, A tile transposed in shared memory"},
            .launch = launch<T, 128, 128, 8, 8, 8>};
  } else {
    return {.info = {"gemm7_vectorized", "beyond the documents",
                     "16-byte global/shared loads and stores, A tile transposed in shared memory"},
            .launch = launch<T, 64, 64, 8, 4, 4>};
  }
}

}  // namespace kl::gemm7
