// rows_subwarp — beyond the documents: several rows per warp for short rows.
//
// Lesson: a warp per row wastes lanes when rows are short (N = 7: 25 of 32 lanes idle, and one
// 28-byte row per warp-wide load) and gives the GPU one warp of work per row. Here the group of
// lanes per row is sized to the row: the smallest power of two G such that G lanes have at least
// one round of vectors each (G = 1 for N = 1..8 floats, 32 from N = 129 on), 32 / G rows per
// warp, the shuffle tree over G lanes only (__shfl_down_sync's width). At N = 7 a warp covers 32
// consecutive rows, 896 contiguous bytes; at N = 1 its 32 lanes read 32 consecutive elements —
// the coalesced pattern of a plain copy. Long rows are rows_warp_peel's kernel unchanged.
// The profiler should show, at 100003 × 7 and 2^24 × 1, far fewer warps than rows and DRAM
// throughput near the copy bandwidth instead of the per-row overhead dominating.
#pragma once

#include "handwritten/rows/rows_warp_peel.cuh"

namespace kl::rows_subwarp {

using rows_warp_peel::kUnroll;

// Lanes per row for rows of N elements: one round of kUnroll vectors per lane, at most a warp.
template <class T>
unsigned group_for(int N) {
  const std::size_t lanes = ceil_div(static_cast<std::size_t>(N), std::size_t{kUnroll} * kVec<T>);
  unsigned g = 1;
  while (g < 32 && g < lanes) g <<= 1;
  return g;
}

template <class T>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  using rows_warp_peel::launch_group;
  with_pow2_width(group_for<T>(a.N), [&](auto G) { launch_group<T, G>(a, s); });
}

template <class T>
double depth(RowsShape s) {
  return rows_warp_peel::group_depth<T>(s.N, group_for<T>(s.N));
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_subwarp", "beyond the documents",
               "lanes per row sized to the row (1..32, several rows per warp when short), peeled 16-byte loads"},
      .launch = launch<T>,
      .rounding_depth = depth<T>,
      .unsupported = rows_detail::row_ops_only,
  };
}

}  // namespace kl::rows_subwarp
