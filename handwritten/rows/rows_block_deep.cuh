// rows_block_deep — beyond the documents: rows_block_split's block per row with twice the loads
// in flight per thread, and the block sized to the row.
//
// Lesson: a stream at DRAM's rate needs enough bytes in flight (Little's law: bandwidth ×
// latency, ~3 MB on the H100), and a block per row also pays, once per row, a start and a shuffle
// tree during which it has no loads in flight. rows_block_split keeps 2 × 16 bytes per thread in
// flight (reduce7's depth); here every thread issues 4 16-byte loads before it adds any (64
// bytes, the depth of CUB's reduction policies), and the block is as large as the row keeps busy:
// 512 threads when a row is at least two rounds of 512 × 4 vectors (16384 floats, 8192 doubles),
// 256 when it is two rounds of 256 × 4, else 128. Long rows get more bytes per block and fewer
// block starts and trees per byte; short rows get small blocks, so that no thread waits idle in
// the tree while the others load.
// Measured (H100, float 16384²): ahead of rows_block_split and CUB (docs/rows-and-dot.md, "The
// rows ladder (`compare -f rows`)").
//
// The fold of 4 vectors keeps 16 float accumulators. A first trial ran much *slower* than
// rows_block_split (the same section says why): nvcc had left the accumulators' pairwise tree
// as a loop and put them in local memory (reduce_common.cuh's thread_fold_vectorized now
// unrolls it with constant indices).
// A row is one block's (no split): rows too few to fill the GPU go to rows_block_split's split.
#pragma once

#include "handwritten/rows/rows_block_split.cuh"

namespace kl::rows_block_deep {

constexpr unsigned kUnroll = 4;        // 16-byte loads in flight per thread
constexpr unsigned kMinThreads = 128;  // the smallest block

// The shortest row that fills one round of the smallest block's loads (rows_auto's threshold).
template <class T>
constexpr std::size_t min_row() { return std::size_t{kMinThreads} * kUnroll * kVec<T>; }

// Threads per block for rows of n elements: the largest of 512, 256 whose rounds of threads ×
// kUnroll vectors fit a row at least twice, else kMinThreads.
template <class T>
unsigned threads_for(int n) {
  const std::size_t vectors = static_cast<std::size_t>(n) / kVec<T>;
  for (unsigned t : {512u, 256u})
    if (vectors >= 2u * t * kUnroll) return t;
  return kMinThreads;
}

template <class F>
decltype(auto) with_threads(unsigned threads, F&& f) {
  switch (threads) {
    case 512: return f(std::integral_constant<unsigned, 512>{});
    case 256: return f(std::integral_constant<unsigned, 256>{});
    default: return f(std::integral_constant<unsigned, kMinThreads>{});
  }
}

template <class T>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  with_threads(threads_for<T>(a.N), [&](auto threads) {
    constexpr unsigned kThreads = decltype(threads)::value;
    rows_detail::with_op<T>(a.op, [&](auto op) {
      using Op = decltype(op);
      rows_block_split::rows_chunk<T, Op, kThreads, kUnroll><<<grid_blocks(static_cast<std::size_t>(a.M)), kThreads, 0, s>>>(
          a.A, a.N, a.pitch, 1, static_cast<std::size_t>(a.N), a.out, nullptr);
      KL_CHECK_LAUNCH();
    });
  });
}

// The threads' fold over a row (4 vectors per round), then the block's shuffle tree.
template <class T>
double depth(RowsShape s) {
  using namespace reduce_detail;
  return with_threads(threads_for<T>(s.N), [&](auto threads) {
    constexpr unsigned kThreads = decltype(threads)::value;
    return fold_depth<T, kUnroll>(static_cast<std::size_t>(s.N), kThreads) + block_sum_shuffle_levels<kThreads>();
  });
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_block_deep", "beyond the documents",
               "a block per row, 4 16-byte loads in flight per thread, 128-512 threads by row length"},
      .launch = launch<T>,
      .rounding_depth = depth<T>,
      .unsupported = rows_detail::row_ops_only,
  };
}

}  // namespace kl::rows_block_deep
