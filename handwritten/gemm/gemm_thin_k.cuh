// gemm_thin_k — beyond the documents: C = A·B when K is a handful (an outer product at K = 1).
//
// Lesson: with K of a few elements a product does K multiply-adds per output and writes M·N
// outputs: it is a store stream, not a matrix multiply. The tiled steps still stage A and B in
// shared memory, run a pipeline prologue and epilogue for one or two k tiles and pad K up to
// their BK with zeros (at K = 1, 15 of 16 FMAs per output multiply padding), so they run at a
// fraction of the store bandwidth. Here there is no tile: a warp owns 32·V·kU consecutive
// outputs of one row (V = 16 bytes of them: 4 floats, 2 doubles; kU = 4 such vectors per lane,
// so that each lane has 4 independent 16-byte stores in flight), reads the row's K values of A
// (the same address across the warp: one broadcast) and, per k, its values of row k of B
// (shared by every row: they stay in L1/L2): one 16-byte store per vector where N is a multiple
// of V and C, B are 16-byte aligned; otherwise lane-strided element stores (lane + 32·j: still
// whole 128-byte lines per warp instruction). One 16-byte vector per lane (kU = 1) fell short
// of cuBLAS's double outer product at 4096² (the trials docs/log.md cites, "gemm"; the current kernel's
// rows in docs/sgemm-ladder.md, "Every shape class").
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
constexpr int kU = 4;  // 16-byte outputs per lane: its stores in flight

template <class T, bool VEC>
__global__ void __launch_bounds__(kThreads) kernel(const T* __restrict__ A, const T* __restrict__ B,
                                                   T* __restrict__ C, int M, int N, int K) {
  constexpr int V = kVec<T>;
  constexpr int kChunk = 32 * V * kU;  // columns per warp item
  const int lane = threadIdx.x % 32;
  const long long chunks_per_row = (N + kChunk - 1) / kChunk;
  const long long items = static_cast<long long>(M) * chunks_per_row;
  const long long warps = static_cast<long long>(gridDim.x) * (kThreads / 32);
  for (long long it = static_cast<long long>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32; it < items; it += warps) {
    const int row = static_cast<int>(it / chunks_per_row);
    const int c0 = static_cast<int>(it % chunks_per_row) * kChunk;
    const T* a = A + static_cast<std::size_t>(row) * K;
    T* c = C + static_cast<std::size_t>(row) * N;
    T acc[kU][V] = {};
    // Column of output (u, v): VEC: c0 + (32u + lane)·V + v (a lane's V outputs are one 16-byte
    // vector; N % V == 0, so a vector is all inside or all past N); else c0 + 32(u·V + v) + lane.
    auto col = [&](int u, int v) { return VEC ? c0 + (32 * u + lane) * V + v : c0 + 32 * (u * V + v) + lane; };
    for (int k = 0; k < K; ++k) {
      const T ak = __ldg(a + k);
      const T* b = B + static_cast<std::size_t>(k) * N;
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        if constexpr (VEC) {
          if (col(u, 0) < N) {
            T bv[V];
            load_vec(bv, b + col(u, 0));
#pragma unroll
            for (int v = 0; v < V; ++v) acc[u][v] += ak * bv[v];
          }
        } else {
#pragma unroll
          for (int v = 0; v < V; ++v)
            if (col(u, v) < N) acc[u][v] += ak * __ldg(b + col(u, v));
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if constexpr (VEC) {
        if (col(u, 0) < N) store_vec(c + col(u, 0), acc[u]);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (col(u, v) < N) c[col(u, v)] = acc[u][v];
      }
    }
  }
}

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  constexpr int V = kVec<T>;
  const bool vec = g.N % V == 0 && aligned16(g.B) && aligned16(g.C);
  const std::size_t chunks = static_cast<std::size_t>(ceil_div(g.N, 32 * V * kU)) * g.M;
  // A warp per (row, chunk), at most 64 blocks per SM (the loop covers more).
  const std::size_t blocks = std::min<std::size_t>(ceil_div(chunks, std::size_t(kThreads / 32)), 64 * std::size_t(sm_count()));
  const auto k = vec ? kernel<T, true> : kernel<T, false>;
  k<<<grid_blocks(blocks), kThreads, 0, s>>>(g.A, g.B, g.C, g.M, g.N, g.K);
  KL_CHECK_LAUNCH();
}

template <class T>
GemmVariant<T> variant() {
  return {.info = {"gemm_thin_k", "beyond the documents",
                   "no tiles for a thin K: a warp per 32x4 16-byte outputs of a C row, A broadcast, 16-byte stores (an outer product at K = 1)"},
          .launch = launch<T>};
}

}  // namespace kl::gemm_thin_k
