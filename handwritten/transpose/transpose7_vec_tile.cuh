// transpose7_vec_tile_<bytes>B_r<rows> — beyond the documents. transpose6's 64 × 64 tile moved
// with 8- or 16-byte global accesses.
//
// Lesson: on the H200, transpose6 (4-byte accesses, 64-wide tile) ran float 16384² just behind
// cublasSgeam, while the double transpose, whose accesses are 8 bytes, was ahead; the H100
// does not tell the widths apart (docs/sgemm-ladder.md, "Every shape class"), the H200 does
// (docs/transpose-and-table.md, "transpose7: the access width, for the H200"). transpose5
// already moved 16 bytes per access, but with a 32-wide tile, so each DRAM page opened took 128
// bytes and it lost to transpose6 on both cards. This step keeps the 64-wide tile (256-byte row
// segments, 512 in double) and widens the accesses.
//
// A thread reads V = bytes / sizeof(T) consecutive elements of V consecutive rows of A,
// transposes that V × V block in registers, and stores its V columns as V-element chunks of the
// transposed tile in shared memory; the second phase reads one chunk per thread and writes it to
// B with one store. Chunk g of tile row c lives at g ^ ((c / V) & (32 / V − 1)) (XOR swizzle):
// the rows V·tx + j that the lanes of one shared-memory phase (8 bytes: 16 lanes, 16 bytes: 8)
// scatter into get distinct chunks modulo the phase's bank groups, and the second phase reads
// a permutation of one row's chunks, so neither phase has a bank conflict (padding cannot keep
// chunks aligned).
//
// Vector accesses need every row of A and of B to start on a chunk boundary: M and N multiples
// of V and both pointers aligned to the chunk. Otherwise the same kernel runs with element-wise
// global accesses (kVector = false: same tile, same swizzle, every element guarded), so any
// shape works; the vector path guards whole chunks, which lie entirely inside or outside A and B
// when the sides are multiples of V. Tile-row loop and 64-bit offsets as in every step
// (transpose_common.cuh).
#pragma once

#include "handwritten/transpose/transpose_common.cuh"

#include <cstdint>
#include <string_view>

namespace kl::transpose7 {

constexpr int kTile = 64;

// The global access of V elements of T: float2/float4 (float), double/double2 (double).
template <class T, int V>
struct Chunk;
template <>
struct Chunk<float, 2> {
  using type = float2;
};
template <>
struct Chunk<float, 4> {
  using type = float4;
};
template <>
struct Chunk<double, 1> {
  using type = double;
};
template <>
struct Chunk<double, 2> {
  using type = double2;
};

template <class T, int kBytes, int kRows, bool kVector>
__global__ void __launch_bounds__(kTile * sizeof(T) / kBytes * kRows)
    transpose_vec_tile(const T* __restrict__ in, T* __restrict__ out, int M, int N) {
  constexpr int V = kBytes / static_cast<int>(sizeof(T));
  constexpr int kChunks = kTile / V, kMask = 32 / V - 1;
  using C = typename Chunk<T, V>::type;
  static_assert(kChunks % kRows == 0, "the thread rows must tile the row groups");
  __shared__ C tile[kTile][kChunks];  // tile[c][g ^ swizzle(c)] = A(row0 + V·g + e, col0 + c), e < V
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = blockIdx.x * kTile;
  const int tiles_y = ceil_div(M, kTile);
  for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const int row0 = by * kTile;
#pragma unroll
    for (int k = 0; k < kChunks / kRows; ++k) {  // constant trip count: the loads issue back to back
      const int g = ty + k * kRows;               // row group: tile rows V·g ... V·g + V − 1
      const int col = col0 + V * tx;
      T v[V][V];  // v[e][j] = A(row0 + V·g + e, col + j); zeros outside A, never stored to B
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const int row = row0 + V * g + e;
        const T* src = in + static_cast<std::size_t>(row) * N + col;
        if constexpr (kVector) {
          C x{};
          if (row < M && col < N) x = *reinterpret_cast<const C*>(src);
          const T* xp = reinterpret_cast<const T*>(&x);
#pragma unroll
          for (int j = 0; j < V; ++j) v[e][j] = xp[j];
        } else {
#pragma unroll
          for (int j = 0; j < V; ++j) v[e][j] = row < M && col + j < N ? src[j] : T(0);
        }
      }
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C w;
        T* wp = reinterpret_cast<T*>(&w);
#pragma unroll
        for (int e = 0; e < V; ++e) wp[e] = v[e][j];
        tile[V * tx + j][g ^ (tx & kMask)] = w;  // ((V·tx + j) / V) & kMask = tx & kMask
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile / kRows; ++k) {
      const int c = ty + k * kRows;
      const int brow = col0 + c, bcol = row0 + V * tx;  // B(brow, bcol + e) = A(bcol + e, brow)
      const C w = tile[c][tx ^ ((c / V) & kMask)];
      T* dst = out + static_cast<std::size_t>(brow) * M + bcol;
      if constexpr (kVector) {
        if (brow < N && bcol < M) *reinterpret_cast<C*>(dst) = w;
      } else {
        const T* wp = reinterpret_cast<const T*>(&w);
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (brow < N && bcol + e < M) dst[e] = wp[e];
      }
    }
    __syncthreads();
  }
}

template <class T, int kBytes, int kRows>
void launch(const TransposeArgs<T>& a, cudaStream_t s) {
  constexpr int V = kBytes / static_cast<int>(sizeof(T));
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % kBytes == 0; };
  const bool vector = a.M % V == 0 && a.N % V == 0 && aligned(a.A) && aligned(a.B);
  transpose_detail::launch_tiles(
      vector ? transpose_vec_tile<T, kBytes, kRows, true> : transpose_vec_tile<T, kBytes, kRows, false>, a, kTile,
      dim3(kTile / V, kRows), s);
}

template <class T, int kBytes, int kRows>
TransposeVariant<T> variant(std::string_view name) {
  return {
      .info = {name, "beyond",
               "transpose6's 64x64 tile with 8- or 16-byte accesses: register transposes into an XOR-swizzled tile"},
      .launch = launch<T, kBytes, kRows>,
  };
}

}  // namespace kl::transpose7
