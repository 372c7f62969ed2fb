// gemm_smem1_transposed — document 001 (lecture 6, variant «SMEM-1»), kernel `kernel_smem_1`,
// BLOCK_SIZE = 32, threads (32, 32).
//
// Lesson: shared-memory tiling done with the tiles stored transposed, `as[tx][ty]`, which puts
// the 32 threads of a warp (consecutive tx, one ty) 32 words apart: with 32 banks of 4 bytes
// all of them hit the same bank. The stores `as[tx][ty] = …`, `bs[tx][ty] = …` and the read
// `bs[tx][k]` are 32-way bank conflicts (serialised into 32 wavefronts); only `as[k][ty]`, one
// address per warp, is a broadcast. For double the word pairs of a column also share a bank
// pair, so it is just as bad (32 wavefronts where 2 would do). The doc measures it slower than
// the global-memory kernel (K40c: 150 vs 134 ms float, 476 vs 220 ms double): that is the
// lesson, so the conflicts are kept on purpose. SMEM-2 pads, SMEM-3 un-transposes.
//
// Checked against the document: `as[tx][ty] = a[ia + n·ty + tx]` stores A'[ty][tx] at
// as[tx][ty], i.e. as = A'ᵀ, and likewise bs = B'ᵀ. Then as[k][ty] = A'[ty][k] and
// bs[tx][k] = B'[k][tx], so `sum += as[k][ty] * bs[tx][k]` is Σ_k A'[ty][k]·B'[k][tx]: the
// document's SMEM-1 already computes C = A·B, and the indexing below is the document's own.
// Changed: square n × n (a multiple of 32) generalised to A M × K, B K × N, C M × N (ia/ib as
// the k-tile origin t, see gemm_smem_16x16); zero-filled edge tiles, guarded store, 64-bit
// offsets.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_smem1 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 32;

template <class T>
__global__ void __launch_bounds__(kBlock * kBlock)
    kernel_smem_1(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                  int N, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = kBlock * blockIdx.y + ty;
  const int col = kBlock * blockIdx.x + tx;
  __shared__ T as[kBlock][kBlock];
  __shared__ T bs[kBlock][kBlock];
  T sum = T(0);
  for (int t = 0; t < K; t += kBlock) {
    // Transposed stores: a warp writes one column of as/bs, 32 words apart (same bank).
    as[tx][ty] = load_or_zero(a, M, K, row, t + tx);  // as[tx][ty] = A'[ty][tx]
    bs[tx][ty] = load_or_zero(b, K, N, t + ty, col);  // bs[tx][ty] = B'[ty][tx]
    __syncthreads();
    // as[k][ty]: one address per warp (broadcast); bs[tx][k]: a column, 32-way conflict.
    for (int k = 0; k < kBlock; k++) sum += as[k][ty] * bs[tx][k];
    __syncthreads();
  }
  store_if_inside(c, M, N, row, col, sum);
}

template <class T>
GemmVariant<T> variant() {
  return gemm_detail::tiled_variant<T, kBlock, kBlock, kBlock, kBlock, kernel_smem_1<T>>(
      {"gemm_smem1_transposed", "001: kernel_smem_1 (SMEM-1, as[tx][ty])",
       "tiles stored transposed: column accesses are 32-way bank conflicts, slower than global"});
}

}  // namespace kl::gemm_smem1
