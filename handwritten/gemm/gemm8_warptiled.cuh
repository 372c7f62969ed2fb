// gemm8_warptiled — beyond the documents: gemm7 with a warp tile between the block tile and the
// thread's registers.
//
// Lesson: in gemm7 a thread's TN columns are contiguous, so neighbouring lanes read B vectors
// 32 bytes apart: every LDS.128 costs twice the wavefronts its data needs. Here each warp owns
// a WM × WN sub-tile of the block tile and its 32 lanes form a (WM/TM) × (WN/TN) grid; a
// thread's TM × TN outputs are (TM/4) × (TN/4) blocks of 4 × 4 (2 × 2 for double), one per
// "sub-tile" of the warp tile, so for each k the lanes of a warp read *neighbouring* 16-byte
// vectors of A and of B (each distinct vector once, the rest broadcast): one shared-memory
// wavefront per 128 bytes, no bank conflicts. The warp tile also decides which shared data a
// warp touches (WM + WN values per k), independent of how threads map to outputs, which is the
// unit later steps (and tensor-core kernels) schedule.
//
// What it still leaves: the whole block waits at __syncthreads while the next tile travels
// from global memory through registers; gemm9 overlaps that copy with the FMAs.
// Measured (4096³ float; docs/sgemm-ladder.md, "What the profiler shows"): the conflicts all but
// vanish and shared-load wavefronts fall, yet the time barely improves over gemm7: the copy
// (long-scoreboard and barrier stalls; issue slots idle much of the time) was the limit, not
// the conflicts.
//
// WarpTile below (the register-level product and the epilogue) is reused unchanged by gemm9.
#pragma once

#include "handwritten/gemm/gemm_tiles.cuh"

namespace kl::gemm8 {

using namespace gemm_detail;

// Geometry of a BM × BN block tile cut into WM × WN warp tiles, each thread TM × TN outputs.
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct WarpTile {
  static constexpr int V = kVec<T>;
  static constexpr int kLanesN = WN / TN, kLanesM = WM / TM;  // the lane grid of a warp
  static constexpr int kWarpsN = BN / WN, kWarps = (BM / WM) * (BN / WN);
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kSubM = kLanesM * V, kSubN = kLanesN * V;  // rows/cols one vector step covers
  static constexpr int LDA = BM + V;                              // as gemm7
  static_assert(kLanesM * kLanesN == 32, "the lanes of a warp must tile the warp tile");
  static_assert(BM % WM == 0 && BN % WN == 0 && TM % V == 0 && TN % V == 0, "whole tiles");

  int row, col;  // this thread's first output within the block tile (its other rows/cols are
                 // kSubM / kSubN apart, by V-wide vectors)
  T acc[TM][TN];

  __device__ __forceinline__ WarpTile() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    row = (warp / kWarpsN) * WM + (lane / kLanesN) * V;
    col = (warp % kWarpsN) * WN + (lane % kLanesN) * V;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  }

  // This thread's operands of step k: TM values of A from the transposed A tile `as` (pitch
  // LDA), TN of B from the B tile `bs` (pitch BN), in neighbouring 16-byte vectors across the warp.
  __device__ __forceinline__ void load_fragments(T (&ra)[TM], T (&rb)[TN], const T* as, const T* bs, int k) const {
#pragma unroll
    for (int i = 0; i < TM / V; ++i) load_vec(ra + i * V, as + k * LDA + row + i * kSubM);
#pragma unroll
    for (int j = 0; j < TN / V; ++j) load_vec(rb + j * V, bs + k * BN + col + j * kSubN);
  }

  // acc += as[0, BK) ᵀ· bs[0, BK): as is the transposed A tile (pitch LDA), bs the B tile
  // (pitch BN). One chain of FMAs per output, in k order.
  __device__ __forceinline__ void multiply(const T* as, const T* bs) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      T ra[TM], rb[TN];
      load_fragments(ra, rb, as, bs, k);
      fma_outer(acc, ra, rb);
    }
  }

  // Writes the thread's outputs to C, whose block tile starts at (row0, col0).
  template <bool VEC>
  __device__ __forceinline__ void store(T* __restrict__ c, int M, int N, int row0, int col0) const {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + row + (i / V) * kSubM + i % V;
#pragma unroll
      for (int j = 0; j < TN / V; ++j)
        store_c<T, V, VEC>(c, M, N, r, col0 + col + j * kSubN, &acc[i][j * V]);
    }
  }
};

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
__global__ void __launch_bounds__(WarpTile<T, BM, BN, BK, WM, WN, TM, TN>::kThreads)
    kernel_warptiled(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                     int N, int K) {
  using W = WarpTile<T, BM, BN, BK, WM, WN, TM, TN>;
  __shared__ __align__(16) T as[BK * W::LDA];
  __shared__ __align__(16) T bs[BK * BN];
  const int row0 = BM * blockIdx.y, col0 = BN * blockIdx.x;
  W w;
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_a_transposed<T, BM, BK, W::LDA, W::kThreads, VEC>(as, a, M, K, row0, k0);
    load_b<T, BK, BN, BN, W::kThreads, VEC>(bs, b, K, N, k0, col0);
    __syncthreads();
    w.multiply(as, bs);
    __syncthreads();
  }
  w.template store<VEC>(c, M, N, row0, col0);
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  constexpr int kThreads = WarpTile<T, BM, BN, BK, WM, WN, TM, TN>::kThreads;
  const auto kernel = vec_io_ok(g, /*need_a=*/true)
                          ? kernel_warptiled<T, BM, BN, BK, WM, WN, TM, TN, true>
                          : kernel_warptiled<T, BM, BN, BK, WM, WN, TM, TN, false>;
  launch_tiled(g, BM, BN, [&](dim3 grid, const T* A, T* C, int M) {
    kernel<<<grid, kThreads, 0, s>>>(A, g.B, C, M, g.N, g.K);
  });
}

template <class T>
GemmVariant<T> variant() {
  // gemm7's block tiles and per-thread blocks; only the thread-to-output map changes.
  if constexpr (sizeof(T) == 4) {
    return {.info = {"gemm8_warptiled", "beyond the documents",
                     "64x32 warp tiles, lanes read neighbouring 16-byte vectors: no shared bank conflicts"},
            .launch = launch<T, 128, 128, 8, 64, 32, 8, 8>};
  } else {
    return {.info = {"gemm8_warptiled", "beyond the documents",
                     "32x16 warp tiles, lanes read neighbouring 16-byte vectors: no shared bank conflicts"},
            .launch = launch<T, 64, 64, 8, 32, 16, 4, 4>};
  }
}

}  // namespace kl::gemm8
