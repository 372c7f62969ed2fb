// rows_cols_coalesced — beyond the documents: the column mean (document 000's lab, variant 3,
// "of columns") with coalesced loads, split over rows for tall matrices.
//
// Lesson: a column reduction is naturally coalesced when threads run along the row (rows_global's
// column kernel already is); what it lacks is parallelism and bytes in flight. rows_global gives
// each column one thread walking all M rows: 16384 threads for a 16384² matrix, one for 2^24 × 1.
// Here a block of 32 × 8 threads takes 32 columns (each warp reads 128 or 256 contiguous bytes of
// a row) and a chunk of rows: the 8 rows of threads interleave over the chunk, each thread keeping
// 4 rows' loads in flight in 4 accumulators, and fold their 8 results per column through shared
// memory. The chunks are sized so the grid is about two waves of blocks whatever the shape (one
// chunk when there are enough column blocks; up to 1024 for 2^24 × 1), and a second kernel folds
// each column's chunk partials in index order, a warp per column (rows_common.cuh: combine_parts):
// deterministic, no atomics.
// The profiler should show 4 sectors per request (8 for double) and DRAM throughput near the copy
// bandwidth at 16384²; at 2^24 × 1 one lane in 32 is active, which a 4-byte-wide matrix cannot
// avoid without reading rows as vectors across columns.
#pragma once

#include "handwritten/rows/rows_common.cuh"

#include <algorithm>
#include <type_traits>

namespace kl::rows_cols_coalesced {

constexpr int kCols = 32;
constexpr int kRowThreads = 8;
constexpr unsigned kThreads = kCols * kRowThreads;
constexpr unsigned kUnroll = 4;            // rows in flight per thread
constexpr std::size_t kMaxChunks = 1024;   // bounds the second pass (32 partials per lane)
constexpr std::size_t kMinChunkRows = 256; // 32 rows per row-thread, 8 rounds of 4

struct Chunks {
  std::size_t count;  // row chunks
  std::size_t rows;   // rows per chunk
};

// W: columns per thread (1 here; kVec<T> in rows_cols_vec16, which reuses this kernel).
inline Chunks chunks_for(int M, int N, int W = 1) {
  const std::size_t m = static_cast<std::size_t>(M);
  const std::size_t col_blocks = ceil_div(static_cast<std::size_t>(N), std::size_t{kCols} * W);
  const std::size_t target = rows_detail::split_target_blocks();
  std::size_t count = col_blocks >= target ? 1 : ceil_div(target, col_blocks);
  count = std::max<std::size_t>(1, std::min({count, kMaxChunks, ceil_div(m, kMinChunkRows)}));
  const std::size_t rows = ceil_div(m, count);
  return {ceil_div(m, rows), rows};  // no empty chunk
}

// The block's share of the job: columns [blockIdx.x · kCols · W, + kCols · W) over rows [r0, r1),
// folded per column, then emit(c, folded) for each of those columns c (an index into the block's
// columns) inside the matrix, by one thread each, in the same order for every caller (the 8
// row-threads' results in order). `part` is the block's [kRowThreads][kCols · W] shared scratch;
// the block is kCols × kRowThreads threads. rows_cols_cluster's kernel calls it too.
// kVector: each thread takes kVec<T> adjacent columns as one 16-byte load per row (rows must
// start on 16-byte boundaries and N be a multiple of kVec<T>); otherwise one column.
template <class T, class Op, bool kVector, class Emit>
__device__ __forceinline__ void chunk_column_folds(const T* __restrict__ A, int N, std::size_t pitch, std::size_t r0,
                                                   std::size_t r1, T (&part)[kRowThreads][kCols * (kVector ? kVec<T> : 1)],
                                                   Emit&& emit) {
  using namespace rows_detail;
  constexpr int W = kVector ? kVec<T> : 1;
  using V = std::conditional_t<kVector, vec16_t<T>, T>;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = (static_cast<int>(blockIdx.x) * kCols + tx) * W;  // the thread's first column
  T acc[kUnroll][W];
#pragma unroll
  for (unsigned u = 0; u < kUnroll; ++u)
#pragma unroll
    for (int e = 0; e < W; ++e) acc[u][e] = Op::identity();
  auto add = [](T (&a)[W], const V& v) {
    const T* ev = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int e = 0; e < W; ++e) a[e] = Op::combine(a[e], Op::term(ev[e]));
  };
  if (col < N) {
    const T* a = A + col;
    auto load = [&](std::size_t r) { return *reinterpret_cast<const V*>(a + r * pitch); };
    std::size_t r = r0 + ty;
    for (; r + (kUnroll - 1) * kRowThreads < r1; r += kUnroll * kRowThreads) {
      V v[kUnroll];
#pragma unroll
      for (unsigned u = 0; u < kUnroll; ++u) v[u] = load(r + u * kRowThreads);
#pragma unroll
      for (unsigned u = 0; u < kUnroll; ++u) add(acc[u], v[u]);
    }
#pragma unroll
    for (unsigned u = 0; u + 1 < kUnroll; ++u)
      if (r + u * kRowThreads < r1) add(acc[u], load(r + u * kRowThreads));
  }
#pragma unroll
  for (unsigned half = kUnroll / 2; half > 0; half >>= 1)
#pragma unroll
    for (unsigned u = 0; u < half; ++u)
#pragma unroll
      for (int e = 0; e < W; ++e) acc[u][e] = Op::combine(acc[u][e], acc[u + half][e]);
  if constexpr (kVector) store_vec(&part[ty][tx * W], acc[0]);  // one 16-byte store: conflict-free
  else part[ty][tx] = acc[0][0];
  __syncthreads();
  // The 8 row-threads' results per column, in order; a row of part per pass, conflict-free.
  for (int c = ty * kCols + tx; c < kCols * W; c += kThreads) {
    if (static_cast<int>(blockIdx.x) * kCols * W + c >= N) continue;
    T s = part[0][c];
    for (int k = 1; k < kRowThreads; ++k) s = Op::combine(s, part[k][c]);
    emit(c, s);
  }
}

// Block (x, y): chunk y of column block x; the folded chunk goes to `out` (one chunk) or to the
// column's partials (partials[column · chunks + y]) for combine_parts.
template <class T, class Op, bool kVector = false>
__global__ void __launch_bounds__(kThreads)
    cols_chunk(const T* __restrict__ A, int M, int N, std::size_t pitch, std::size_t chunk_rows, T* __restrict__ out,
               T* __restrict__ partials) {
  constexpr int W = kVector ? kVec<T> : 1;
  __shared__ __align__(16) T part[kRowThreads][kCols * W];
  const std::size_t r0 = static_cast<std::size_t>(blockIdx.y) * chunk_rows;
  const std::size_t m = static_cast<std::size_t>(M);
  const std::size_t r1 = r0 + chunk_rows < m ? r0 + chunk_rows : m;
  chunk_column_folds<T, Op, kVector>(A, N, pitch, r0, r1, part, [&](int c, T s) {
    const int column = static_cast<int>(blockIdx.x) * kCols * W + c;
    if (gridDim.y == 1) out[column] = rows_detail::finish<Op>(s, M);
    else partials[static_cast<std::size_t>(column) * gridDim.y + blockIdx.y] = s;
  });
}

template <class T, bool kVector = false>
void launch_path(const RowsArgs<T>& a, cudaStream_t s) {
  constexpr int W = kVector ? kVec<T> : 1;
  const Chunks ch = chunks_for(a.M, a.N, W);
  T* partials = static_cast<T*>(a.workspace);
  rows_detail::with_op<T>(a.op, [&](auto op) {
    using Op = decltype(op);
    const dim3 grid(grid_blocks(ceil_div(a.N, kCols * W)), static_cast<unsigned>(ch.count));
    cols_chunk<T, Op, kVector><<<grid, dim3(kCols, kRowThreads), 0, s>>>(a.A, a.M, a.N, a.pitch, ch.rows, a.out, partials);
    KL_CHECK_LAUNCH();
    if (ch.count > 1)
      rows_detail::launch_combine_parts<T, Op>(partials, static_cast<std::size_t>(a.N), static_cast<unsigned>(ch.count),
                                               a.M, a.out, s);
  });
}

template <class T>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  launch_path<T, false>(a, s);
}

inline std::size_t partial_count(RowsShape s, int W = 1) {
  const Chunks ch = chunks_for(s.M, s.N, W);
  return ch.count > 1 ? static_cast<std::size_t>(s.N) * ch.count : 0;
}

// The depth of chunk_column_folds over a chunk of `rows` rows: per thread ceil(rows / (8·4)) rows
// into each of 4 accumulators, their pairwise fold (2), the serial fold of the 8 row-threads'
// results (7).
inline double chunk_fold_depth(std::size_t rows) {
  return static_cast<double>(ceil_div(rows, std::size_t{kRowThreads} * kUnroll)) + 2 + (kRowThreads - 1);
}

// One chunk's fold, then the warp per column over the chunks.
inline double depth(RowsShape s, int W = 1) {
  const Chunks ch = chunks_for(s.M, s.N, W);
  double d = chunk_fold_depth(ch.rows);
  if (ch.count > 1) d += rows_detail::combine_parts_depth(ch.count);
  return d;
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_cols_coalesced", "beyond the documents (000 lab variant 3: mean of columns)",
               "32 columns x a chunk of rows per block, 4 rows in flight per thread, chunk partials folded in order"},
      .launch = launch<T>,
      .workspace_bytes = [](RowsShape s) { return partial_count(s) * sizeof(T); },
      .rounding_depth = [](RowsShape s) { return depth(s); },
      .unsupported = rows_detail::column_ops_only,
  };
}

}  // namespace kl::rows_cols_coalesced
