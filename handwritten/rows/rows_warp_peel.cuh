// rows_warp_peel — beyond the documents: a warp per row, 16-byte loads for any layout.
//
// Lesson: rows_warp_vec loses its vector loads as soon as one row starts off a 16-byte boundary
// (packed odd N). But every row has a 16-byte-aligned body: only its first few elements (at most
// 3 floats or 1 double) come before the boundary, and its last few after the last whole vector.
// Peeling those off, one element per lane, leaves the body to 16-byte loads whatever N and pitch
// are: the per-row version of what reduce7 does for an unaligned array (the same
// thread_fold_vectorized, with the row as the array and the warp's lanes as the threads). The
// packed and pitched layouts should now run at the same speed, the lab's alignment penalty gone
// except for the sectors two rows share at their boundary.
// The profiler should show LDG.E.128 for the bodies and a few LDG.E per row.
//
// The kernel takes kGroup lanes per row (a power of two up to 32) so that rows_subwarp can give
// short rows fewer lanes; this step is kGroup = 32.
#pragma once

#include "handwritten/rows/rows_common.cuh"

namespace kl::rows_warp_peel {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarps = kThreads / 32;
constexpr unsigned kUnroll = 2;  // vectors per lane per round (reduce7's)

// Warp w of the grid takes rows w·(32 / kGroup) .. + 32 / kGroup, kGroup lanes each.
template <class T, class Op, unsigned kGroup>
__global__ void __launch_bounds__(kThreads)
    rows_group(const T* __restrict__ A, int M, int N, std::size_t pitch, T* __restrict__ out) {
  using namespace rows_detail;
  static_assert(kGroup >= 1 && kGroup <= 32 && (kGroup & (kGroup - 1)) == 0);
  constexpr unsigned kRowsPerWarp = 32 / kGroup;
  const std::size_t warp = static_cast<std::size_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (warp * kRowsPerWarp >= static_cast<std::size_t>(M)) return;  // whole warps only
  const unsigned lane = threadIdx.x % 32;
  const std::size_t row = warp * kRowsPerWarp + lane / kGroup;
  const bool valid = row < static_cast<std::size_t>(M);  // the last warp's spare groups fold nothing
  const T* a = A + (valid ? row : 0) * pitch;
  T v = thread_fold_vectorized<kUnroll, Op>(Elements<T>{a}, valid ? static_cast<std::size_t>(N) : 0, lane % kGroup,
                                            kGroup);
  v = warp_fold_shuffle<Op>(v, kGroup);  // every lane takes part: segments of kGroup lanes
  if (valid && lane % kGroup == 0) out[row] = finish<Op>(v, N);
}

template <class T, unsigned kGroup>
void launch_group(const RowsArgs<T>& a, cudaStream_t s) {
  constexpr std::size_t rows_per_block = kWarps * (32 / kGroup);
  rows_detail::with_op<T>(a.op, [&](auto op) {
    rows_group<T, decltype(op), kGroup><<<grid_blocks(ceil_div(static_cast<std::size_t>(a.M), rows_per_block)), kThreads,
                                           0, s>>>(a.A, a.M, a.N, a.pitch, a.out);
    KL_CHECK_LAUNCH();
  });
}

// The lanes' fold over N elements with `group` lanes, then the shuffle tree over the group.
template <class T>
double group_depth(int N, unsigned group) {
  return reduce_detail::fold_depth<T, kUnroll>(static_cast<std::size_t>(N), group) + reduce_launch::log2_exact(group);
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_warp_peel", "beyond the documents",
               "a warp per row; each row's unaligned head and tail peeled off, so its body is read in 16-byte loads in any layout"},
      .launch = launch_group<T, 32>,
      .rounding_depth = [](RowsShape s) { return group_depth<T>(s.N, 32); },
      .unsupported = rows_detail::row_ops_only,
  };
}

}  // namespace kl::rows_warp_peel
