// rows_shared — document 000, lab variants 2-6, the function "with shared memory", without the
// alignment of table 3.2 (a 32 × 32 tile, unpadded).
//
// Lesson: stage the matrix through shared memory so that global reads are coalesced. A block of
// 32 × 8 threads owns 32 rows; it walks across them one 32 × 32 tile at a time: every warp reads
// 32 consecutive elements of one row (coalesced, as in the document's tiled products), stores
// them as tile[r][tx], and after a barrier the 32 threads of the first warp each fold one row of
// the tile, tile[tx][k] for k = 0..31. That read goes down a column of the tile: 32 threads, 32
// words apart, all in the same bank — a 32-way conflict, the very pattern of document 000's
// A·Aᵀ (table 3.2: 551 ms against 120 ms with the padded tile). rows_shared_padded adds the one
// element per tile row that removes it. (Double: a warp's 8-byte reads are served a half-warp at
// a time; the 16 threads of a half fall on one pair of banks, 16-way, and the padding spreads them
// over 16 pairs.)
// The column mean folds tile[k][tx], along a row of the tile: conflict-free with or without the
// padding, which is why padding helps one direction only.
// The profiler should show l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld ≈ 31 per shared
// load instruction of the row fold, and none in rows_shared_padded.
//
// Written from the lab's text and the document's tiled kernels (no listing for these): edge tiles
// are filled with the operation's identity (0, or ∓inf for max/min) so any M, N and pitch work;
// 64-bit offsets; the operation a functor; kPad is the template parameter rows_shared_padded sets.
#pragma once

#include "handwritten/rows/rows_common.cuh"

namespace kl::rows_shared {

constexpr int kTile = 32;  // a warp's width: one row of the tile per warp-wide load
constexpr int kRowsPerStep = 8;
constexpr unsigned kThreads = kTile * kRowsPerStep;

// Loads the tile at (r0, c0) (term of each element, identity outside the matrix).
template <class T, class Op, int kPad>
__device__ __forceinline__ void load_tile(T (&tile)[kTile][kTile + kPad], const T* __restrict__ A, int M, int N,
                                          std::size_t pitch, int r0, int c0) {
  const int tx = threadIdx.x, col = c0 + tx;
  for (int r = threadIdx.y; r < kTile; r += kRowsPerStep) {
    const int row = r0 + r;
    tile[r][tx] = row < M && col < N ? Op::term(A[static_cast<std::size_t>(row) * pitch + col]) : Op::identity();
  }
}

// Rows blockIdx.x·32 .. + 32: the first warp's thread tx folds row tx across all column tiles.
template <class T, class Op, int kPad>
__global__ void __launch_bounds__(kThreads)
    row_reduce_shared(const T* __restrict__ A, int M, int N, std::size_t pitch, T* __restrict__ out) {
  __shared__ T tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, r0 = static_cast<int>(blockIdx.x) * kTile;
  T acc = Op::identity();
  for (int c0 = 0; c0 < N; c0 += kTile) {
    load_tile<T, Op, kPad>(tile, A, M, N, pitch, r0, c0);
    __syncthreads();
    if (threadIdx.y == 0)
      for (int k = 0; k < kTile; ++k) acc = Op::combine(acc, tile[tx][k]);  // down a column of the tile
    __syncthreads();
  }
  if (threadIdx.y == 0 && r0 + tx < M) out[r0 + tx] = rows_detail::finish<Op>(acc, N);
}

// Columns blockIdx.x·32 .. + 32: the first warp's thread tx folds column tx down all row tiles.
template <class T, class Op, int kPad>
__global__ void __launch_bounds__(kThreads)
    col_reduce_shared(const T* __restrict__ A, int M, int N, std::size_t pitch, T* __restrict__ out) {
  __shared__ T tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, c0 = static_cast<int>(blockIdx.x) * kTile;
  T acc = Op::identity();
  for (int r0 = 0; r0 < M; r0 += kTile) {
    load_tile<T, Op, kPad>(tile, A, M, N, pitch, r0, c0);
    __syncthreads();
    if (threadIdx.y == 0)
      for (int k = 0; k < kTile; ++k) acc = Op::combine(acc, tile[k][tx]);  // along a row of the tile
    __syncthreads();
  }
  if (threadIdx.y == 0 && c0 + tx < N) out[c0 + tx] = rows_detail::finish<Op>(acc, M);
}

template <class T, int kPad>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  const dim3 block(kTile, kRowsPerStep);
  rows_detail::with_op<T>(a.op, [&](auto op) {
    using Op = decltype(op);
    if (is_column_op(a.op)) {
      col_reduce_shared<T, Op, kPad><<<grid_blocks(ceil_div(a.N, kTile)), block, 0, s>>>(a.A, a.M, a.N, a.pitch, a.out);
    } else {
      row_reduce_shared<T, Op, kPad><<<grid_blocks(ceil_div(a.M, kTile)), block, 0, s>>>(a.A, a.M, a.N, a.pitch, a.out);
    }
    KL_CHECK_LAUNCH();
  });
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_shared", "000 lab, variants 2-6: shared memory, tile[32][32]",
               "32x32 tiles loaded coalesced into shared memory; folding a tile row reads down a column: 32-way bank conflict"},
      .launch = launch<T, 0>,
      // One serial chain over the row (or column), tile after tile; identity-filled edges add exactly.
      .rounding_depth = rows_detail::serial_chain_depth,
      .unsupported = rows_detail::no_error_bound<T, rows_detail::serial_chain_depth>,  // sums over 2^23 floats or more
  };
}

}  // namespace kl::rows_shared
