// gemv1_thread_per_row — document 003: the baseline it starts from (laboratory work 1's kernel,
// "each thread takes one row of the matrix and multiplies it element by element with the
// vector", Fig. 1), y = A·x.
//
// Lesson: the obvious mapping, one thread per output, and why it is slow on a GPU. Thread i
// walks row i of A, so at every step the 32 threads of a warp read 32 addresses N elements
// apart: 32 different 32-byte sectors for 128 useful bytes (4 bytes per sector; the profiler's
// global load efficiency, bytes per sector, is 4 for float instead of 32). The L1 cache keeps
// those sectors for the next 7 steps, so DRAM still moves each byte about once, but every load
// instruction costs 32 cache transactions, and there are only M threads in all (2500 rows: 20
// blocks of 128 for 132 SMs). The vector x is read by every thread at the same address
// (a broadcast, cached).
//
// Changed from document 003: any M, N (the row index is guarded); 64-bit row offsets (r·N
// passes 2^31 elements past 46341²); a register accumulator written once.
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gemv1 {

template <class T>
__global__ void __launch_bounds__(matvec::kDocThreads)
    gemv_thread_per_row(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N) {
  const int i = blockIdx.x * matvec::kDocThreads + static_cast<int>(threadIdx.x);
  if (i >= M) return;
  const T* a = A + static_cast<std::size_t>(i) * N;
  T sum = T(0);
  for (int j = 0; j < N; ++j) sum += a[j] * x[j];
  y[i] = sum;
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gemv1_thread_per_row", "003: lab 1 baseline (thread per row, x from global)",
                   "one thread per row: each warp reads 32 rows N apart, uncoalesced"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gemv_thread_per_row<T><<<grid_blocks(ceil_div(a.M, matvec::kDocThreads)), matvec::kDocThreads, 0, s>>>(
                a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace kl::gemv1
