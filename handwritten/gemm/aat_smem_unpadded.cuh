// aat_smem_unpadded — document 000 (lab 3, "Пример: умножение матрицы на транспонированную"),
// kernel `matMult(a, n, c)` with `ats[16][16]`.
//
// Lesson: C = A·Aᵀ needs no second input, but the tile of Aᵀ is read by columns. The block for
// C tile (by, bx) loads rows by·16.. of A into as and rows bx·16.. of A into ats, both
// row-wise (coalesced), and uses ats transposed: `sum += as[ty][k] * ats[tx][k]`. ats[tx][k]
// with tx = 0..15 is a column, 16 words apart: on the document's GPU (16 banks, half-warps)
// all 16 threads hit one bank, a 16-way conflict; on current GPUs (32 banks, a warp is 16 tx
// × 2 ty that read the same addresses) the 16 addresses fall in 2 banks, an 8-way conflict.
// Doc table 3.2: 551 ms here, 120 ms with the padded ats (aat_smem_padded).
//
// Changed from the document: the listing misses the `=` in `int bx blockIdx.x;` and friends;
// square n × n (a multiple of 16) generalised to A M × K (C is M × M): the running offsets
// ia/iat become the k-tile origin t, `a[ia + n·ty + tx]` is A[row0 + ty][t + tx] and
// `a[iat + n·ty + tx]` is A[col0 + ty][t + tx]; edge tiles are zero-filled, the store guarded
// (every element of C, both triangles, is computed, as in the document); 64-bit offsets.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::aat_unpadded {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 16;

template <class T>
__global__ void matMult(const T* __restrict__ a, T* __restrict__ c, int M, int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = kBlock * blockIdx.y;  // rows of A (and of C) for as
  const int col0 = kBlock * blockIdx.x;  // rows of A (= columns of Aᵀ and of C) for ats
  __shared__ T as[kBlock][kBlock];
  __shared__ T ats[kBlock][kBlock];
  T sum = T(0);
  for (int t = 0; t < K; t += kBlock) {
    as[ty][tx] = load_or_zero(a, M, K, row0 + ty, t + tx);
    ats[ty][tx] = load_or_zero(a, M, K, col0 + ty, t + tx);  // stored row-wise, read by column
    __syncthreads();
    // ats[tx][k]: consecutive tx are 16 words apart, so they share banks (conflict).
    for (int k = 0; k < kBlock; k++) sum += as[ty][k] * ats[tx][k];
    __syncthreads();
  }
  store_if_inside(c, M, M, row0 + ty, col0 + tx, sum);
}

template <class T>
AatVariant<T> variant() {
  return {
      .info = {"aat_smem_unpadded", "000: matMult(a, n, c) A*A^T, ats[16][16]",
               "tile of A^T read by columns: threads of a warp collide in the same banks"},
      .launch = [](const AatArgs<T>& g, cudaStream_t s) {
        matMult<T><<<gemm_detail::aat_grid(g.M, kBlock), dim3(kBlock, kBlock), 0, s>>>(
            g.A, g.C, g.M, g.K);
        KL_CHECK_LAUNCH();
      },
  };
}

}  // namespace kl::aat_unpadded
