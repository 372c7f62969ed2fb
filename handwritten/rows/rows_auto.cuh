// rows_auto — beyond the documents: the step a library would ship, picking by shape among the
// steps before it.
//
// Lesson: no single mapping of threads to rows wins at every shape. The column mean goes to
// rows_cols_coalesced; a row operation goes to rows_block_split when there are too few rows to
// fill the GPU and they are long enough to cut (its split_for gives more than one chunk per row,
// e.g. 1 × 2^24), and to rows_subwarp otherwise (lanes per row sized to the row: a warp for long
// rows, several rows per warp for short ones). Each of those is measured on its own in the same
// run; this row shows what a user who calls one function gets.
#pragma once

#include "handwritten/rows/rows_block_split.cuh"
#include "handwritten/rows/rows_cols_coalesced.cuh"
#include "handwritten/rows/rows_subwarp.cuh"

namespace kl::rows_auto {

enum class Path { columns, split, subwarp };

template <class T>
Path path_for(RowsShape s) {
  if (is_column_op(s.op)) return Path::columns;
  return rows_block_split::split_for<T>(s.M, s.N).splits > 1 ? Path::split : Path::subwarp;
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_auto", "beyond the documents",
               "by shape: rows_cols_coalesced (col_mean), rows_block_split (few long rows), rows_subwarp (otherwise)"},
      .launch = [](const RowsArgs<T>& a, cudaStream_t s) {
        switch (path_for<T>({a.M, a.N, a.pitch, a.op})) {
          case Path::columns: return rows_cols_coalesced::launch<T>(a, s);
          case Path::split: return rows_block_split::launch<T>(a, s);
          case Path::subwarp: return rows_subwarp::launch<T>(a, s);
        }
      },
      .workspace_bytes = [](RowsShape s) -> std::size_t {
        switch (path_for<T>(s)) {
          case Path::columns: return rows_cols_coalesced::partial_count(s) * sizeof(T);
          case Path::split: return rows_block_split::workspace_bytes<T>(s);
          case Path::subwarp: return 0;
        }
        return 0;
      },
      .rounding_depth = [](RowsShape s) {
        switch (path_for<T>(s)) {
          case Path::columns: return rows_cols_coalesced::depth(s);
          case Path::split: return rows_block_split::depth<T>(s);
          case Path::subwarp: return rows_subwarp::depth<T>(s);
        }
        return 0.0;
      },
  };
}

}  // namespace kl::rows_auto
