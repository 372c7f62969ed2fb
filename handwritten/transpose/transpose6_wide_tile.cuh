// transpose6_wide_tile_64 — beyond the documents. transpose4 with a 64 × 64 tile: a block of
// 64 × 4 threads moves 16 elements per thread, and each row segment it reads or writes is 64
// elements (256 bytes of float) instead of 32.
//
// Lesson: after transpose4 the bytes are coalesced and the shared tile conflict-free, and the
// kernel still stayed behind cublasSgeam at 16384² float (docs/transpose-and-table.md,
// "transpose6: what cuBLAS does differently").
// Nsight Compute names cuBLAS's kernel for this job (transpose_readWrite_alignment_kernel):
// 256 threads, 65,536 blocks for 16384² (a 64 × 64 tile each) and 8,320 bytes of shared memory
// (32 × 65 floats: a padded tile 64 wide). What a wider tile changes is not the requests but
// where they land: a 32-wide tile writes 128 contiguous bytes into each of 32 rows of B, which
// are 64 KiB apart at 16384 columns, so every write opens a DRAM page for 128 bytes; a 64-wide
// tile writes 256 bytes per page opened, and reads likewise. Twice the work per block also
// halves the blocks, their barriers and index arithmetic per element.
//
// The kernel is transpose4's (transpose4::transpose_rows) with kTile = 64: the tile is padded by
// one column ([64][65]), so the column reads of the second phase stay conflict-free (bank
// (tx·65 + c) % 32 = (tx + c) % 32). Any M, N: guards per element, the tile-row loop and
// 64-bit offsets as in every step (transpose_common.cuh).
#pragma once

#include "handwritten/transpose/transpose4_rows_per_thread.cuh"

#include <string_view>

namespace kl::transpose6 {

template <class T, int kTile, int kRows>
TransposeVariant<T> variant(std::string_view name) {
  return {
      .info = {name, "beyond", "transpose4 with a wider padded tile: 256-byte row segments per DRAM page opened"},
      .launch = [](const TransposeArgs<T>& a, cudaStream_t s) {
        transpose_detail::launch_tiles(transpose4::transpose_rows<T, kTile, kRows>, a, kTile, dim3(kTile, kRows), s);
      },
  };
}

}  // namespace kl::transpose6
