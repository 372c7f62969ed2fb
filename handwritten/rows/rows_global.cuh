// rows_global — document 000, lab variants 2-6 (sum, mean, max, sum of squares, min of each row;
// mean of each column), the function "with global memory", as a student writes it.
//
// Lesson: one thread per row, walking its row element by element straight from global memory.
// At each step the 32 threads of a warp read 32 different rows: addresses `pitch` elements apart,
// 32 sectors per request, of which the warp uses 4 bytes each. Caches rescue part of it (the
// other 7 floats of each 32-byte sector are read by the same thread on its next steps, if the
// sector survives in L1 until then), but with long rows the working set of a warp, 32 rows, does
// not, and DRAM is read several times over. And parallelism is one thread per row: 1000 rows
// give the GPU 1000 threads, a single row (1 × 2^24) gives it one.
// The column mean is the opposite case: a thread per column walks down its column, the 32
// threads of a warp read 32 consecutive elements of one row, one coalesced 128-byte request: the
// same "student" code is already coalesced when the data runs the other way.
// The profiler should show, for the row kernel, sectors per request near 32 and DRAM bytes well
// above the matrix size; for the column kernel, 4 sectors per request.
//
// Written from the lab's text (the document has no listing for these): any M, N >= 1, any pitch
// (the row start is `row · pitch`, 64-bit), the operation a functor (rows_common.cuh).
#pragma once

#include "handwritten/rows/rows_common.cuh"

namespace kl::rows_global {

constexpr unsigned kThreads = 256;

template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    row_reduce_global(const T* __restrict__ A, int M, int N, std::size_t pitch, T* __restrict__ out) {
  const int row = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (row >= M) return;
  const T* a = A + static_cast<std::size_t>(row) * pitch;
  T acc = Op::identity();
  for (int j = 0; j < N; ++j) acc = Op::combine(acc, Op::term(a[j]));
  out[row] = rows_detail::finish<Op>(acc, N);
}

template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    col_reduce_global(const T* __restrict__ A, int M, int N, std::size_t pitch, T* __restrict__ out) {
  const int col = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (col >= N) return;
  const T* a = A + col;
  T acc = Op::identity();
  for (int i = 0; i < M; ++i) acc = Op::combine(acc, Op::term(a[static_cast<std::size_t>(i) * pitch]));
  out[col] = rows_detail::finish<Op>(acc, M);
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_global", "000 lab, variants 2-6: global memory",
               "a thread per row reading its row from global memory: a warp touches 32 rows per step (uncoalesced)"},
      .launch = [](const RowsArgs<T>& a, cudaStream_t s) {
        rows_detail::with_op<T>(a.op, [&](auto op) {
          using Op = decltype(op);
          if (is_column_op(a.op)) {
            col_reduce_global<T, Op><<<grid_blocks(ceil_div(a.N, kThreads)), kThreads, 0, s>>>(a.A, a.M, a.N, a.pitch, a.out);
          } else {
            row_reduce_global<T, Op><<<grid_blocks(ceil_div(a.M, kThreads)), kThreads, 0, s>>>(a.A, a.M, a.N, a.pitch, a.out);
          }
          KL_CHECK_LAUNCH();
        });
      },
      .rounding_depth = rows_detail::serial_chain_depth,
      // Sums over 2^23 floats or more (1 × 2^24 rows, 2^24 × 1 columns) have no bound.
      .unsupported = rows_detail::no_error_bound<T, rows_detail::serial_chain_depth>,
  };
}

}  // namespace kl::rows_global
