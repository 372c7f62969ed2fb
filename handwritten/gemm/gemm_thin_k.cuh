// gemm_thin_k — beyond the documents: C = A·B when K is a handful (an outer product at K = 1).
//
// Lesson: with K of a few elements a product does K multiply-adds per output and writes M·N
// outputs: it is a store stream, not a matrix multiply. The tiled steps still stage A and B in
// shared memory, run a pipeline prologue and epilogue for one or two k tiles and pad K up to
// their BK with zeros (at K = 1, 15 of 16 FMAs per output multiply padding), so they run at a
// fraction of the store bandwidth. Here there is no tile: a warp owns 32·V consecutive outputs
// of one row (V = 16 bytes of them: 4 floats, 2 doubles), reads the row's K values of A (the
// same address across the warp: one broadcast) and, per k, V consecutive values of row k of B
// (shared by every row: they stay in L1/L2), and stores V outputs at once: one 16-byte store
// per lane where N is a multiple of V and C, B are 16-byte aligned; otherwise lane-strided
// element stores (lane + 32·v: still whole 128-byte lines per warp instruction).
//
// Order: each output is one chain a_i0·b_0j + a_i1·b_1j + ... in k order (depth K, the
// family's default), the same as every tiled step's, so its results are theirs bit for bit
// where they do not split k.
//
// Work: a warp-strided loop over (row, 32·V-column chunk); the grid is a few waves of 256-thread
// blocks (a wave's worth read from the device: multiprocessors × resident blocks). Any M, N,
// K >= 1; nothing here needs more than 7.5.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_thin_k {

constexpr int kThreads = 256;

template <class T, bool VEC>
__global__ void __launch_bounds__(kThreads) kernel(const T* __restrict__ A, const T* __restrict__ B,
                                                   T* __restrict__ C, int M, int N, int K) {
  constexpr int V = 16 / sizeof(T);
  constexpr int kChunk = 32 * V;
  const int lane = threadIdx.x % 32;
  const long long chunks_per_row = (N + kChunk - 1) / kChunk;
  const long long items = static_cast<long long>(M) * chunks_per_row;
  const long long warps = static_cast<long long>(gridDim.x) * (kThreads / 32);
  for (long long it = static_cast<long long>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32; it < items; it += warps) {
    const int row = static_cast<int>(it / chunks_per_row);
    const int c0 = static_cast<int>(it % chunks_per_row) * kChunk;
    const T* a = A + static_cast<std::size_t>(row) * K;
    T* c = C + static_cast<std::size_t>(row) * N;
    T acc[V] = {};
    if constexpr (VEC) {
      const int j = c0 + lane * V;  // N % V == 0: the lane's V outputs are all inside or all past
      if (j >= N) continue;
      for (int k = 0; k < K; ++k) {
        const T ak = __ldg(a + k);
        T b[V];
        load_vec(b, B + static_cast<std::size_t>(k) * N + j);
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] += ak * b[v];
      }
      store_vec(c + j, acc);
    } else {
      for (int k = 0; k < K; ++k) {
        const T ak = __ldg(a + k);
        const T* b = B + static_cast<std::size_t>(k) * N;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const int j = c0 + lane + 32 * v;
          if (j < N) acc[v] += ak * __ldg(b + j);
        }
      }
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const int j = c0 + lane + 32 * v;
        if (j < N) c[j] = acc[v];
      }
    }
  }
}

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  constexpr int V = 16 / sizeof(T);
  const bool vec = g.N % V == 0 && aligned16(g.B) && aligned16(g.C);
  const std::size_t chunks = static_cast<std::size_t>(ceil_div(g.N, 32 * V)) * g.M;
  // Enough warps for every (row, chunk), at most 8 waves of 8 blocks per SM (the loop covers more).
  const std::size_t blocks = std::min<std::size_t>(ceil_div(chunks, std::size_t(kThreads / 32)), 64 * std::size_t(sm_count()));
  const auto k = vec ? kernel<T, true> : kernel<T, false>;
  k<<<grid_blocks(blocks), kThreads, 0, s>>>(g.A, g.B, g.C, g.M, g.N, g.K);
  KL_CHECK_LAUNCH();
}

template <class T>
GemmVariant<T> variant() {
  return {.info = {"gemm_thin_k", "beyond the documents",
                   "no tiles for a thin K: a warp per 32x16 bytes of a C row, A broadcast, 16-byte stores (an outer product at K = 1)"},
          .launch = launch<T>};
}

}  // namespace kl::gemm_thin_k
