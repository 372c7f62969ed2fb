// How the k of a product is cut across blocks, as pure functions of the shape (the host suite
// checks them: tests/host/test_gemm_plan.cpp):
//   split-K   block z of a split product computes k in [z·k_split, (z+1)·k_split) into its own
//             slice of the workspace, and an ordered reduction adds the slices (gemm10, gemm11,
//             gemm13, the A·Aᵀ steps);
//   stream-K  one block per SM, each the same number of k tiles of the whole product across tile
//             boundaries, partial tiles added by a fixup in k order (gemm11_pf, gemm13, gemm14).
// Host-compilable: no CUDA headers beyond the contract's.
#pragma once

#include "common/args/gemm_args.hpp"
#include "handwritten/gemm/gemm_plan.hpp"

#include <algorithm>
#include <cstddef>

namespace kl::gemm_plan {

// ---- tiles ------------------------------------------------------------------------------------
// Output tiles of bm × bn.
inline long long tiles_of(GemmShape s, int bm, int bn) {
  return static_cast<long long>(div_up(s.M, bm)) * div_up(s.N, bn);
}

// The tiles (i, j), i <= j, of a T × T tile grid (A·Aᵀ's triangle): T(T + 1)/2.
inline long long triangle_tiles(int M, int tile) {
  const long long T = div_up(M, tile);
  return T * (T + 1) / 2;
}

// Multiply-adds × 2 of the triangle's tiles (i <= j; TILE × TILE, the last ones cut at M), the
// diagonal tiles whole: sum over i <= j of rows(i)·rows(j)·K = K·((sum rows)² + sum rows²) / 2.
inline double triangle_flops(AatShape s, int tile) {
  const long long T = div_up<long long>(s.M, tile), last = s.M - (T - 1) * tile;
  const double sq = static_cast<double>(T - 1) * tile * tile + static_cast<double>(last) * last;
  return static_cast<double>(s.K) * (static_cast<double>(s.M) * s.M + sq);
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
// The plan in int (StreamKInt): true where every count the walk forms fits (the run plus one
// tile's kt, where the kernel looks for its next segment's end; b·q + q; the tiles, and the
// raster's 8·tiles_n and tile ids in unsigned); elsewhere the launcher runs the product unsplit.
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

}  // namespace kl::gemm_plan
