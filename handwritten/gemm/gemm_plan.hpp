// The index arithmetic of the last gemm steps (gemm10, gemm11, the A·Aᵀ steps, gemm_shallow_k),
// as pure functions of their inputs: where a block works, where a tile element lives in shared
// memory, which element of an mma fragment a lane holds, how k is split. The kernels call these
// (with blockIdx, gridDim, laneid) and the host suite checks them exhaustively without a GPU
// (tests/host/test_gemm_plan.cpp): every tile visited once, layouts bijective and
// conflict-free as their comments claim, fragments covering their tiles once, split slices
// non-empty. Host-compilable: no CUDA headers beyond the contract's.
#pragma once

#include "common/args/gemm_args.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

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

// Multiply-adds × 2 of the triangle's tiles (i <= j; TILE × TILE, the last ones cut at M), the
// diagonal tiles whole: sum over i <= j of rows(i)·rows(j)·K = K·((sum rows)² + sum rows²) / 2.
inline double triangle_flops(AatShape s, int tile) {
  const long long T = div_up<long long>(s.M, tile), last = s.M - (T - 1) * tile;
  const double sq = static_cast<double>(T - 1) * tile * tile + static_cast<double>(last) * last;
  return static_cast<double>(s.K) * (static_cast<double>(s.M) * s.M + sq);
}

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

// ---- gemm_auto's rule (gemm_auto.cuh applies it; the host suite checks its examples) ---------
// The shape's class, before any tile: one output column (N = 1) is a matrix-vector product, one
// output row (M = 1) a vector-matrix product, K <= kThinK a store stream; the rest is tiled.
enum class ShapeClass { gemv, gevm, thin_k, tiled };
constexpr int kThinK = 4;
inline ShapeClass shape_class(GemmShape s) {
  if (s.N == 1) return ShapeClass::gemv;  // M = N = 1 too: a dot product
  if (s.M == 1) return ShapeClass::gevm;
  if (s.K <= kThinK) return ShapeClass::thin_k;
  return ShapeClass::tiled;
}
// Output tiles of bm × bn.
inline long long tiles_of(GemmShape s, int bm, int bn) {
  return static_cast<long long>(div_up(s.M, bm)) * div_up(s.N, bn);
}
// ---- split-K ---------------------------------------------------------------------------------
// The k range of each of `splits` slices: a multiple of BK, so that only the last slice has a
// ragged k tile.
inline int k_per_split(int K, int splits, int bk) { return div_up(div_up(K, splits), bk) * bk; }
// Slices that hold any k (fewer than asked where the rounding up leaves the last ones empty).
inline int used_splits(int K, int splits, int bk) { return div_up(K, k_per_split(K, splits, bk)); }

// How many slices of k a product of `tiles` output tiles gets: as many as fill_sms ×
// blocks_per_sm resident blocks hold whole (rounded down: a split that spills a few blocks into a
// second wave costs that wave; float 1000³ in 64² tiles on 132 SMs of 4 blocks: 2 slices, 512
// blocks; rounded up it took 3 and ran slower, docs/sgemm-ladder.md, "Every shape class");
// each slice about kMinSliceTiles k tiles deep or more (a shallower slice spends as much on its
// prologue, epilogue and partial tile as it computes); at most kMaxSplits (the workspace grows
// with the splits). The split variants of the list (gemm10_splitk, gemm11_dmma_splitk) use
// kFillSMs, so that their name means one rule on every GPU; gemm_auto passes the device's
// multiprocessor count.
constexpr long long kFillSMs = 128;
constexpr int kMinSliceTiles = 4, kMaxSplits = 16;
inline int splitk_splits_for(long long tiles, int K, int bk, int blocks_per_sm, long long fill_sms = kFillSMs) {
  const long long by_fill = fill_sms * blocks_per_sm / tiles;
  const long long by_k = div_up(K, kMinSliceTiles * bk);
  return static_cast<int>(std::max(1LL, std::min({by_fill, by_k, static_cast<long long>(kMaxSplits)})));
}
inline int splitk_splits(GemmShape s, int bm, int bn, int bk, int blocks_per_sm, long long fill_sms = kFillSMs) {
  const long long tiles = static_cast<long long>(div_up(s.M, bm)) * div_up(s.N, bn);
  return splitk_splits_for(tiles, s.K, bk, blocks_per_sm, fill_sms);
}
// gemm_auto's small float step (gemm10 64×64×16, four blocks per SM) picks its split by a time
// model instead: splitk_splits_for, which fills the resident blocks, split 513×257×129 three
// ways where unsplit ran faster, 700×600×200 four ways (slower than unsplit) and 129×129×4097
// sixteen ways (slower than 14: 144 blocks put two on twelve SMs), docs/sgemm-ladder.md, "Every
// shape class". The model, in microseconds:
//   k tiles of the deepest slice × kSplitTileUs × the busiest SM's load
//   + where there is a split: kSplitReduceUs (the reduction's launch and ramp) and the
//     reduction's bytes, (slices + 1) × M × N elements, at kSplitReduceBytesPerUs.
// The load of j blocks on one SM, at most `blocks_per_sm` resident: one block 1, each further
// resident block kSplitCoResident more (they share the SM's issue slots; 1 would be no overlap),
// whole residency waves one after another. The constants were fitted on the H100 (12 shapes,
// a trial log that journal/README.md indexes; the model's pick was close to the best split on each,
// as this comment quantified at commit dc72026) and checked on 14 others (docs/sgemm-ladder.md,
// "Every shape class": closer to the best split than the fill rule on average and at worst; its
// worst, 3000×200×300, one slice where two were best); the SM count is the device's. The model
// only ranks the splits of one shape, so its constants matter as ratios: the k tile's time
// against the reduction's.
// kSplitTileUs is a 64 × 64 × 16 k tile's; another tile of the same depth takes it in proportion
// to its area (gemm11's 32² DMMA tile a quarter: the FP64 tensor cores of 8.0 and 9.0 do as many
// multiply-adds per cycle as the FP32 lanes), so the reduction's fixed cost weighs four times as
// much against a small double tile's k loop as against the float one's.
constexpr double kSplitTileUs = 0.7, kSplitCoResident = 0.5, kSplitReduceUs = 3.5, kSplitReduceBytesPerUs = 2.5e6;
inline double split_tile_us(int bm, int bn) { return kSplitTileUs * double(bm) * double(bn) / (64.0 * 64.0); }
// The split model is step_model_us with only the k loop's term: no launch or block cost, no bytes.
inline double splitk_model_us(GemmShape s, int bm, int bn, int bk, int splits, int blocks_per_sm, long long sms,
                              std::size_t elem_bytes);
// The split count (1 to kMaxSplits, the fewest of those that use as many slices) the model
// times fastest.
inline int splitk_splits_modeled(GemmShape s, int bm, int bn, int bk, int blocks_per_sm, long long sms,
                                 std::size_t elem_bytes) {
  int best = 1;
  double best_us = splitk_model_us(s, bm, bn, bk, 1, blocks_per_sm, sms, elem_bytes);
  for (int n = 2; n <= kMaxSplits; ++n) {
    if (used_splits(s.K, n, bk) == used_splits(s.K, n - 1, bk)) continue;
    const double us = splitk_model_us(s, bm, bn, bk, n, blocks_per_sm, sms, elem_bytes);
    if (us < best_us) best = n, best_us = us;
  }
  return best;
}
// ---- stream-K ----------------------------------------------------------------------------------
// Tiles are numbered in raster_tile_of's order over the tiles_n × tiles_m grid (the unsplit
// grid's block order), and a tile is kt k tiles deep. A stream-K launch has one block per SM
// (G = sms blocks, fewer where the product has fewer k tiles) and two parts:
//   * data-parallel: where there are at least two waves of tiles, all whole waves but the last
//     (dp_waves of them): block b takes tiles b, b + G, b + 2G, ..., each whole, straight into C;
//     the blocks of a wave work on consecutive tiles, which share rows of A and columns of B in L2;
//   * stream-K: the other tail_tiles tiles (one to two waves' worth) are tail_iters = tail_tiles
//     × kt iterations, numbered tile after tile; block b runs [b·q, (b + 1)·q) of them (the last
//     block fewer), q the fewest per block that G blocks cover. Every block does the same work
//     to one k tile where whole tiles would leave the last wave part-empty (1500³ in 128 × 256
//     tiles: 72 tiles for 132 SMs; 4096³: 512 tiles, 3.9 waves).
// A block's stream run crosses tiles: it is a sequence of segments, one per tile it touches, of
// which only the first and the last can miss part of their tile's k (those between start at k
// tile 0 and end at kt - 1). A segment that covers its whole tile writes C; a partial one
// writes its block's slot 0 (the first segment) or 1 (the last) of the workspace, a BM × BN tile
// each, and stream_k_fixup adds a tile's partial slots in block order (that is, in k order)
// into C. Deterministic: no atomics, no flags, the same sum every run.
struct StreamK {
  int tiles_m, tiles_n, kt;  // the tile grid and the k tiles per tile
  long long tiles;           // tiles_m · tiles_n
  long long blocks;          // G
  long long dp_waves;        // whole tiles per block before the stream part
  long long tail_tiles;      // tiles - dp_waves · G
  long long tail_iters;      // tail_tiles · kt
  long long per_block;       // q
  long long stream_blocks;   // blocks with stream iterations: ceil(tail_iters / q) <= G
};
// Which tiles the stream part takes: the part-empty last wave and the whole wave before it (the
// default above: a block's stream run is one to two tiles deep), or the part-empty last wave
// alone (`last_wave`: every whole wave data-parallel, the last wave's tiles spread over all SMs,
// a run under one tile deep; where the tiles fill whole waves or make fewer than one, as the
// default). gemm14's stream-K form takes the latter (docs/sgemm-ladder.md, "gemm14 stream-K").
enum class StreamPart { last_two_waves, last_wave };
inline StreamK stream_k_plan(GemmShape s, int bm, int bn, int bk, long long sms,
                             StreamPart part = StreamPart::last_two_waves) {
  StreamK p{div_up(s.M, bm), div_up(s.N, bn), div_up(s.K, bk), 0, 0, 0, 0, 0, 0, 0};
  sms = std::max(1LL, sms);
  p.tiles = static_cast<long long>(p.tiles_m) * p.tiles_n;
  p.dp_waves = p.tiles >= 2 * sms ? p.tiles / sms - 1 : 0;
  if (part == StreamPart::last_wave && p.tiles > sms && p.tiles % sms != 0) p.dp_waves = p.tiles / sms;
  p.tail_tiles = p.tiles - p.dp_waves * sms;
  p.tail_iters = p.tail_tiles * p.kt;
  p.per_block = std::max(1LL, div_up(p.tail_iters, sms));
  p.stream_blocks = div_up(p.tail_iters, p.per_block);
  p.blocks = p.dp_waves > 0 ? sms : p.stream_blocks;
  return p;
}
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
// The plan in int, as gemm13's stream-K kernel and its fixup take it (by value): true where
// every count the walk forms fits (the run plus one tile's kt, where the kernel looks for its
// next segment's end; b·q + q; the tiles, and the raster's 8·tiles_n and tile ids in unsigned);
// elsewhere the launcher runs the product unsplit.
struct StreamKInt {
  int tiles_m, tiles_n, kt, blocks, dp_waves, per_block, tail_iters;
};
inline bool stream_k_int(const StreamK& p, StreamKInt& out) {
  constexpr long long kMax = 0x7fffffff;
  if (p.tiles > kMax / kRasterRows || p.dp_waves * p.kt + p.per_block + p.kt > kMax ||
      p.blocks * p.per_block + p.per_block > kMax)
    return false;
  out = {p.tiles_m, p.tiles_n, p.kt, static_cast<int>(p.blocks), static_cast<int>(p.dp_waves), static_cast<int>(p.per_block),
         static_cast<int>(p.tail_iters)};
  return true;
}
// The workspace: two slots per block with stream iterations.
inline std::size_t stream_k_workspace(const StreamK& p, int bm, int bn, std::size_t elem_bytes) {
  return static_cast<std::size_t>(2 * p.stream_blocks) * bm * bn * elem_bytes;
}

// ---- gemm_auto's time model: which tiled steps are worth measuring for one shape ------------
// One formula for every tiled step, its constants fitted per step on the H100's measured times
// (docs/sgemm-ladder.md, "gemm_auto's rules"): the blocks of a wave overlap, so the busiest
// multiprocessor's load is counted as in splitk_model_us (whole groups of `overlap` blocks, each
// further block of a group `co` of a block's time), and
//   t = launch_us + load × (block_us + k tiles of a slice × ktile_us) + us_per_mb × MB moved
//       (+ the split's reduction, splitk_model_us's, where k is split)
// where MB moved is C once plus A once per tile column and B once per tile row. `overlap` is a
// fitted constant, not the occupancy. The model ranks steps only roughly (its error is several
// per cent, and neighbouring steps are often closer than that), so gemm_auto does not trust it
// with the choice where it can measure: it times the steps the model puts within kShortlist of
// its best (gemm_auto.cuh, tune) and falls back on the model's first only where nothing was
// measured.
struct StepModel {
  int bm, bn, bk, overlap;
  double launch_us, block_us, ktile_us, co, us_per_mb;
};
constexpr double kShortlist = 1.3;
inline double step_model_us(const StepModel& m, GemmShape s, int splits, long long sms, std::size_t elem_bytes) {
  const int used = used_splits(s.K, splits, m.bk);
  const long long k_tiles = k_per_split(s.K, splits, m.bk) / m.bk;
  const long long busiest = div_up(tiles_of(s, m.bm, m.bn) * used, sms);
  const auto group = [&](long long n) { return n ? 1 + m.co * double(n - 1) : 0.0; };
  const double load = double(busiest / m.overlap) * group(m.overlap) + group(busiest % m.overlap);
  const double mb = (double(s.M) * s.N + double(s.M) * s.K * div_up(s.N, m.bn) + double(s.K) * s.N * div_up(s.M, m.bm)) *
                    double(elem_bytes) / 1e6;
  double t = m.launch_us + load * (m.block_us + double(k_tiles) * m.ktile_us) + m.us_per_mb * mb;
  if (used > 1) t += kSplitReduceUs + double(used + 1) * s.M * s.N * double(elem_bytes) / kSplitReduceBytesPerUs;
  return t;
}
inline double splitk_model_us(GemmShape s, int bm, int bn, int bk, int splits, int blocks_per_sm, long long sms,
                              std::size_t elem_bytes) {
  return step_model_us({bm, bn, bk, blocks_per_sm, 0.0, 0.0, split_tile_us(bm, bn), kSplitCoResident, 0.0}, s, splits,
                       sms, elem_bytes);
}
// Which of the modelled times are worth measuring: every one within kShortlist of the fastest,
// the fastest first, the others in their order (indices into `us`).
inline std::vector<int> shortlist(const std::vector<double>& us) {
  std::vector<int> out;
  if (us.empty()) return out;
  const int best = static_cast<int>(std::min_element(us.begin(), us.end()) - us.begin());
  out.push_back(best);
  for (int i = 0; i < static_cast<int>(us.size()); ++i)
    if (i != best && us[i] <= kShortlist * us[best]) out.push_back(i);
  return out;
}

// gemm_auto's steps for a tiled product (gemm_auto.cuh runs them), each one of the list's
// configurations, the split ones with a count of slices.
enum class Step { g9_64, g10_64, g9_128x8, g9_128x16, g10_128, g12, g13, g11_32, g11_64, g11_64pf, g11_128pf, shallow, g10_32, g13_stream, g11_stream, g14, g14_stream };
struct StepChoice {
  Step step;
  int splits = 1;
};
// The model's constants per step (StepModel: tile, fitted overlap, launch µs, block µs, k tile µs,
// co-resident share, µs per MB moved), fitted on the H100's times of these configurations over the
// shapes docs/sgemm-ladder.md ("gemm_auto's rules") names. They only shortlist; tune chooses.
// None for the steps it has no constants for yet: those are always measured where they apply
// (auto_shortlist).
inline std::optional<StepModel> model_of(Step s, bool vec = true) {
  switch (s) {
    case Step::g9_64:
      if (!vec) return StepModel{64, 64, 16, 8, 0.07, 5.428, 0.536, 0.44, 0.166};  // its element path
      return StepModel{64, 64, 16, 6, 4.08, 0.358, 0.529, 0.66, 0.048};
    case Step::g10_64: return StepModel{64, 64, 16, 4, 4.00, 0.841, 0.622, 0.64, 0.0};
    case Step::g9_128x8: return StepModel{128, 128, 8, 8, 4.50, 0.417, 0.802, 0.76, 0.136};
    case Step::g9_128x16: return StepModel{128, 128, 16, 8, 4.54, 0.579, 1.487, 0.78, 0.124};
    case Step::g10_128: return StepModel{128, 128, 16, 2, 3.60, 2.261, 1.674, 0.77, 0.093};
    case Step::g12: return StepModel{256, 128, 16, 8, 4.25, 1.561, 2.719, 0.87, 0.143};
    case Step::g13: return StepModel{128, 256, 32, 2, 1.26, 4.767, 5.268, 0.72, 0.130};
    case Step::g11_32: return StepModel{32, 32, 16, 3, 4.20, 0.387, 0.213, 0.42, 0.010};
    case Step::g11_64: return StepModel{64, 64, 16, 8, 3.85, 1.398, 0.528, 0.63, 0.003};
    case Step::g11_64pf: return StepModel{64, 64, 16, 3, 4.24, 1.451, 0.385, 0.79, 0.001};
    case Step::g11_128pf: return StepModel{128, 128, 16, 4, 2.23, 5.576, 1.126, 0.83, 0.064};
    case Step::shallow:
    case Step::g10_32:
    case Step::g13_stream:
    case Step::g11_stream:
    case Step::g14:
    case Step::g14_stream: break;
  }
  return std::nullopt;
}
// gemm_shallow_k's one-chunk depth (its kMaxK, checked where it is launched): the step is a
// candidate only there (deeper, its chunked form is correct but not built for speed).
constexpr int kShallowMaxK(bool dbl) { return dbl ? 48 : 64; }
// What the device, the build and the buffers allow: `vec`, 16-byte accesses to B and C (gemm9's
// and gemm12's fast paths); `tma`, the TMA step of the type on an sm_90a build and a 9.0 device,
// with descriptors for its buffers (float: gemm13, A, B and C; double: gemm14, A and B); `huge`,
// gemm12's 97 KB of shared memory; `dmma_large`, gemm11's 128² tile's.
struct AutoFeatures {
  bool vec = false, tma = false, huge = false, dmma_large = false;
  long long sms = 132;
};
// Blocks per SM the split steps' counts assume (their Configs' kMinBlocks, checked where they are
// launched): gemm10's 64² tile 4, gemm11's 32² tile 2.
constexpr int kSplit64Blocks = 4, kSplitDmma32Blocks = 2;
// The slices a split step may take: its time model's count (splitk_splits_modeled) and, for
// gemm10's 64² tile, the list's fill rule too (gemm10_splitk), 1 always.
inline std::vector<int> auto_split_counts(GemmShape sh, bool dbl, long long sms) {
  std::vector<int> n{1};
  const auto add = [&](int k) {
    if (k > 1 && std::find(n.begin(), n.end(), k) == n.end()) n.push_back(k);
  };
  if (!dbl) {
    add(splitk_splits_modeled(sh, 64, 64, 16, kSplit64Blocks, sms, 4));
    add(splitk_splits(sh, 64, 64, 16, kSplit64Blocks));
  } else {
    add(splitk_splits_modeled(sh, 32, 32, 16, kSplitDmma32Blocks, sms, 8));
  }
  return n;
}
// gemm13's tile in gemm_auto (gemm13::R232At, checked where it is launched) and its split count:
// splitk_splits at one block per SM.
constexpr int kG13Bm = 128, kG13Bn = 256, kG13Bk = 32;
inline int g13_splits(GemmShape sh, long long sms) { return splitk_splits(sh, kG13Bm, kG13Bn, kG13Bk, 1, sms); }
// gemm13's stream-K form where whole tiles leave the last wave (one block per SM) less than
// kStreamFullWave full: there it can give every SM the same k tiles. Its data-parallel waves run
// the unsplit kernel's k loop, so any number of waves before the last costs it nothing; where the
// last wave is (almost) full the fixup is all it adds (docs/sgemm-ladder.md, "gemm13 stream-K").
constexpr double kStreamFullWave = 0.9;
inline bool stream_pays(GemmShape sh, int bm, int bn, long long sms) {
  const long long last = tiles_of(sh, bm, bn) % sms;
  return last != 0 && double(last) < kStreamFullWave * double(sms);
}
inline bool g13_stream_pays(GemmShape sh, long long sms) { return stream_pays(sh, kG13Bm, kG13Bn, sms); }
// Its workspace (gemm13::stream_workspace for gemm13's tile).
inline std::size_t g13_stream_workspace(GemmShape sh, long long sms, std::size_t elem_bytes) {
  return stream_k_workspace(stream_k_plan(sh, kG13Bm, kG13Bn, kG13Bk, sms), kG13Bm, kG13Bn, elem_bytes);
}
// gemm11_pf's 128² DMMA tile (one block per SM, as gemm13's) as stream-K, by the same rule.
constexpr int kG11Bm = 128, kG11Bn = 128;
inline bool g11_stream_pays(GemmShape sh, long long sms) { return stream_pays(sh, kG11Bm, kG11Bn, sms); }
// gemm13's and gemm14's stream-K forms are measured before their unsplit forms, so that tune's
// margin is on their side, where K is at least kStreamFirstK: there the fixup, one partial tile
// per cut tile whatever K is, is small beside the k loops the part-empty last wave leaves idle.
// Shallower, the fixup can cost more than the wave saves (docs/sgemm-ladder.md, "tune's order").
constexpr int kStreamFirstK = 1024;
inline bool stream_first(GemmShape sh) { return sh.K >= kStreamFirstK; }
// Every step gemm_auto may run for a tiled product (float: `dbl` false; double on the FP64
// tensor cores: true).
inline std::vector<StepChoice> auto_candidates(GemmShape sh, bool dbl, AutoFeatures f) {
  std::vector<StepChoice> c;
  if (!dbl) {
    for (int n : auto_split_counts(sh, false, f.sms)) c.push_back({Step::g10_64, n});
    c.push_back({Step::g10_128});
    c.push_back({Step::g9_64});  // on its element path too: at small shapes it beats gemm10's 64²
    if (f.vec) {                 // the larger gemm9 tiles and gemm12 only on their 16-byte paths
      c.push_back({Step::g9_128x8});
      c.push_back({Step::g9_128x16});
      if (f.huge) c.push_back({Step::g12});
    }
    if (f.tma) {
      c.push_back({Step::g13});
      // and split, where its tiles leave SMs idle: the fill rule at one block per SM (gemm13's
      // split form, gemm13::splits, with the device's SMs)
      const int n = g13_splits(sh, f.sms);
      if (used_splits(sh.K, n, kG13Bk) > 1) c.push_back({Step::g13, n});
      if (g13_stream_pays(sh, f.sms)) c.push_back({Step::g13_stream});
    }
    if (sh.K <= kShallowMaxK(false)) c.push_back({Step::shallow});
    // gemm10's 32² tile where 64² tiles make less than two waves (four times the blocks, a
    // quarter of the k loop each: small products are latency, not issue, bound) or where M or N
    // fills less than half a 64-wide tile
    if (tiles_of(sh, 64, 64) < 2 * f.sms || std::min(sh.M, sh.N) <= 32) c.push_back({Step::g10_32});
  } else {
    for (int n : auto_split_counts(sh, true, f.sms)) c.push_back({Step::g11_32, n});
    c.push_back({Step::g11_64});
    c.push_back({Step::g11_64pf});
    if (f.dmma_large) {
      c.push_back({Step::g11_128pf});
      if (g11_stream_pays(sh, f.sms)) c.push_back({Step::g11_stream});
      if (f.tma) {  // the same tile fed by TMA, and its stream-K form by the same rule
        c.push_back({Step::g14});
        if (g11_stream_pays(sh, f.sms)) c.push_back({Step::g14_stream});
      }
    }
    if (sh.K <= kShallowMaxK(true)) c.push_back({Step::shallow});
  }
  return c;
}
// The candidates the model puts within kShortlist of its best, its best first, and the steps it
// has no constants for (gemm_shallow_k, gemm10's 32² tile, the stream-K forms, gemm14)
// wherever they are candidates: those are always measured, after the modelled ones, except
// gemm14 and, where stream_first, gemm13's stream-K form. gemm14 is gemm11_pf's 128² tile with
// its copies out of the k loop (the same tile and work, fewer instructions), so where the model
// shortlists that tile gemm14 takes its rank, just before it, with its stream-K form between (or
// first: stream_first): where the 128² tile is the model's first, gemm14 is, and tune's margin
// keeps it unless another step measures clearly faster. gemm13's stream-K form, where
// stream_first, takes the rank of gemm13 unsplit, just before it (docs/sgemm-ladder.md, "tune's
// rest", "tune's order").
inline bool modelled_step(Step s) { return model_of(s).has_value(); }
inline std::vector<StepChoice> auto_shortlist(GemmShape sh, bool dbl, AutoFeatures f) {
  std::vector<StepChoice> modelled, unmodelled, out;
  for (const StepChoice& c : auto_candidates(sh, dbl, f)) (modelled_step(c.step) ? modelled : unmodelled).push_back(c);
  std::vector<double> us;
  for (const StepChoice& c : modelled) us.push_back(step_model_us(*model_of(c.step, f.vec), sh, c.splits, f.sms, dbl ? 8 : 4));
  // The unmodelled forms that take modelled step c's rank, measured just before it (each once):
  // gemm14's two forms before the 128² tile they run, gemm13's stream-K form before gemm13
  // unsplit where stream_first; a stream-K form ahead of an unsplit one where stream_first.
  const auto takes_rank_of = [&](StepChoice u, StepChoice c) {
    if (c.step == Step::g11_128pf) return u.step == Step::g14 || u.step == Step::g14_stream;
    return c.step == Step::g13 && c.splits == 1 && u.step == Step::g13_stream && stream_first(sh);
  };
  const auto is_stream = [](StepChoice u) { return u.step == Step::g14_stream || u.step == Step::g13_stream; };
  std::vector<bool> placed(unmodelled.size(), false);
  for (int i : shortlist(us)) {
    const StepChoice& c = modelled[static_cast<std::size_t>(i)];
    for (const bool stream : {stream_first(sh), !stream_first(sh)})
      for (std::size_t k = 0; k < unmodelled.size(); ++k)
        if (!placed[k] && is_stream(unmodelled[k]) == stream && takes_rank_of(unmodelled[k], c))
          out.push_back(unmodelled[k]), placed[k] = true;
    out.push_back(c);
  }
  for (std::size_t k = 0; k < unmodelled.size(); ++k)
    if (!placed[k]) out.push_back(unmodelled[k]);
  return out;
}

// The tiles (i, j), i <= j, of a T × T tile grid (A·Aᵀ's triangle): T(T + 1)/2.
inline long long triangle_tiles(int M, int tile) {
  const long long T = div_up(M, tile);
  return T * (T + 1) / 2;
}

// Workspace of a split product: one M × N slice per used slice, none without a split.
inline std::size_t splitk_workspace(GemmShape sh, int splits, int bk, std::size_t elem_bytes) {
  const int used = used_splits(sh.K, splits, bk);
  return used > 1 ? std::size_t(used) * sh.M * sh.N * elem_bytes : 0;
}

// The rounding depth of a split product: each output is a chain of at most k_per_split products
// (its slice) followed by used - 1 additions of the other slices' partial sums (<= K).
inline double splitk_depth(int K, int splits, int bk) {
  const int ks = k_per_split(K, splits, bk);
  return std::min(K, ks) + (used_splits(K, splits, bk) - 1);
}

}  // namespace kl::gemm_plan
