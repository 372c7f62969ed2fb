// The index arithmetic of the last gemm steps (gemm10 to gemm14, the A·Aᵀ steps, gemm_shallow_k),
// as pure functions of their inputs: where a block works (the raster, the folded triangle, a
// stream-K block's iterations), where a tile element lives in shared memory, which element of an
// mma fragment a lane holds. The kernels call these (with blockIdx, gridDim, laneid) and the host
// suite checks them exhaustively without a GPU (tests/host/test_gemm_plan.cpp): every tile visited
// once, layouts bijective and conflict-free as their comments claim, fragments covering their
// tiles once. How a launcher cuts k across blocks (the split-K and stream-K plans) is
// gemm_split_plan.hpp's; which step gemm_auto runs, gemm_auto_plan.hpp's.
// Host-compilable, and it needs nothing else: no CUDA header, not even the contract's.
#pragma once

#include <cstddef>

#if defined(__CUDACC__)
#define KL_HD __host__ __device__ __forceinline__
#else
#define KL_HD inline
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

// ---- shared-memory layouts of K-contiguous tiles -------------------------------------------
// Where element (r, c) of a tile (r: a row of the matrix, c: its k) lives: at(r, c). Row
// r + kPeriod·i is placed as row r, kPeriod·i·kPitch further on (AsyncCopyK relies on it).
// PaddedRows and SwizzledRows keep a row's 16-byte chunks whole and in their row (kWholeChunks),
// so a 16-byte copy and element-sized copies fill the same places (the two copy paths stay
// bit-identical); TransposedRows scatters a row down a column and takes element copies only.

// Row r at r·P elements (P > row length: padding). gemm11 picks P = BK + 4 doubles so that its
// fragment loads are conflict-free (see dmma_* below and gemm11's header).
template <int P>
struct PaddedRows {
  static constexpr int kPeriod = 1;  // rows after which the placement repeats (AsyncCopyK)
  static constexpr int kPitch = P;
  static constexpr bool kWholeChunks = true;
  KL_HD static int at(int r, int c) { return r * P + c; }
};

// Row r stored as column r of a [k][r] tile of row pitch LD: element (r, c) at c·LD + r (gemm7-9's
// A tile as[k][m]; float A·Aᵀ's B tile bs[k][n] in gemm10). Consecutive rows are one element apart.
template <int LD>
struct TransposedRows {
  static constexpr int kPeriod = 1;
  static constexpr int kPitch = 1;
  static constexpr bool kWholeChunks = false;
  KL_HD static int at(int r, int c) { return c * LD + r; }
};

// Rows of BK elements of ELEM bytes, packed, with the 16-byte chunk q of row r stored at chunk
// q ^ ((r / L) mod Q): Q = chunks per row, L = 8 / Q rows per 128-byte line. Any 8 consecutive
// rows then hold a given chunk index in 8 different 16-byte bank groups, so a warp reading
// chunk q of 8 consecutive rows takes one wavefront; unswizzled, 16-float rows put rows 0, 2,
// 4, 6 on the same banks (a 4-way conflict).
template <int ELEM, int BK>
struct SwizzledRows {
  static constexpr int V = 16 / ELEM, Q = BK / V, L = Q >= 8 ? 1 : 8 / Q;
  static_assert(BK % V == 0 && (Q == 2 || Q == 4 || Q == 8), "2, 4 or 8 chunks per row");
  static constexpr int kPeriod = 8;  // L·Q rows
  static constexpr int kPitch = BK;
  static constexpr bool kWholeChunks = true;
  KL_HD static int swizzle(int r) { return (r / L) % Q; }
  KL_HD static int at(int r, int c) { return r * BK + (((c / V) ^ swizzle(r)) * V) + c % V; }
};

// gemm11's padding of a [row][k] tile of doubles: pitch BK + kDmmaPad (≡ 4 mod 16 for BK a
// multiple of 16, 12 for BK = 8), which puts the 16 lanes of a half-warp's fragment load on 16
// different 8-byte bank pairs.
constexpr int kDmmaPad = 4;

// ---- gemm_shallow_k's A tile ----------------------------------------------------------------
// The block's BM rows of A, k-major ([k][BM], padded to a pitch of BM + V elements), so that the
// rows a warp owns at one k are a 16-byte broadcast per V of them (V = 16 bytes of elements: 4
// floats, 2 doubles). The loader (shallow_a_fill) writes 4 rows × 8 consecutive k per warp
// instruction: with the pitch one 16-byte chunk past a multiple of 128 bytes, those are 32
// different banks per 128 bytes (each a wavefront's worth); unpadded, the 8 k of one row would
// share a bank (8-way). A padding, not a swizzle: a thread's reads are then one address plus
// constants (a k-dependent swizzle costs registers or instructions per read).
template <int V, int BM>
KL_HD constexpr int shallow_a_pitch() { return BM + V; }
template <int V, int BM>
KL_HD constexpr int shallow_a_at(int r, int k) { return k * shallow_a_pitch<V, BM>() + r; }
// Element e of the loader's walk (e = thread + threads·u, 0 <= e < BM·kMaxK): each 32 of them,
// one warp instruction, are rows 4·gr .. 4·gr + 3 × k 8·gk .. 8·gk + 7 (gr = group mod BM/4, gk
// = group / (BM/4)); lane l of the group takes row 4·gr + l mod V + V·(l / 8V), k 8·gk + (l / V)
// mod 8, so the lanes a wavefront serves (8·V of them: 32 floats, 16 doubles) hold V rows × 8 k.
template <int V, int BM>
KL_HD void shallow_a_fill(int e, int& r, int& k) {
  const int g = e / 32, l = e % 32;
  r = 4 * (g % (BM / 4)) + l % V + V * (l / (8 * V));
  k = 8 * (g / (BM / 4)) + (l / V) % 8;
}
// The walk as a thread takes it: element t + threads·u lies shallow_a_dr(u) rows and
// shallow_a_dk(u) k further on than element t (a pass of `threads` elements is threads / 8 rows
// of 8 k; BM / (threads / 8) passes make a group of 8 k), so the kernel computes one place per
// thread and adds constants.
template <int BM, int THREADS>
KL_HD constexpr int shallow_a_dr(int u) { return (THREADS / 8) * (u % (BM * 8 / THREADS)); }
template <int BM, int THREADS>
KL_HD constexpr int shallow_a_dk(int u) { return 8 * (u / (BM * 8 / THREADS)); }

// ---- mma.sync.m16n8k{4,8,16}.row.col.f64 fragments (PTX ISA, "Matrix Fragments for mma") ----
// Lane = 4·g + t. Offsets are relative to the fragment's tile origin in shared memory.
//   A (16 × K, element i of K/2):  row g + 8·(i mod 2), column t + 4·(i / 2)
//   B (K × 8, element i of K/4):   row t + 4·i,         column g
//   C (16 × 8, element e of 4):    row g + 8·(e / 2),   column 2t + (e mod 2)
KL_HD constexpr int dmma_a_row(int g, int i) { return g + 8 * (i % 2); }
KL_HD constexpr int dmma_a_col(int t, int i) { return t + 4 * (i / 2); }
KL_HD constexpr int dmma_b_row(int t, int i) { return t + 4 * i; }
KL_HD constexpr int dmma_b_col(int g) { return g; }
KL_HD constexpr int dmma_c_row(int g, int e) { return g + 8 * (e / 2); }
KL_HD constexpr int dmma_c_col(int t, int e) { return 2 * t + e % 2; }

// ---- gemm14's TMA tiles: the 128-byte swizzle, and the k order its fragments take -----------
// TMA's 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B) of a box whose rows are 128 bytes (16
// doubles), the box 1024-byte aligned: 16-byte chunk q of row r lies at chunk q ^ (r mod 8).
// Element (r, c) of such a box of doubles:
KL_HD constexpr int swz128_double(int r, int c) { return r * 16 + ((((c >> 1) ^ (r & 7))) << 1) + (c & 1); }
// The k that lane t of a group feeds into k step s (0..3) of a 16-k tile, for A and B alike (a
// product may take its k in any order). The ISA's order, k = 4s + t, puts two lanes of a
// half-warp on one bank pair under the swizzle (A: rows g = 0..3 and chunk (k / 2) ^ g); this one,
// step s taking {0, 3, 12, 15} ^ (s mod 2 + 4·(s / 2)), keeps A's and B's half-warp loads on 16
// different bank pairs (the host suite checks both, and that the ISA's order would not).
KL_HD constexpr int dmma_tma_k(int s, int t) { return ((s & 1) | ((s >> 1) << 2)) ^ (3 * (t & 1) + 12 * (t >> 1)); }

}  // namespace kl::gemm_plan
