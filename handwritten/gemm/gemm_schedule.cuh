// Where a block of the last steps (gemm10, gemm11, the A·Aᵀ steps) works and where its results
// go, said once:
//
//   raster_tile      the block order: a 2-D grid of tiles walked in bands of kRasterRows tile
//                    rows, column by column within a band, so the blocks resident at one time
//                    share a few rows of A and a few columns of B in L2;
//   triangle_tile    the tiles (i, j), i <= j, of a symmetric product folded into a rectangle;
//   StagedTile       the epilogue: the block's accumulators go to shared memory first, then
//                    whole rows of the C tile go out with consecutive lanes on consecutive
//                    columns (one 128-byte line per warp store of floats, whatever N is), and
//                    for A·Aᵀ also whole columns, written as rows of the mirrored tile;
//   split-K          block z of a split product computes k in [z·k_split, (z+1)·k_split) into
//                    its own slice of the workspace; splitk_reduce adds the slices in order
//                    z = 0, 1, ... (deterministic: no atomics, the same sum every run).
#pragma once

#include "handwritten/gemm/gemm_common.cuh"
#include "handwritten/gemm/gemm_split_plan.hpp"
#include "common/pdl.cuh"

#include <algorithm>
#include <cstddef>

namespace kl::gemm_detail {

// The arithmetic is gemm_plan.hpp's (checked by the host suite); these read it off the grid.
using gemm_plan::kRasterRows;

// The tile (tm, tn) of this block; gridDim.x counts tile columns, gridDim.y tile rows.
__device__ __forceinline__ void raster_tile(int& tm, int& tn) {
  gemm_plan::raster_tile_of(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, tm, tn);
}

// The tile (tm, tn), tm <= tn, of this block of the folded triangle grid of T × T tiles; false
// for the blocks of odd T's middle row that have no tile.
__device__ __forceinline__ bool triangle_tile(int T, int& tm, int& tn) {
  return gemm_plan::triangle_tile_of(blockIdx.x, blockIdx.y, T, tm, tn);
}

inline dim3 triangle_grid(int M, int tile) {
  const int T = ceil_div(M, tile);
  if (gemm_plan::triangle_grid_y(T) > kMaxGridY) throw std::invalid_argument("aat: M too large for gridDim.y");
  return dim3(gemm_plan::triangle_grid_x(T), gemm_plan::triangle_grid_y(T));
}

// What a block of gemm10 or gemm11 works on: the C tile (tm, tn), whose first element is
// (row0, col0), and its slice [kb, kb + kl) of k (all of k when the product is not split).
struct BlockWork {
  int tm, tn, row0, col0, kb, kl;
};

// This block's work with BM × BN tiles: a tile of the folded triangle (TRIANGLE; false for the
// blocks of odd T's middle row, which have none) or of the rasterised grid, and slice blockIdx.z
// of k, k_split deep (the last slice shorter).
template <int BM, int BN, bool TRIANGLE>
__device__ __forceinline__ bool block_work(int M, int K, int k_split, BlockWork& w) {
  if constexpr (TRIANGLE) {
    if (!triangle_tile(ceil_div(M, BM), w.tm, w.tn)) return false;
  } else {
    raster_tile(w.tm, w.tn);
  }
  w.row0 = BM * w.tm;
  w.col0 = BN * w.tn;
  w.kb = blockIdx.z * k_split;
  w.kl = min(K - w.kb, k_split);
  return true;
}

// The BM × BN C tile of a block in shared memory, row pitch BN + 1: odd, so that a warp reading
// a column (32 consecutive rows, the mirrored store of A·Aᵀ) touches 32 different banks (for
// doubles, a half-warp 16 different bank pairs). Reading a row is conflict-free for any pitch.
template <class T, int BM, int BN, int THREADS>
struct StagedTile {
  static constexpr int kPitch = BN + 1;
  static constexpr std::size_t kBytes = std::size_t(BM) * kPitch * sizeof(T);

  __device__ __forceinline__ static void put(T* cs, int r, int c, T v) { cs[r * kPitch + c] = v; }

  // C[row0 + r][col0 + c] = cs[r][c] for the tile's elements inside the rows × cols matrix C
  // (row pitch ldc). Lanes take consecutive c: a warp writes 32 consecutive elements of a row.
  __device__ __forceinline__ static void store(const T* cs, T* __restrict__ c, int rows, int cols,
                                               std::size_t ldc, int row0, int col0) {
    store_lines<BM, BN, kPitch, 1>(cs, c, rows, cols, ldc, row0, col0);
  }

  // The mirror: C[col0 + c][row0 + r] = cs[r][c] (the transposed tile, for a symmetric C).
  // Lanes take consecutive r: a warp writes 32 consecutive elements of a row of C and reads a
  // column of cs (conflict-free thanks to the odd pitch).
  __device__ __forceinline__ static void store_mirrored(const T* cs, T* __restrict__ c, int rows,
                                                        int cols, std::size_t ldc, int row0, int col0) {
    store_lines<BN, BM, 1, kPitch>(cs, c, rows, cols, ldc, col0, row0);
  }

  // The block's tile into C (M × N, row pitch N) and, for a tile of the triangle off its
  // diagonal, the mirrored tile too.
  template <bool TRIANGLE>
  __device__ __forceinline__ static void store_tile(const T* cs, T* __restrict__ c, int M, int N, const BlockWork& w) {
    store(cs, c, M, N, N, w.row0, w.col0);
    if constexpr (TRIANGLE) {
      if (w.tm != w.tn) store_mirrored(cs, c, M, N, N, w.row0, w.col0);
    }
  }

  // Both stores: C[o0 + o][i0 + i] = cs[o·kOuter + i·kInner] for o < OUTER, i < INNER, inside
  // the rows × cols matrix C. Lanes take consecutive i (whole runs of a row of C).
  template <int OUTER, int INNER, int kOuter, int kInner>
  __device__ __forceinline__ static void store_lines(const T* cs, T* __restrict__ c, int rows, int cols,
                                                     std::size_t ldc, int o0, int i0) {
    if constexpr (THREADS % INNER == 0) {  // every thread keeps one i: pointer steps only
      constexpr int kPerPass = THREADS / INNER;
      const int i = threadIdx.x % INNER;
      int o = threadIdx.x / INNER;
      if (i0 + i >= cols) return;
      T* p = c + static_cast<std::size_t>(o0 + o) * ldc + i0 + i;
#pragma unroll 4
      for (; o < OUTER && o0 + o < rows; o += kPerPass, p += kPerPass * ldc) *p = cs[o * kOuter + i * kInner];
    } else {
      for (int x = threadIdx.x; x < OUTER * INNER; x += THREADS) {
        const int o = x / INNER, i = x % INNER;
        if (o0 + o < rows && i0 + i < cols)
          c[static_cast<std::size_t>(o0 + o) * ldc + i0 + i] = cs[o * kOuter + i * kInner];
      }
    }
  }
};

// ---- split-K ----------------------------------------------------------------------------------
// The plan (slices, workspace, rounding depth) is gemm_split_plan.hpp's.
using gemm_plan::k_per_split;
using gemm_plan::splitk_depth;
using gemm_plan::splitk_splits;
using gemm_plan::used_splits;

// c[i] = ws[i] + ws[mn + i] + ... + ws[(splits - 1)·mn + i], in that order. Launched
// programmatically (launch_splitk_reduce): its blocks are scheduled as the split kernel's leave,
// not after a launch gap of their own, and wait for that kernel before they read a slice.
template <class T>
__global__ void __launch_bounds__(256) splitk_reduce(const T* __restrict__ ws, T* __restrict__ c,
                                                     std::size_t mn, int splits) {
  pdl::wait_for_primary_grid();
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < mn;
       i += std::size_t(gridDim.x) * blockDim.x) {
    T s = ws[i];
    for (int z = 1; z < splits; ++z) s += ws[z * mn + i];
    c[i] = s;
  }
}

// The reduction's launch attribute, asked once: call it from the prepare of every step that
// splits, outside any capture (pdl::programmatic_here).
template <class T>
bool splitk_reduce_programmatic_here() {
  return pdl::programmatic_here<splitk_reduce<T>>();
}
template <class T>
void launch_splitk_reduce(const T* ws, T* c, std::size_t mn, int splits, cudaStream_t s) {
  // A few waves of 256-thread blocks; the grid-stride loop covers any mn.
  const std::size_t blocks = std::min<std::size_t>(ceil_div(mn, std::size_t(256)), 8 * sm_count());
  pdl::launch<splitk_reduce<T>>(true, dim3(grid_blocks(blocks)), dim3(256), 0, s, ws, c, mn, splits);
}

// ---- stream-K ----------------------------------------------------------------------------------
// The plan and the walk are gemm_split_plan.hpp's (StreamK); gemm13's and gemm11's stream-K forms
// write the partial segments of a tile into BM × BN slots of the workspace (row pitch BN), and
// this kernel adds them.
//
// Block (j, y) adds the partial slots of stream tile j (the tile dp_waves · blocks + j), in block
// order (k order), into C, for the y-th of kFixupParts parts of the tile's elements; a tile that
// one block covered whole is already in C. W elements a step: 1, or one 16-byte vector (kVec<T>)
// where every row of C and of the slots starts 16-byte aligned (gemm13's TMA path); a tile's
// columns start at multiples of BN. Each thread owns kSteps steps of its part and loads the same
// slot for all of them before it adds (a fixup moves a few partial tiles through L2 and is bound
// by how many loads are in flight, not by its additions). Launched programmatically
// (launch_stream_k_fixup): it waits for the stream kernel before it reads a slot.
constexpr int kFixupParts = 8, kFixupThreads = 256;
template <class T, int BM, int BN, int W>
__global__ void __launch_bounds__(kFixupThreads) stream_k_fixup(const T* __restrict__ partials, T* __restrict__ c, int M,
                                                                int N, gemm_plan::StreamKInt p) {
  constexpr int kPart = BM * BN / kFixupParts, kSteps = kPart / (W * kFixupThreads);
  static_assert((W == 1 || W == kVec<T>) && kPart % (W * kFixupThreads) == 0 && BN % W == 0);
  const auto load = [](T (&d)[W], const T* src) {
    if constexpr (W == 1) d[0] = *src;
    else load_vec(d, src);
  };
  const long long j = blockIdx.x;
  long long b0, b1;
  gemm_plan::stream_tile_blocks(j, p.kt, p.per_block, b0, b1);
  if (b0 == b1) return;
  int tm, tn;
  gemm_plan::raster_tile_at<unsigned>(p.dp_waves * p.blocks + blockIdx.x, p.tiles_n, p.tiles_m, tm, tn);
  const int row0 = BM * tm, col0 = BN * tn;
  // Step i's element of the tile, and whether it lies inside C.
  int x[kSteps];
  bool in[kSteps];
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    x[i] = kPart * blockIdx.y + W * (threadIdx.x + i * kFixupThreads);
    in[i] = row0 + x[i] / BN < M && col0 + x[i] % BN < N;
  }
  pdl::wait_for_primary_grid();
  // b0's slot is its first or last (gemm_plan::stream_slot); every later block's run starts
  // inside the tile, so its slot is its first, 2b (the host suite checks both)
  T sum[kSteps][W], part[kSteps][W];
  const T* slot = partials + gemm_plan::stream_slot(b0, j, p.kt, p.per_block) * (BM * BN);
#pragma unroll
  for (int i = 0; i < kSteps; ++i)
    if (in[i]) load(sum[i], slot + x[i]);
  for (long long b = b0 + 1; b <= b1; ++b) {
    slot = partials + 2 * b * (BM * BN);
#pragma unroll
    for (int i = 0; i < kSteps; ++i)
      if (in[i]) load(part[i], slot + x[i]);
#pragma unroll
    for (int i = 0; i < kSteps; ++i)
#pragma unroll
      for (int e = 0; e < W; ++e) sum[i][e] += part[i][e];
  }
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    if (!in[i]) continue;
    T* out = c + static_cast<std::size_t>(row0 + x[i] / BN) * N + col0 + x[i] % BN;
    if constexpr (W == 1) *out = sum[i][0];
    else store_vec(out, sum[i]);
  }
}

// The fixup of a stream-K launch of plan p, right after its stream kernel in stream s: one block
// per part of each stream tile, programmatically dependent on the stream kernel where the device
// allows (common/pdl.cuh), so its blocks are scheduled as the stream kernel's leave. Call
// fixup_programmatic_here first from the step's prepare, outside any capture.
template <class T, int BM, int BN, int W>
bool fixup_programmatic_here() {
  return pdl::programmatic_here<stream_k_fixup<T, BM, BN, W>>();
}
template <class T, int BM, int BN, int W>
void launch_stream_k_fixup(const T* partials, T* c, int M, int N, const gemm_plan::StreamK& p,
                           const gemm_plan::StreamKInt& pi, cudaStream_t s) {
  pdl::launch<stream_k_fixup<T, BM, BN, W>>(true, dim3(static_cast<unsigned>(p.tail_tiles), kFixupParts),
                                            dim3(kFixupThreads), 0, s, partials, c, M, N, pi);
}

// Launches C = A·B as `splits` slices of k (fewer where the slices of k_per_split would leave
// some empty): one slice writes C directly; several write their partial products into
// consecutive M × N slices of g.workspace (splits · M · N elements), which splitk_reduce then
// adds into C. `kernel(A_slab, B, out_slab, slab_rows, N, K, k_split, slice_stride)` (gemm10's
// and gemm11's) runs with `threads` threads and `smem` bytes of shared memory per block, over
// each slab of launch_tiled, with grid.z = the number of slices.
template <class T, class Kernel>
void launch_split_k(const GemmArgs<T>& g, int tile_rows, int tile_cols, int bk, int splits, Kernel kernel, int threads,
                    std::size_t smem, cudaStream_t s) {
  const int ks = k_per_split(g.K, splits, bk), used = used_splits(g.K, splits, bk);
  const std::size_t mn = static_cast<std::size_t>(g.M) * g.N;
  GemmArgs<T> h = g;
  if (used > 1) h.C = static_cast<T*>(g.workspace);
  launch_tiled(h, tile_rows, tile_cols, [&](dim3 grid, const T* A, T* out, int M) {
    grid.z = used;
    kernel<<<grid, threads, smem, s>>>(A, g.B, out, M, g.N, g.K, ks, used > 1 ? mn : 0);
  });
  if (used > 1) launch_splitk_reduce(h.C, g.C, mn, used, s);
}

// Workspace of a split product of T: one M × N slice per used slice, none without a split.
template <class T>
std::size_t splitk_workspace(GemmShape sh, int splits, int bk) {
  return gemm_plan::splitk_workspace(sh, splits, bk, sizeof(T));
}

}  // namespace kl::gemm_detail
