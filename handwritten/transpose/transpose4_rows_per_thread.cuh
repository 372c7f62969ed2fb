// transpose4_rows_per_thread_<tile>x<rows> — beyond the documents (the elements-per-thread step
// of document 001's SMEM-4/SMEM-5, threads(32, 8), applied to transpose3).
//
// Lesson: the same padded 32×32 tile, moved by 32×kRows threads, each taking 32/kRows rows
// (32×8: four elements per thread). Each thread now issues its 32/kRows loads back to back,
// before any of them is needed (the loop is unrolled and the tile stores wait only on their own
// load), so a block keeps 4 KB (float) of reads in flight instead of one element per thread;
// and a block of 256 threads instead of 1024 lets more blocks share an SM (8 instead of 2), so
// the barrier of one block no longer idles a quarter of the SM. The index arithmetic per
// element drops too. The profiler should show DRAM throughput close to the copy's and stalls
// on long scoreboard (waiting for loads) as the main remaining reason.
//
// Any M, N as in transpose2/3 (guards per element, tile-row loop).
#pragma once

#include "handwritten/transpose/transpose_common.cuh"

#include <string_view>

namespace kl::transpose4 {

constexpr int kTile = 32;

// A padded kTile × kTile tile moved by kTile × kRows threads (transpose6 instantiates it with a
// 64-wide tile).
template <class T, int kTile, int kRows>
__global__ void __launch_bounds__(kTile * kRows)
    transpose_rows(const T* __restrict__ in, T* __restrict__ out, int M, int N) {
  static_assert(kTile % kRows == 0 && kTile % 32 == 0, "thread rows tile the tile; whole warps per tile row");
  __shared__ T tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = blockIdx.x * kTile;
  const int tiles_y = ceil_div(M, kTile);
  for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const int row0 = by * kTile;
    // Constant trip counts, so the loops unroll and the loads issue back to back.
#pragma unroll
    for (int k = 0; k < kTile / kRows; ++k) {
      const int r = ty + k * kRows;
      if (row0 + r < M && col0 + tx < N) tile[r][tx] = in[static_cast<std::size_t>(row0 + r) * N + col0 + tx];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile / kRows; ++k) {
      const int c = ty + k * kRows;
      if (col0 + c < N && row0 + tx < M) out[static_cast<std::size_t>(col0 + c) * M + row0 + tx] = tile[tx][c];
    }
    __syncthreads();
  }
}

template <class T, int kRows>
TransposeVariant<T> variant(std::string_view name) {
  return {
      .info = {name, "beyond (001: threads(32, 8) of SMEM-5)",
               "padded 32x32 tile, 32/kRows elements per thread: loads in flight, smaller blocks"},
      .launch = [](const TransposeArgs<T>& a, cudaStream_t s) {
        transpose_detail::launch_tiles(transpose_rows<T, kTile, kRows>, a, kTile, dim3(kTile, kRows), s);
      },
  };
}

}  // namespace kl::transpose4
