// gemm_smem_16x16 — document 000 (lab 3, "Работа с разделяемой памятью: умножение матриц"),
// kernel `matMult` with shared-memory tiles, BLOCK_SIZE = 16.
//
// Lesson: tiling. C' (one block's 16 × 16 tile of C) is the sum over k-tiles of A'_i · B'_i.
// Each step every thread loads one element of A'_i and one of B'_i into shared memory
// (coalesced rows), __syncthreads, then 16 multiply-adds from shared memory, __syncthreads
// before the tiles are overwritten. Global loads per element of C drop from 2K to 2K/16; the
// doc measures 2484 → 133 ms (table 3.1). as[ty][k] is a broadcast and bs[k][tx] walks
// consecutive words, so no bank conflicts.
//
// Changed from the document: the listing's `int bBegin BLOCK_SIZE * bx;` and `bStep` miss their
// `=`; square n × n (n a multiple of 16) generalised to A M × K, B K × N, C M × N. The
// document's running offsets ia (+= 16) and ib (+= 16·n) become the k-tile origin t: its
// `a[ia + n·ty + tx]` is A[row][t + tx], `b[ib + n·ty + tx]` is B[t + ty][col]. Tile elements
// outside A or B load as 0 and the store is guarded (see gemm_common.cuh); 64-bit offsets.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_smem16 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 16;

template <class T>
__global__ void matMult(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                        int M, int N, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = kBlock * blockIdx.y + ty;
  const int col = kBlock * blockIdx.x + tx;
  __shared__ T as[kBlock][kBlock];  // the current tile A'_i
  __shared__ T bs[kBlock][kBlock];  // the current tile B'_i
  T sum = T(0);                     // this thread's element of C'
  for (int t = 0; t < K; t += kBlock) {
    // One element of each tile per thread; wait until both tiles are complete.
    as[ty][tx] = load_or_zero(a, M, K, row, t + tx);
    bs[ty][tx] = load_or_zero(b, K, N, t + ty, col);
    __syncthreads();
    for (int k = 0; k < kBlock; k++) sum += as[ty][k] * bs[k][tx];
    // Wait until no thread still needs these tiles before the next step overwrites them.
    __syncthreads();
  }
  store_if_inside(c, M, N, row, col, sum);
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kBlock, matMult<T>>(
      {"gemm_smem_16x16", "000: matMult (shared-memory tiles, 16x16)",
       "tiling through shared memory: global loads per output drop from 2K to 2K/16"});
}

}  // namespace kl::gemm_smem16
