// gemm_global_32x32 — document 001 (lecture 6, variant «GLOBAL»), kernel `kernel_global`,
// BLOCK_SIZE = 32.
//
// Lesson: the baseline of the lecture's ladder (K40c, N = 2048: 134 ms float, 220 ms double).
// Same algorithm as 000's naive matMult, with 32 × 32 blocks: a warp is now one full row of 32
// threads, so its B loads are one 128-byte line (float) and its A load is a single broadcast
// address; still every element of A and B is re-read from global memory N resp. M times.
//
// Changed from the document: square n × n (N = 2048) generalised to A M × K, B K × N, C M × N
// (`ia = n·row` → K, `b[ib + k·n]` and `ic` → N); threads outside C return at once; 64-bit
// offsets.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_global32 {

constexpr int kBlock = 32;

template <class T>
__global__ void __launch_bounds__(kBlock * kBlock)
    kernel_global(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                  int N, int K) {
  const int row = kBlock * blockIdx.y + threadIdx.y;  // row of A' (document: ia = n·row)
  const int col = kBlock * blockIdx.x + threadIdx.x;  // column of B' (document: ib)
  if (row >= M || col >= N) return;
  const T* a_row = a + static_cast<std::size_t>(row) * K;
  const T* b_col = b + col;
  T sum = T(0);
  for (int k = 0; k < K; k++) sum += a_row[k] * b_col[static_cast<std::size_t>(k) * N];
  c[static_cast<std::size_t>(row) * N + col] = sum;  // document: c[ic], ic = ia + ib
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kBlock, kernel_global<T>>(
      {"gemm_global_32x32", "001: kernel_global (GLOBAL, 32x32 blocks)",
       "ladder baseline: every operand re-read from global memory, memory-bound"});
}

}  // namespace kl::gemm_global32
