// Where a block of the last gemm steps (gemm10 to gemm14, the A·Aᵀ steps) works, as pure functions
// of its inputs: the raster, the folded triangle, a stream-K block's iterations. The kernels call
// these (with blockIdx, gridDim) and the host suite checks them exhaustively without a GPU
// (tests/host/test_gemm_plan.cpp): every tile visited once. Where a tile element lives in shared
// memory and which element of an mma fragment a lane holds is gemm_layouts.hpp's; how a launcher
// cuts k across blocks (the split-K and stream-K plans), gemm_split_plan.hpp's; which step
// gemm_auto runs, gemm_auto_plan.hpp's.
// Host-compilable, and it needs nothing else: no CUDA header, not even the contract's.
#pragma once

#if !defined(KL_HD)  // gemm_layouts.hpp says it the same way
#if defined(__CUDACC__)
#define KL_HD __host__ __device__ __forceinline__
#else
#define KL_HD inline
#endif
#endif

namespace kl::gemm_plan {

template <class I, class J>
KL_HD constexpr I div_up(I a, J b) {
  return static_cast<I>(a / b + (a % b != 0));
}

// ---- block order ---------------------------------------------------------------------------
// Tile rows per band: the grid (gx tile columns × gy tile rows) is walked in bands of
// kRasterRows tile rows, column by column within a band. At 8192² with 128² tiles a wave of 264
// resident blocks then reads 8 row tiles of A and 33 column tiles of B instead of 4 and 64.
constexpr int kRasterRows = 8;

// The tile (tm, tn) of the id-th block (id = by·gx + bx) of a gx × gy grid; a bijection of the
// grid onto itself. I: an unsigned type that holds 8·gx·gy (gemm13's stream-K walk takes 32 bits,
// which its launcher checks).
template <class I>
KL_HD void raster_tile_at(I id, I gx, I gy, int& tm, int& tn) {
  const I band = static_cast<I>(kRasterRows) * gx;
  const I b = id / band;
  const I first = b * kRasterRows;
  const I rows = gy - first < static_cast<I>(kRasterRows) ? gy - first : static_cast<I>(kRasterRows);
  const I r = id - b * band;
  tm = static_cast<int>(first + r % rows);
  tn = static_cast<int>(r / rows);
}
// The tile (tm, tn) of block (bx, by).
KL_HD void raster_tile_of(unsigned bx, unsigned by, unsigned gx, unsigned gy, int& tm, int& tn) {
  raster_tile_at<unsigned long long>(static_cast<unsigned long long>(by) * gx + bx, gx, gy, tm, tn);
}

// The same order as gemm13's unsplit grid computes it, in int, for bands of GROUP rows (kRasterRows,
// or kRasterRows / 2 pairs of tile rows in its cluster form): the tile (tm, tn) of the id-th block
// of tiles_n columns × tiles_m rows. For GROUP = kRasterRows the host suite checks it against
// raster_tile_at.
template <int GROUP>
KL_HD void raster_tile_grouped(int id, int tiles_n, int tiles_m, int& tm, int& tn) {
  const int group = id / (GROUP * tiles_n), first_m = group * GROUP;
  const int group_m = tiles_m - first_m < GROUP ? tiles_m - first_m : GROUP;
  tm = first_m + (id % (GROUP * tiles_n)) % group_m;
  tn = (id % (GROUP * tiles_n)) / group_m;
}

// The tiles (i, j), i <= j, of a T × T tile grid folded into a (T + 1) × ceil(T / 2) grid: row y
// holds the T - y tiles of tile row y, then the y + 1 tiles of tile row T - 1 - y. For odd T the
// middle row has no partner: its blocks past the first (T + 1) / 2 have nothing to do (false).
KL_HD bool triangle_tile_of(int x, int y, int T, int& tm, int& tn) {
  if (x < T - y) {
    tm = y;
    tn = y + x;
    return true;
  }
  const int i = T - 1 - y;
  if (i == y) return false;
  tm = i;
  tn = i + (x - (T - y));
  return true;
}
constexpr int triangle_grid_x(int T) { return T + 1; }
constexpr int triangle_grid_y(int T) { return (T + 1) / 2; }

// ---- stream-K: where a block's iterations lie ------------------------------------------------
// The plan (gemm_split_plan.hpp, StreamK) numbers a product's tiles in raster_tile_of's order and
// gives block b its dp_waves data-parallel tiles, then q = per_block stream iterations from b·q;
// these are what the kernels compute from it.

// Where iteration t of block b's run lies: its tile and its k tile. The first dp_waves · kt
// are the block's data-parallel tiles, the rest its stream iterations from b·q. I: a signed type
// that holds the plan's tiles and b·q + q (the kernel takes int, which its launcher checks).
template <class I>
KL_HD void stream_iteration(I b, I t, I kt, I dp_waves, I blocks, I q, I& tile, I& k) {
  const I dp_iters = dp_waves * kt;
  if (t < dp_iters) {
    tile = (t / kt) * blocks + b;
    k = t % kt;
  } else {
    const I u = b * q + (t - dp_iters);
    tile = dp_waves * blocks + u / kt;
    k = u % kt;
  }
}
// The iterations of block b's run: its data-parallel tiles' and its share of the stream part.
template <class I>
KL_HD I stream_run_length(I b, I kt, I dp_waves, I q, I tail_iters) {
  const I u0 = b * q;
  return dp_waves * kt + (u0 < tail_iters ? (tail_iters - u0 < q ? tail_iters - u0 : q) : 0);
}
// Where a block's segment that starts at run iteration t0 ends (exclusive), in a run of `run`
// iterations: at its tile's last k tile or at the run's end. A segment starts at k tile 0 but the
// block's first stream segment (t0 = dp_iters = dp_waves · kt), which starts at k tile
// k0 = (b·q) % kt. gemm13's and gemm14's stream-K kernels cut their runs with it; kt iterations
// are the whole tile.
template <class I>
KL_HD I stream_segment_end(I t0, I run, I kt, I dp_iters, I k0) {
  const I end = t0 + kt - (t0 == dp_iters ? k0 : 0);
  return end < run ? end : run;
}
// The blocks whose stream runs hold stream tile j (the j-th tile of the stream part): b0..b1.
KL_HD void stream_tile_blocks(long long j, int kt, long long q, long long& b0, long long& b1) {
  b0 = j * kt / q;
  b1 = (j * kt + kt - 1) / q;
}
// The workspace slot (BM × BN elements each) of block b's partial segment of stream tile j: 2b
// for its first stream segment, 2b + 1 for its last.
KL_HD long long stream_slot(long long b, long long j, int kt, long long q) {
  return 2 * b + (j == b * q / kt ? 0 : 1);
}
// The plan in int, as the stream-K kernels and their fixup take it (by value; made by
// gemm_split_plan.hpp's stream_k_int where every count fits).
struct StreamKInt {
  int tiles_m, tiles_n, kt, blocks, dp_waves, per_block, tail_iters;
};

}  // namespace kl::gemm_plan
