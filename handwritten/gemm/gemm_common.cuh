// Shared pieces of the matrix-product ladder (gemm and A·Aᵀ): bounds-checked element access and
// the launch geometry. Every kernel of the documents assumes the sizes are multiples of its
// block (16 or 32); here any M, N, K >= 1 works, and these helpers are where that is said once:
//
//   * load_or_zero: a tile element outside the matrix is loaded as 0, so the inner
//     `for k < BLOCK_SIZE` loop of every tiled kernel stays exactly the document's loop (the
//     padding zeros add nothing to the sum);
//   * store_if_inside: threads of an edge block that fall outside C still load their share of
//     the tiles and take part in __syncthreads, and only their store is skipped;
//   * row * ld is computed in 64 bits (the documents' `int` offsets overflow past 2^31
//     elements, e.g. a 46341 × 46341 matrix);
//   * the grid is a ceil-div over the output, with its row count split into slabs where it would
//     pass the 65535 limit of gridDim.y.
//
// Indices stay `int` like the contract's sizes; a tile start plus a thread index stays below
// 2^31 as long as each dimension is at most 2^31 - 1 - 32; the k loops step the same way.
#pragma once

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/args/gemm_args.hpp"

#include <cstddef>
#include <initializer_list>
#include <stdexcept>

namespace kl::gemm_detail {

// p is a row-major rows × cols matrix (ld = cols). Returns p[row][col], or 0 outside it.
template <class T>
__device__ __forceinline__ T load_or_zero(const T* __restrict__ p, int rows, int cols, int row,
                                          int col) {
  return (row < rows && col < cols) ? p[static_cast<std::size_t>(row) * cols + col] : T(0);
}

// p is a row-major rows × cols matrix (ld = cols). Writes p[row][col] = v if it exists.
template <class T>
__device__ __forceinline__ void store_if_inside(T* __restrict__ p, int rows, int cols, int row,
                                                int col, T v) {
  if (row < rows && col < cols) p[static_cast<std::size_t>(row) * cols + col] = v;
}

// acc[i][j] += ra[i] · rb[j] for the TM × TN block of a register-blocked thread: one FMA chain
// per output, so every output keeps the single k-ordered chain the error bound assumes.
template <class T, int TM, int TN>
__device__ __forceinline__ void fma_outer(T (&acc)[TM][TN], const T (&ra)[TM], const T (&rb)[TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
}

constexpr int kMaxGridY = 65535;

// Launches a gemm kernel over C = A·B with one block per tile_rows × tile_cols tile of C: grid.x
// counts tile columns (limit 2^31 - 1, never reached for int N), grid.y tile rows. Past 65535
// tile rows the rows of A and C are cut into horizontal slabs, each its own launch of the
// unchanged kernel (rows of C depend only on the same rows of A, so a slab is a smaller gemm).
// `launch(grid, A_slab, C_slab, slab_rows)` enqueues one kernel; it is checked here. A's rows lie
// `lda` elements apart (0: K; gemm13's padded copy of A is wider).
template <class T, class Launch>
void launch_tiled(const GemmArgs<T>& g, int tile_rows, int tile_cols, Launch&& launch, std::size_t lda = 0) {
  const int max_slab_rows = kMaxGridY * tile_rows;
  for (int row0 = 0, left = g.M; left > 0;) {
    const int rows = left < max_slab_rows ? left : max_slab_rows;
    const dim3 grid(ceil_div(g.N, tile_cols), ceil_div(rows, tile_rows));
    launch(grid, g.A + static_cast<std::size_t>(row0) * (lda ? lda : std::size_t(g.K)),
           g.C + static_cast<std::size_t>(row0) * g.N, rows);
    KL_CHECK_LAUNCH();
    row0 += rows;  // row0 + left == M throughout: no int overflow near INT_MAX
    left -= rows;
  }
}

// A gemm variant whose kernel(A, B, C, M, N, K) computes one kTileRows × kTileCols tile of C per
// block of kThreadsX × kThreadsY threads (the documents' kernels and their direct descendants):
// the launcher is launch_tiled, nothing else.
template <class T, int kTileRows, int kTileCols, int kThreadsX, int kThreadsY,
          void (*Kernel)(const T*, const T*, T*, int, int, int)>
GemmVariant<T> tiled_variant(VariantInfo info) {
  return {.info = info, .launch = [](const GemmArgs<T>& g, cudaStream_t s) {
            launch_tiled(g, kTileRows, kTileCols, [&](dim3 grid, const T* A, T* C, int M) {
              Kernel<<<grid, dim3(kThreadsX, kThreadsY), 0, s>>>(A, g.B, C, M, g.N, g.K);
            });
          }};
}

// Past 48 KiB a kernel must opt in to dynamic shared memory: a host-side attribute, set in
// prepare() (once, never in the timed launch) for every kernel of a configuration (its 16-byte
// and its element-copy form).
template <class Kernel>
void allow_smem(std::size_t bytes, std::initializer_list<Kernel> kernels) {
  for (const Kernel kernel : kernels)
    KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

// What the cp.async steps (gemm9, gemm10, gemm12) and the DMMA step (gemm11) need of the GPU
// (common/variant.hpp, Requirements): compute capability 8.0 and `smem` bytes of dynamic shared
// memory per block, checked against the image of `kernel` that loaded.
template <class Kernel>
Requirements needs_sm80(std::string_view feature, std::size_t smem, Kernel kernel) {
  return {.compute_capability = 80, .feature = feature, .shared_bytes = smem,
          .kernel = reinterpret_cast<const void*>(kernel)};
}

// Grid for C = A·Aᵀ (M × M) with square tile × tile blocks. Both grid axes count tiles of M;
// gridDim.y caps M at 65535 · tile (>= 1 048 560), where C alone would take 4 TiB of floats, so
// no slab logic: a clear error instead of a bad launch.
inline dim3 aat_grid(int M, int tile) {
  const int tiles = ceil_div(M, tile);
  if (tiles > kMaxGridY) throw std::invalid_argument("aat: M too large for gridDim.y");
  return dim3(tiles, tiles);
}

}  // namespace kl::gemm_detail
