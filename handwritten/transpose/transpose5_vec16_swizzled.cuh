// transpose5_vec16_swizzled_r<rows> — beyond the documents.
//
// Lesson: what the profiler says after transpose4 is that the kernel issues one 4-byte load,
// one shared store, one shared load and one 4-byte store per float, plus index arithmetic:
// instructions and requests, not bytes, are what a thread spends its time on, and each thread
// has only 4 loads (16 bytes) in flight. This step moves 16 bytes per access on both global
// sides: a thread reads kVec<T> consecutive elements of a row of A (float4 / double2) and
// writes kVec<T> consecutive elements of a row of B, so the same bytes take a quarter (float)
// or half (double) of the memory instructions and each load brings 16 bytes.
//
// The tile is kept transposed in shared memory: a thread scatters the kVec<T> elements it read
// from A's row r into rows c = kVec·tx + e of the tile, position r, and in the second phase reads
// kVec<T> consecutive positions of one tile row (one 16-byte shared load) for its 16-byte store
// into B. Padding cannot keep 16-byte chunks aligned and the scatter conflict-free at once, so
// the chunks are XOR-swizzled instead: logical chunk q of tile row c lives at physical chunk
// q ^ (c / kVec). For float (8 threads × 4 rows per warp) the scatter of element e by a warp
// writes rows c = 4·tx + e, chunk (r / 4) ^ tx, word r % 4: 8 distinct chunks × 4 distinct
// words, all 32 banks once, conflict-free; the 16-byte reads of the second phase (8 threads per
// phase, one tile row, chunks tx ^ (c / 4)) are conflict-free too. For double (16 threads × 2
// rows per warp) each half-warp's scatter lands on 8 bank pairs: a 2-way conflict on that one
// store, which the shared-memory pipe absorbs (the kernel is bound by DRAM, not by it).
//
// 16-byte accesses need every row of A and of B to start on a 16-byte boundary: N and M
// multiples of kVec<T> and both pointers 16-byte aligned. Otherwise the same kernel runs with
// element-wise global accesses (kVector = false; same tile, same swizzle, every element
// guarded), so any shape works; the vector path guards whole chunks, which lie entirely inside
// or entirely outside A and B when the sides are multiples of kVec<T>. Tile-row loop and
// 64-bit offsets as in every step (transpose_common.cuh).
#pragma once

#include "handwritten/transpose/transpose_common.cuh"

#include <string_view>

namespace kl::transpose5 {

constexpr int kTile = 32;

// One thread per 16-byte chunk of a tile row: 8 (float), 16 (double).
template <class T>
inline constexpr int kThreadsX = kTile / kVec<T>;

// The physical position, in tile row c, of logical position r (an A row of the tile).
template <class T>
__device__ __forceinline__ int swizzled(int c, int r) {
  return ((r / kVec<T>) ^ (c / kVec<T>)) * kVec<T> + r % kVec<T>;
}

template <class T, int kRows, bool kVector>
__global__ void __launch_bounds__(kThreadsX<T> * kRows)
    transpose_vec(const T* __restrict__ in, T* __restrict__ out, int M, int N) {
  constexpr int V = kVec<T>;
  static_assert(kTile % kRows == 0, "the thread rows must tile the tile's rows");
  static_assert((kTile / V) * V == kTile, "whole 16-byte chunks per tile row");
  static_assert(kRows % (32 / kThreadsX<T>) == 0, "a warp's rows must share r / kVec (the swizzle's analysis)");
  __shared__ alignas(16) T tile[kTile][kTile];  // tile[c][swizzled(c, r)] = A(row0 + r, col0 + c)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = blockIdx.x * kTile;
  const int tiles_y = ceil_div(M, kTile);
  for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const int row0 = by * kTile;
#pragma unroll
    for (int k = 0; k < kTile / kRows; ++k) {  // constant trip count: the loads issue back to back
      const int r = ty + k * kRows;
      const int row = row0 + r, col = col0 + V * tx;
      const T* src = in + static_cast<std::size_t>(row) * N + col;
      T v[V] = {};  // zeros outside A: every tile slot is written, none is ever stored to B
      if constexpr (kVector) {
        if (row < M && col < N) load_vec(v, src);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (row < M && col + e < N) v[e] = src[e];
      }
#pragma unroll
      for (int e = 0; e < V; ++e) tile[V * tx + e][swizzled<T>(V * tx + e, r)] = v[e];  // unread if outside A
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile / kRows; ++k) {
      const int c = ty + k * kRows;
      const int brow = col0 + c, bcol = row0 + V * tx;  // B(brow, bcol + e) = A(bcol + e, brow)
      T v[V];
      load_vec(v, &tile[c][(tx ^ (c / V)) * V]);  // logical chunk tx of tile row c
      T* dst = out + static_cast<std::size_t>(brow) * M + bcol;
      if constexpr (kVector) {
        if (brow < N && bcol < M) store_vec(dst, v);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (brow < N && bcol + e < M) dst[e] = v[e];
      }
    }
    __syncthreads();
  }
}

template <class T, int kRows>
void launch(const TransposeArgs<T>& a, cudaStream_t s) {
  const bool vector = a.M % kVec<T> == 0 && a.N % kVec<T> == 0 && aligned16(a.A) && aligned16(a.B);
  transpose_detail::launch_tiles(vector ? transpose_vec<T, kRows, true> : transpose_vec<T, kRows, false>, a, kTile,
                                 dim3(kThreadsX<T>, kRows), s);
}

template <class T, int kRows>
TransposeVariant<T> variant(std::string_view name) {
  return {
      .info = {name, "beyond",
               "16-byte loads and stores (rows aligned), 32x32 tile kept transposed and XOR-swizzled in shared memory"},
      .launch = launch<T, kRows>,
  };
}

}  // namespace kl::transpose5
