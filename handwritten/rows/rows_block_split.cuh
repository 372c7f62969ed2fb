// rows_block_split — beyond the documents: a block per row, and a row split over several blocks
// when there are too few rows to fill the GPU.
//
// Lesson: per-row parallelism runs out when the matrix is wide and short. 1 × 2^24 is one row:
// any kernel that gives a row to one thread, one warp or one block (CUB's segmented reduce
// included) runs it on one SM at a time. Here each row is cut into `splits` chunks, enough for
// about two waves of 256-thread blocks in all (at least 8192 elements per chunk, so a thread still
// has a few rounds of vector loads); block b folds chunk b % splits of row b / splits with the
// vectorised fold (peeled 16-byte loads, as rows_warp_peel) and a block shuffle tree, and a second
// kernel folds each row's partials in index order, a warp per row (rows_common.cuh:
// combine_parts). No atomics, so the result is the same from run to run. With enough rows
// (splits = 1) it is a block per row, CUB's mapping, in one kernel.
// The profiler should show, at 1 × 2^24, thousands of blocks instead of one, and DRAM throughput
// near the copy bandwidth.
#pragma once

#include "handwritten/rows/rows_common.cuh"

#include <algorithm>

namespace kl::rows_block_split {

constexpr unsigned kThreads = 256;
constexpr unsigned kUnroll = 2;
constexpr std::size_t kMinChunkRounds = 4;  // vector rounds per thread, at least, in a chunk

struct Split {
  std::size_t splits;  // blocks per row
  std::size_t chunk;   // elements per block (a multiple of the vector width)
};

// The fewest elements worth a block: every thread does kMinChunkRounds rounds of vector loads.
template <class T>
constexpr std::size_t min_chunk() { return std::size_t{kThreads} * kUnroll * kVec<T> * kMinChunkRounds; }

template <class T>
Split split_for(int M, int N) {
  const std::size_t m = static_cast<std::size_t>(M), n = static_cast<std::size_t>(N);
  const std::size_t target = rows_detail::split_target_blocks();
  const std::size_t min_chunk = rows_block_split::min_chunk<T>();
  std::size_t splits = m >= target ? 1 : ceil_div(target, m);
  splits = std::min(splits, std::max<std::size_t>(1, ceil_div(n, min_chunk)));
  const std::size_t chunk = ceil_div(ceil_div(n, splits), std::size_t{kVec<T>}) * kVec<T>;
  return {ceil_div(n, chunk), chunk};  // no empty chunk
}

// The block's fold of one chunk; rows_block_deep runs the same kernel with other block sizes and
// loads in flight.
template <class T, class Op, unsigned THREADS, unsigned UNROLL>
__global__ void __launch_bounds__(THREADS)
    rows_chunk(const T* __restrict__ A, int N, std::size_t pitch, std::size_t splits, std::size_t chunk,
               T* __restrict__ out, T* __restrict__ partials) {
  using namespace rows_detail;
  const std::size_t b = blockIdx.x, row = b / splits, part = b % splits;
  const std::size_t begin = part * chunk;
  const std::size_t left = static_cast<std::size_t>(N) - begin;  // > 0: no chunk is empty
  const std::size_t len = left < chunk ? left : chunk;
  T v = thread_fold_vectorized<UNROLL, Op>(Elements<T>{A + row * pitch + begin}, len, threadIdx.x, THREADS);
  v = block_fold_shuffle<THREADS, Op>(v);
  if (threadIdx.x != 0) return;
  if (splits == 1) out[row] = finish<Op>(v, N);
  else partials[b] = v;
}

template <class T>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  const Split sp = split_for<T>(a.M, a.N);
  T* partials = static_cast<T*>(a.workspace);
  rows_detail::with_op<T>(a.op, [&](auto op) {
    using Op = decltype(op);
    rows_chunk<T, Op, kThreads, kUnroll><<<grid_blocks(static_cast<std::size_t>(a.M) * sp.splits), kThreads, 0, s>>>(
        a.A, a.N, a.pitch, sp.splits, sp.chunk, a.out, partials);
    KL_CHECK_LAUNCH();
    if (sp.splits > 1)
      rows_detail::launch_combine_parts<T, Op>(partials, static_cast<std::size_t>(a.M), static_cast<unsigned>(sp.splits),
                                               a.N, a.out, s);
  });
}

template <class T>
std::size_t workspace_bytes(RowsShape s) {
  const Split sp = split_for<T>(s.M, s.N);
  return sp.splits > 1 ? static_cast<std::size_t>(s.M) * sp.splits * sizeof(T) : 0;
}

// The threads' fold over a chunk, the block's shuffle trees, then (split rows) the warp per row
// over the partials.
template <class T>
double depth(RowsShape s) {
  using namespace reduce_detail;
  const Split sp = split_for<T>(s.M, s.N);
  double d = fold_depth<T, kUnroll>(sp.chunk, kThreads) + block_sum_shuffle_levels<kThreads>();
  if (sp.splits > 1) d += rows_detail::combine_parts_depth(sp.splits);
  return d;
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_block_split", "beyond the documents",
               "a block per row chunk (rows split over blocks when few), peeled 16-byte loads, partials folded in order"},
      .launch = launch<T>,
      .workspace_bytes = workspace_bytes<T>,
      .rounding_depth = depth<T>,
      .unsupported = rows_detail::row_ops_only,
  };
}

}  // namespace kl::rows_block_split
