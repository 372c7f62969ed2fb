// transpose2_smem_tile — beyond the documents (document 000's shared-memory lesson applied to
// its transpose1).
//
// Lesson: stage a 32×32 tile of A in shared memory, so that both global accesses are row-wise.
// A block of 32×32 threads reads the tile row by row (warp ty reads 32 consecutive elements of
// row row0 + ty: one 128-byte line for float), synchronises, and writes row ty of the
// transposed tile, which is column ty of the shared tile, to 32 consecutive elements of B's row
// col0 + ty: coalesced writes as well. The price is the column read tile[tx][ty]: the 32
// threads of a warp read words 32 apart, all in one bank, a 32-way bank conflict (for double,
// 8-byte words 256 bytes apart: 16-way in each half-warp). The profiler shows global store
// sectors per request at the ideal 4 (float), and shared load bank conflicts of 31 extra
// wavefronts per request. The next step, transpose3_smem_padded, removes them.
//
// Any M, N: threads outside A leave their tile slot unset and write nothing; the tile-row loop
// of transpose_common.cuh covers M past 65535 tiles. kPad is the padding of each tile row in
// elements: 0 here, 1 in transpose3 (the same kernel, one template parameter apart).
#pragma once

#include "handwritten/transpose/transpose_common.cuh"

namespace kl::transpose2 {

constexpr int kTile = 32;

template <class T, int kPad>
__global__ void __launch_bounds__(kTile * kTile)
    transpose_tile(const T* __restrict__ in, T* __restrict__ out, int M, int N) {
  __shared__ T tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = blockIdx.x * kTile;
  const int tiles_y = ceil_div(M, kTile);
  for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const int row0 = by * kTile;
    if (row0 + ty < M && col0 + tx < N) tile[ty][tx] = in[static_cast<std::size_t>(row0 + ty) * N + col0 + tx];
    __syncthreads();
    // B's row col0 + ty holds A's column col0 + ty: the tile's column ty, read across the warp.
    if (col0 + ty < N && row0 + tx < M) out[static_cast<std::size_t>(col0 + ty) * M + row0 + tx] = tile[tx][ty];
    __syncthreads();  // the next tile row overwrites the tile
  }
}

template <class T, int kPad>
void launch(const TransposeArgs<T>& a, cudaStream_t s) {
  transpose_detail::launch_tiles(transpose_tile<T, kPad>, a, kTile, dim3(kTile, kTile), s);
}

template <class T>
TransposeVariant<T> variant() {
  return {
      .info = {"transpose2_smem_tile", "beyond (000: transpose1 + shared memory)",
               "32x32 tile in shared memory: coalesced reads and writes; the column read of the tile is a 32-way bank conflict"},
      .launch = launch<T, 0>,
  };
}

}  // namespace kl::transpose2
