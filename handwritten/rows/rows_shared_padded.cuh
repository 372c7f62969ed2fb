// rows_shared_padded — document 000, lab variants 2-6, the function "with shared memory" with the
// alignment of table 3.2: tile[32][32 + 1].
//
// Lesson: the kernel of rows_shared with one unused element at the end of every tile row. Row tx
// of the tile now starts tx banks further on, so tile[tx][k] for tx = 0..31 lies in 32 different
// banks and the first warp's fold reads a whole column of the tile in one shared-memory wavefront
// instead of 32 — the document's 16 × 17 picture, in which every row and every column spans all
// banks (doc table 3.2: 551 → 120 ms on A·Aᵀ). The column mean was conflict-free already; its
// time should not move. What is left: one warp of eight folds while the others wait at the
// barrier, one tile of 32 × 32 in flight per block, and rows of the tile still shared by 32 threads.
// The profiler should show no shared-memory bank conflicts.
//
// Changed from rows_shared: only the padding (template parameter kPad = 1).
#pragma once

#include "handwritten/rows/rows_shared.cuh"

namespace kl::rows_shared_padded {

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_shared_padded", "000 lab, variants 2-6: shared memory, tile[32][32+1] (table 3.2)",
               "the same tiles padded by one element per row: the column read spans all 32 banks, no conflict"},
      .launch = rows_shared::launch<T, 1>,
      .rounding_depth = rows_detail::serial_chain_depth,
      .unsupported = rows_detail::no_error_bound<T, rows_detail::serial_chain_depth>,
  };
}

}  // namespace kl::rows_shared_padded
