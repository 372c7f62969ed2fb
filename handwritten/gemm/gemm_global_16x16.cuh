// gemm_global_16x16 — document 000 (lab 3, "Пример: умножение двух матриц"), kernel `matMult`
// without shared memory, 16 × 16 blocks.
//
// Lesson: one thread per element of C, reading its row of A and its column of B straight from
// global memory: 2·K loads for 2·K flops, so the kernel is memory-bound. Across a warp (16
// consecutive tx, two ty) the B loads are coalesced, but each A load is one address per
// half-warp, re-read by every column of C. The doc's table 3.1 (2484 ms) is this kernel; the
// shared-memory version (gemm_smem_16x16) is its fix.
//
// Changed from the document: the listing misses a `;` after `blockIdx.x` and assumes square
// n × n matrices with n a multiple of 16; here A is M × K, B is K × N, C is M × N (the `n` of
// `ia = n·row`, `k < n` becomes K, the `n` of `b[ib + k·n]` and of `c[ic + n·ty]` becomes N),
// threads outside C return at once (there is no __syncthreads to keep them for), and offsets
// are 64-bit.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_global16 {

constexpr int kBlock = 16;

template <class T>
__global__ void matMult(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                        int M, int N, int K) {
  const int row = kBlock * blockIdx.y + threadIdx.y;  // document: ia = n·(BLOCK_SIZE·by + ty)
  const int col = kBlock * blockIdx.x + threadIdx.x;  // document: ib = BLOCK_SIZE·bx + tx
  if (row >= M || col >= N) return;
  const T* a_row = a + static_cast<std::size_t>(row) * K;  // a[i][0]
  const T* b_col = b + col;                                // b[0][j]
  T sum = T(0);
  for (int k = 0; k < K; k++) sum += a_row[k] * b_col[static_cast<std::size_t>(k) * N];
  c[static_cast<std::size_t>(row) * N + col] = sum;
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kBlock, matMult<T>>(
      {"gemm_global_16x16", "000: matMult (global memory, 16x16 blocks)",
       "naive product from global memory: 2K loads per 2K flops, memory-bound"});
}

}  // namespace kl::gemm_global16
