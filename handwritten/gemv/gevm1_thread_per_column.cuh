// gevm1_thread_per_column — document 003, "by analogy" (its last line: optimise the vector ×
// matrix product the same way), the baseline: y = x·A, one thread per output, thread j walking
// column j of A down the rows.
//
// Lesson: the same mapping as gemv1, the opposite access pattern. At row i the 32 threads of a
// warp read A[i][j .. j + 31]: 128 consecutive bytes, fully coalesced (32 bytes used per 32-byte
// sector). x[i] is one address for the whole warp (a broadcast). So the profiler's global load
// efficiency is perfect where gemv1's was 1/8, and what is left is the lack of parallelism:
// N threads in all, each walking M rows with a few loads in flight (16384 columns: 128 blocks,
// 4 warps per SM against 64 possible).
//
// Changed from document 003 (which gives no gevm code): as gemv1, any M, N, 64-bit row
// offsets, a register accumulator written once.
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gevm1 {

template <class T>
__global__ void __launch_bounds__(matvec::kDocThreads)
    gevm_thread_per_column(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N) {
  const int j = blockIdx.x * matvec::kDocThreads + static_cast<int>(threadIdx.x);
  if (j >= N) return;
  T sum = T(0);
  for (int i = 0; i < M; ++i) sum += x[i] * A[static_cast<std::size_t>(i) * N + j];
  y[j] = sum;
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gevm1_thread_per_column", "003: by analogy (thread per column, x from global)",
                   "one thread per column: a warp reads 128 contiguous bytes of a row, coalesced"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gevm_thread_per_column<T><<<grid_blocks(ceil_div(a.N, matvec::kDocThreads)), matvec::kDocThreads, 0, s>>>(
                a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace kl::gevm1
