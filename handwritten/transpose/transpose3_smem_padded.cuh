// transpose3_smem_padded — beyond the documents (the padding of document 000's A·Aᵀ lesson,
// `ats[16][16+1]`, applied to transpose2's tile).
//
// Lesson: one unused element at the end of each tile row (tile[32][33]) shifts row k by k banks,
// so the column read tile[tx][ty] of a warp (tx = 0..31) touches 32 different banks: conflict-
// free (for double, words 33·tx + ty: 2·(tx + ty) mod 32 gives 16 distinct bank pairs in each
// half-warp, conflict-free too). The row-wise write into the tile stays conflict-free. The
// profiler shows the shared load bank conflicts of transpose2 gone; what remains is one element
// per thread and a barrier per 1024 elements, which transpose4 addresses.
//
// The kernel is transpose2's with kPad = 1: the padding is the only change.
#pragma once

#include "handwritten/transpose/transpose2_smem_tile.cuh"

namespace kl::transpose3 {

template <class T>
TransposeVariant<T> variant() {
  return {
      .info = {"transpose3_smem_padded", "beyond (000: A*A^T's ats[16][16+1] padding)",
               "tile[32][33]: the padding makes the tile's column read conflict-free"},
      .launch = transpose2::launch<T, 1>,
  };
}

}  // namespace kl::transpose3
