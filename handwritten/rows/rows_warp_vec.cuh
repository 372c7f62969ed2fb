// rows_warp_vec — beyond the documents: a warp per row, 16-byte loads where the layout allows.
//
// Lesson: give each row a whole warp instead of one thread. The 32 lanes read consecutive
// 16-byte vectors of the row (512 contiguous bytes per warp-wide load: every sector fully used,
// no shared memory, no barrier), two vectors per lane per round into independent accumulators,
// then a shuffle tree folds the 32 lane results. Rows are independent, so there is no second
// pass and a 16384-row matrix gives the GPU 16384 warps.
// The vector loads need every row to start on a 16-byte boundary: the pitched layout (rows
// padded to 16 bytes, as cudaMallocPitch does), or a packed one whose N·sizeof(T) is a multiple
// of 16. With a packed odd N the launcher falls back to element loads (4 or 8 bytes per lane per
// load: four times the load instructions for float and half the bytes in flight) — the aligned
// versus unaligned difference of the lab, measured on a kernel whose only change is the load
// width. rows_warp_peel removes the condition.
// Short rows waste the warp: N = 7 leaves 25 of 32 lanes idle (rows_subwarp).
// The profiler should show LDG.E.128 on pitched layouts, LDG.E on packed odd-N ones, and DRAM
// throughput near the copy bandwidth for long rows.
#pragma once

#include "handwritten/rows/rows_common.cuh"

namespace kl::rows_warp_vec {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarps = kThreads / 32;
constexpr unsigned kUnroll = 2;  // vectors per lane per round (reduce7's)

// `vectors`: every row is 16-byte aligned (the launcher checks the layout); else element loads.
template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    rows_warp(const T* __restrict__ A, int M, int N, std::size_t pitch, T* __restrict__ out, bool vectors) {
  using namespace rows_detail;
  const int row = static_cast<int>(blockIdx.x * kWarps + threadIdx.x / 32);
  if (row >= M) return;  // whole warps: the shuffles below see all 32 lanes
  const unsigned lane = threadIdx.x % 32;
  const T* a = A + static_cast<std::size_t>(row) * pitch;
  T v = thread_fold_vectorized<kUnroll, Op>(Elements<T>{a, vectors}, static_cast<std::size_t>(N), lane, 32);
  v = warp_fold_shuffle<Op>(v);
  if (lane == 0) out[row] = finish<Op>(v, N);
}

template <class T>
RowsVariant<T> variant() {
  using namespace rows_detail;
  return {
      .info = {"rows_warp_vec", "beyond the documents",
               "a warp per row, 16-byte loads when every row is 16-byte aligned (pitched), element loads otherwise"},
      .launch = [](const RowsArgs<T>& a, cudaStream_t s) {
        const bool vectors = layout_aligned(a.A, a.pitch);
        with_op<T>(a.op, [&](auto op) {
          rows_warp<T, decltype(op)><<<grid_blocks(ceil_div(a.M, kWarps)), kThreads, 0, s>>>(a.A, a.M, a.N, a.pitch,
                                                                                               a.out, vectors);
          KL_CHECK_LAUNCH();
        });
      },
      // The lanes' fold (vector or element path alike) and the warp's shuffle tree.
      .rounding_depth = [](RowsShape s) { return fold_depth<T, kUnroll>(static_cast<std::size_t>(s.N), 32) + 5; },
      .unsupported = row_ops_only,
  };
}

}  // namespace kl::rows_warp_vec
