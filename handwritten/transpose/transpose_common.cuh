// What every transpose kernel does the same way, said once: the grid over tiles and its launch,
// and the loop that lets a grid cover more tile rows than gridDim.y allows.
//
// Grid: x runs over tiles of A's columns (gridDim.x may reach 2^31 - 1: N <= 2^30 always fits),
// y over tiles of A's rows. gridDim.y is at most 65535, so with 32-row tiles a grid covers
// M <= 2,097,120 rows directly (16-row tiles: 1,048,560); past that each block loops over tile
// rows blockIdx.y, blockIdx.y + gridDim.y, ... (every kernel's outer loop). The loop bound is
// uniform across a block, so the __syncthreads() inside it are reached by every thread.
// Offsets are 64-bit everywhere: M·N passes 2^31 long before M or N does.
#pragma once

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/args/transpose_args.hpp"

#include <algorithm>

namespace kl::transpose_detail {

constexpr unsigned kMaxGridY = 65535;

// Tiles of tile_rows × tile_cols over A (M × N); y capped at gridDim.y's limit.
inline dim3 tile_grid(int M, int N, int tile_rows, int tile_cols) {
  const unsigned tiles_y = ceil_div(static_cast<unsigned>(M), static_cast<unsigned>(tile_rows));
  return dim3(grid_blocks(ceil_div(static_cast<std::size_t>(N), static_cast<std::size_t>(tile_cols))),
              std::min(tiles_y, kMaxGridY));
}

// Launches kernel(A, B, M, N) over A's tile × tile tiles with `block` threads per tile.
template <class T, class Kernel>
void launch_tiles(Kernel kernel, const TransposeArgs<T>& a, int tile, dim3 block, cudaStream_t s) {
  kernel<<<tile_grid(a.M, a.N, tile, tile), block, 0, s>>>(a.A, a.B, a.M, a.N);
  KL_CHECK_LAUNCH();
}

}  // namespace kl::transpose_detail
