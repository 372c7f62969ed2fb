// transpose1_naive — document 000 (lab 3, "Пример: транспонирование матрицы"), `transpose1`.
//
// Lesson: one thread per element, 16×16 blocks. Threads of a warp take consecutive columns j of
// one row of A, so the read A[i·N + j] is coalesced (a warp's 16-thread halves read 64
// consecutive bytes), but the write B[j·M + i] sends the same warp to 16 different rows of B, M
// elements apart: its 32 stores land in 16 sectors of 32 bytes (two adjacent elements of each of
// 16 rows of B), using 8 of every 32 bytes for float, 16 for double. The profiler shows global
// store sectors per request near 16 where a coalesced float store needs 4; DRAM write bytes stay
// near those of B only as far as L2 merges the partial sectors (the block's other warps fill the
// rest of each sector soon after) before evicting them: uncoalesced writes.
// docs/transpose-and-table.md puts the measured cost beside the tiled steps.
//
// Changed from the document: the document transposes a square N×N matrix, N a multiple of 16;
// here A is M×N (B = Aᵀ is N×M) with any M, N: the threads past the last row or column do
// nothing. Offsets are 64-bit (the document's unsigned int wraps at 2^32 elements). The grid
// takes at most 65535 tile rows; beyond that each block loops over tile rows
// (transpose_common.cuh). The document's signature lacks its opening parenthesis (a typo).
#pragma once

#include "handwritten/transpose/transpose_common.cuh"

namespace kl::transpose1 {

constexpr int kBlock = 16;

template <class T>
__global__ void __launch_bounds__(kBlock * kBlock)
    transpose1(const T* __restrict__ inData, T* __restrict__ outData, int M, int N) {
  const int xIndex = blockIdx.x * kBlock + threadIdx.x;  // column j of A: consecutive within a warp
  for (int yIndex = blockIdx.y * kBlock + threadIdx.y; yIndex < M; yIndex += gridDim.y * kBlock) {
    if (xIndex < N) {
      const std::size_t inIndex = xIndex + static_cast<std::size_t>(N) * yIndex;
      const std::size_t outIndex = yIndex + static_cast<std::size_t>(M) * xIndex;
      outData[outIndex] = inData[inIndex];
    }
  }
}

template <class T>
TransposeVariant<T> variant() {
  return {
      .info = {"transpose1_naive", "000: transpose1 (16x16 blocks)",
               "a thread per element: coalesced reads, writes M elements apart (uncoalesced)"},
      .launch = [](const TransposeArgs<T>& a, cudaStream_t s) {
        transpose_detail::launch_tiles(transpose1<T>, a, kBlock, dim3(kBlock, kBlock), s);
      },
  };
}

}  // namespace kl::transpose1
