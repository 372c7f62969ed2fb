// gemm_sdk_tiles_004 — document 004 ("Multiplicación de matrices usando memoria compartida"),
// kernel `Multiplica_Matrices_SM(C, A, B, nfil, ncol)`, after the CUDA SDK sample matrixMul.
//
// Lesson: the SDK-style tiled product on a non-square (nfil × ncol) matrix: the tile loop of
// 000's matMult (the SDK walks it with aBegin/aEnd/aStep, bBegin/bStep offsets), the shared
// tiles declared inside the loop, the accumulator kept in a register, and the inner product
// unrolled (`#pragma unroll`). The doc's figure walks it with BLOCK_SIZE = 4 on a
// 12 × 12 example; it names no production size, so this uses 16 (the SDK's classic
// BLOCK_SIZE, and 000's), which makes it the same algorithm as gemm_smem_16x16 written the SDK
// way (a cross-check of the two).
//
// Changed from the document: its listing uses `ncol` for every leading dimension and trip
// count (aEnd = aBegin + ncol - 1, bStep = BLOCK_SIZE·ncol, `B[b + ncol·ty + tx]`,
// `C[c + ncol·ty + tx]`), which is only right when B is square ncol × ncol, so C (nfil × ncol)
// = A (nfil × ncol) · B (ncol × ncol); `nfil` only sizes the grid. Generalised to
// A M × K · B K × N = C M × N: A's width and the loop bound are K, B's and C's width are N.
// The running offsets a/b become the k-tile origin t (the document's `A[a + ncol·ty + tx]` is
// A[row][t + tx], `B[b + ncol·ty + tx]` is B[t + ty][col]); edge tiles are zero-filled and the
// store guarded (see gemm_common.cuh); 64-bit offsets. The arguments keep the SDK order
// (C first).
#pragma once

#include "handwritten/gemm/gemm_common.cuh"

namespace kl::gemm_sdk004 {

using gemm_detail::load_or_zero;
using gemm_detail::store_if_inside;

constexpr int kBlock = 16;  // BLOCK_SIZE; each block must hold BLOCK_SIZE × BLOCK_SIZE threads

template <class T>
__global__ void Multiplica_Matrices_SM(T* __restrict__ C, const T* __restrict__ A,
                                       const T* __restrict__ B, int M, int N, int K) {
  const int bx = blockIdx.x, by = blockIdx.y;    // block indices
  const int tx = threadIdx.x, ty = threadIdx.y;  // thread indices
  const int row = kBlock * by + ty;              // this thread's element of C
  const int col = kBlock * bx + tx;
  // sum_sub accumulates the element of the block's sub-matrix of C that this thread computes
  // (the document stresses that it is private to the thread: a register).
  T sum_sub = T(0);
  // Loop over the sub-matrices of A (a row strip) and B (a column strip).
  for (int t = 0; t < K; t += kBlock) {
    __shared__ T As[kBlock][kBlock];
    __shared__ T Bs[kBlock][kBlock];
    // Each thread stores one element of each sub-matrix.
    As[ty][tx] = load_or_zero(A, M, K, row, t + tx);
    Bs[ty][tx] = load_or_zero(B, K, N, t + ty, col);
    __syncthreads();  // both sub-matrices are loaded
#pragma unroll
    for (int k = 0; k < kBlock; k++) sum_sub += As[ty][k] * Bs[k][tx];
    __syncthreads();  // done with them before the next ones are stored
  }
  store_if_inside(C, M, N, row, col, sum_sub);  // each thread writes one element
}

template <class T>
GemmVariant<T> variant() {
  return {
      .info = {"gemm_sdk_tiles_004", "004: Multiplica_Matrices_SM (SDK matrixMul tiles, 16x16)",
               "SDK-style shared-memory tiling for non-square matrices (nfil x ncol)"},
      .launch = [](const GemmArgs<T>& g, cudaStream_t s) {
        gemm_detail::launch_tiled(g, kBlock, kBlock, [&](dim3 grid, const T* A, T* C, int M) {
          Multiplica_Matrices_SM<T><<<grid, dim3(kBlock, kBlock), 0, s>>>(C, A, g.B, M, g.N, g.K);
        });
      },
  };
}

}  // namespace kl::gemm_sdk004
