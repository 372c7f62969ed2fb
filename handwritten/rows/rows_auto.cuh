// rows_auto — beyond the documents: the step a library would ship, picking by shape among the
// steps before it.
//
// Lesson: no single mapping of threads to rows wins at every shape. The column mean goes to
// rows_cols_cluster where the device runs thread-block clusters (9.0 and up) and its one launch
// pays (rows_plan.hpp, cluster_pays: on the 16-byte path, a grid of at least a block per SM, or
// columns of at most 1024 rows), else to rows_cols_vec16 when its 16-byte path fills the GPU
// (rows_cols_vec16::fills_gpu), else to rows_cols_coalesced. A row operation goes to
//   - rows_block_split, split, when there are too few rows to fill the GPU and they are long
//     enough to cut (its split_for gives more than one chunk per row, e.g. 1 × 2^24);
//   - rows_block_deep, a block per row, when a row fills at least one round of its smallest block
//     (128 threads × 4 vectors: 2048 floats, 1024 doubles), or when a warp per row would leave
//     the SMs short of warps (fewer than kFillWarpsPerSM rows per SM) and a row is at least a
//     block wide;
// and to rows_subwarp otherwise (lanes per row sized to the row: a warp for long rows, several
// rows per warp for short ones). On the H100 (session trials, docs/rows-and-dot.md, "The rows
// ladder (`compare -f rows`)"), rows_block_deep is ahead of rows_block_split and CUB at float
// 16384², a little ahead at 1000 × 1000 (1000 rows: 7.6 warps per SM), and ahead of
// rows_block_split and rows_subwarp at double 2500 × 2000; rows_subwarp is as fast at float
// 2500 × 2000 and far ahead at 100003 × 7. Each of those is measured on its own in the same
// run; this row shows what a user who calls one function gets.
// Every step it picks from but rows_cols_cluster needs nothing beyond what every GPU CUDA 13
// supports (7.5: no cp.async, no clusters, static shared memory only;
// tests/host/test_requirements.cpp); rows_cols_cluster is taken only where the device and the
// loaded image run it (rows_cols_cluster::runs_here, common/device_helpers.cuh kernel_runs_here),
// so rows_auto itself runs on every GPU.
#pragma once

#include "handwritten/rows/rows_block_deep.cuh"
#include "handwritten/rows/rows_block_split.cuh"
#include "handwritten/rows/rows_cols_cluster.cuh"
#include "handwritten/rows/rows_cols_coalesced.cuh"
#include "handwritten/rows/rows_cols_vec16.cuh"
#include "handwritten/rows/rows_subwarp.cuh"

namespace kl::rows_auto {

enum class Path { columns, columns_vec16, columns_cluster, split, deep, subwarp };

constexpr std::size_t kFillWarpsPerSM = 16;  // a quarter of an SM's 64 warp slots

template <class T>
Path path_for(RowsShape s) {
  if (is_column_op(s.op)) {
    if (rows_cols_cluster::pays<T>(s)) return Path::columns_cluster;
    return rows_cols_vec16::fills_gpu<T>(s) ? Path::columns_vec16 : Path::columns;
  }
  if (rows_block_split::split_for<T>(s.M, s.N).splits > 1) return Path::split;
  const std::size_t m = static_cast<std::size_t>(s.M), n = static_cast<std::size_t>(s.N);
  const bool long_rows = n >= rows_block_deep::min_row<T>();
  const bool few_rows = m < std::size_t{sm_count()} * kFillWarpsPerSM && n >= rows_block_split::kThreads;
  return long_rows || few_rows ? Path::deep : Path::subwarp;
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_auto", "beyond the documents",
               "by shape: rows_cols_cluster (9.0+), rows_cols_vec16 or rows_cols_coalesced (col_mean), rows_block_split (few long rows, split), rows_block_deep (long rows, or too few rows for a warp each), rows_subwarp (otherwise)"},
      .launch = [](const RowsArgs<T>& a, cudaStream_t s) {
        switch (path_for<T>({a.M, a.N, a.pitch, a.op})) {
          case Path::columns: return rows_cols_coalesced::launch<T>(a, s);
          case Path::columns_vec16: return rows_cols_vec16::launch<T>(a, s);
          case Path::columns_cluster: return rows_cols_cluster::launch<T>(a, s);
          case Path::split: return rows_block_split::launch<T>(a, s);
          case Path::deep: return rows_block_deep::launch<T>(a, s);
          case Path::subwarp: return rows_subwarp::launch<T>(a, s);
        }
      },
      .workspace_bytes = [](RowsShape s) -> std::size_t {
        switch (path_for<T>(s)) {
          case Path::columns: return rows_cols_coalesced::partial_count(s) * sizeof(T);
          case Path::columns_vec16: return rows_cols_vec16::workspace_bytes<T>(s);
          case Path::columns_cluster: return 0;
          case Path::split: return rows_block_split::workspace_bytes<T>(s);
          case Path::deep: return 0;
          case Path::subwarp: return 0;
        }
        return 0;
      },
      .rounding_depth = [](RowsShape s) {
        switch (path_for<T>(s)) {
          case Path::columns: return rows_cols_coalesced::depth(s);
          case Path::columns_vec16: return rows_cols_vec16::depth<T>(s);
          case Path::columns_cluster: return rows_cols_cluster::depth<T>(s);
          case Path::split: return rows_block_split::depth<T>(s);
          case Path::deep: return rows_block_deep::depth<T>(s);
          case Path::subwarp: return rows_subwarp::depth<T>(s);
        }
        return 0.0;
      },
      .prepare = rows_cols_cluster::prepare<T>,  // the cluster path's device queries and opt-ins, once
  };
}

}  // namespace kl::rows_auto
