// The arithmetic of the scan ladder, as pure functions of their inputs: how n elements fall into
// tiles, how a tile's status (its aggregate or its inclusive prefix, and which of the two) is kept
// in one 64-bit word or in a flag beside two values, which predecessor each lane of a look-back
// window reads and which of them it adds, how the workspace is laid out, and the rounding depth
// of every step's summation order. The kernels call exactly these functions and the host suite
// checks them without a GPU (tests/host/test_scan_plan.cpp): tiles cover [0, n) once, a packed
// word gives back its flag and value bit for bit and is never mistaken for an empty one, a
// simulated look-back over any mix of finished and unfinished predecessors adds every earlier
// aggregate exactly once, the workspace regions do not overlap, and the declared depths are at
// least the heights of the trees the algorithms build. Host-compilable: no CUDA header.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define KL_SCAN_HD __host__ __device__ __forceinline__
#else
#define KL_SCAN_HD inline
#endif

namespace kl::scan_plan {

// ---- tiles ---------------------------------------------------------------------------------
// A tile is a run of `tile` consecutive elements; the last one may be partial. 64-bit throughout:
// n goes to 2^36.
KL_SCAN_HD std::size_t tile_count(std::size_t n, std::size_t tile) { return n / tile + (n % tile != 0); }
KL_SCAN_HD std::size_t tile_begin(std::size_t t, std::size_t tile) { return t * tile; }
// Elements of tile t that exist (tile for every tile but a partial last one).
KL_SCAN_HD std::size_t tile_valid(std::size_t n, std::size_t t, std::size_t tile) {
  const std::size_t b = t * tile;
  return n - b < tile ? n - b : tile;
}

// ---- status of a tile in the single-pass steps (scan7, scan8, scan9) ------------------------
// kInvalid: nothing published yet (the launcher zeroes the status words on the stream);
// kAggregate: the tile's own sum is there (decoupled look-back publishes it as soon as the tile
// is scanned); kInclusive: the sum of every element up to the tile's end is there.
enum : unsigned { kInvalid = 0, kAggregate = 1, kInclusive = 2 };

// 4-byte element types keep a tile's status in one 64-bit word, the value's bits above the flag:
// one aligned 64-bit store publishes both at once and one load reads a consistent pair, so no
// fence is needed between value and flag (Merrill & Garland's single-word status). A zeroed word
// is kInvalid whatever value bits it has.
template <class T>
KL_SCAN_HD std::uint64_t pack_status(unsigned flag, T value) {
  static_assert(sizeof(T) == 4, "packed status words carry 4-byte values");
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (static_cast<std::uint64_t>(bits) << 32) | flag;
}
KL_SCAN_HD unsigned status_flag(std::uint64_t word) { return static_cast<unsigned>(word & 0xffffffffu); }
template <class T>
KL_SCAN_HD T status_value(std::uint64_t word) {
  static_assert(sizeof(T) == 4, "packed status words carry 4-byte values");
  const auto bits = static_cast<std::uint32_t>(word >> 32);
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
// 8-byte element types cannot share one 64-bit word with a flag, and a 16-byte load is not one
// single-copy-atomic access in the PTX memory model: they keep a 32-bit flag per tile beside two
// value arrays (aggregate, inclusive prefix), each value written once before its flag is stored
// with release semantics and read after the flag is loaded with acquire semantics.
template <class T>
constexpr bool kPackedStatus = sizeof(T) == 4;

// ---- the look-back window --------------------------------------------------------------------
// A warp reads 32 predecessors at a time: lane l of window w of tile `tile` reads tile
// tile - 1 - 32·w - l (the nearest predecessor in lane 0). A negative index is before tile 0:
// that lane reads nothing and counts as an inclusive prefix of 0 (tile 0 always publishes its
// inclusive prefix, so the walk stops there at the latest).
constexpr int kWindow = 32;
KL_SCAN_HD long long window_predecessor(long long tile, int window, int lane) {
  return tile - 1 - static_cast<long long>(kWindow) * window - lane;
}
// The nearest lane whose predecessor holds its inclusive prefix (bit l of `inclusive`: lane l's
// does), or -1: the walk moves to the next window. Needs every lane's flag valid first.
KL_SCAN_HD int nearest_inclusive_lane(unsigned inclusive) {
  if (inclusive == 0) return -1;
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(inclusive)) - 1;
#else
  int l = 0;
  while (!((inclusive >> l) & 1u)) ++l;
  return l;
#endif
}
// Whether lane `lane` adds its predecessor's aggregate to the running sum: the lanes before the
// nearest inclusive prefix, or every lane when the window holds none.
KL_SCAN_HD bool lane_adds_aggregate(int lane, int nearest) { return nearest < 0 || lane < nearest; }

// The walk done one lane at a time on the host, with the functions above, for the host suite:
// read(p) gives predecessor p's {flag, value}. Returns the exclusive prefix of `tile` (the nearest
// inclusive prefix plus the aggregates after it), and the windows it took. The device walk
// (handwritten/scan/scan_common.cuh, lookback_exclusive) does the same per warp with ballots and
// a shuffle sum, waiting while any lane's flag is kInvalid.
template <class T>
struct WalkResult {
  T exclusive;
  int windows;
};
template <class T, class Read>
WalkResult<T> walk_lookback(long long tile, Read read) {
  T aggregates = T(0), inclusive = T(0);
  for (int w = 0;; ++w) {
    unsigned flags[kWindow];
    T values[kWindow];
    unsigned ballot = 0;
    for (int l = 0; l < kWindow; ++l) {
      const long long p = window_predecessor(tile, w, l);
      if (p < 0) {
        flags[l] = kInclusive;
        values[l] = T(0);
      } else {
        const auto s = read(p);
        flags[l] = s.flag;
        values[l] = s.value;
      }
      if (flags[l] == kInclusive) ballot |= 1u << l;
    }
    const int nearest = nearest_inclusive_lane(ballot);
    T window_sum = T(0);
    for (int l = 0; l < kWindow; ++l)
      if (lane_adds_aggregate(l, nearest)) window_sum += values[l];
    aggregates += window_sum;
    if (nearest >= 0) {
      inclusive = values[nearest];
      return {inclusive + aggregates, w + 1};
    }
  }
}

// ---- workspace layouts -----------------------------------------------------------------------
constexpr std::size_t kAlign = 256;
KL_SCAN_HD std::size_t align_up(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// The single-pass steps: a tile counter (the next tile index to hand out), then the status of
// every tile. One memset of `zero_bytes` from the start clears the counter and every flag (packed
// words hold their flag); the value arrays of the split layout need none (read only after their
// flag). Offsets in bytes from the workspace's start.
struct StatusLayout {
  std::size_t counter = 0;  // unsigned int
  std::size_t words = 0;    // packed: tiles × uint64; split: tiles × uint32 flags
  std::size_t aggregates = 0, inclusives = 0;  // split only: tiles × T each
  std::size_t zero_bytes = 0;
  std::size_t total = 0;
};
inline StatusLayout status_layout(std::size_t tiles, std::size_t value_bytes) {
  StatusLayout l;
  l.counter = 0;
  l.words = kAlign;
  if (value_bytes == 4) {
    l.zero_bytes = l.words + tiles * sizeof(std::uint64_t);
    l.total = align_up(l.zero_bytes);
  } else {
    l.zero_bytes = l.words + tiles * sizeof(std::uint32_t);
    l.aggregates = align_up(l.zero_bytes);
    l.inclusives = l.aggregates + align_up(tiles * value_bytes);
    l.total = l.inclusives + align_up(tiles * value_bytes);
  }
  return l;
}

// The multi-level steps (scan2 to scan5): level 0 scans the input's tiles and writes each tile's
// total; while more than one tile is left, the totals are scanned the same way (level 1, 2, ...),
// and each level's scanned totals are added back to the tiles of the level below. lens[l]: the
// number of totals level l + 1 scans (lens[0] = tiles of the input). Each level keeps its totals
// and their scan: two arrays of lens[l] elements.
inline std::vector<std::size_t> multilevel_lens(std::size_t n, std::size_t tile) {
  std::vector<std::size_t> lens;
  for (std::size_t len = n; len > tile;) {
    len = tile_count(len, tile);
    lens.push_back(len);
  }
  return lens;
}
struct LevelBuffers {
  std::size_t totals, scanned;  // byte offsets
};
inline std::vector<LevelBuffers> multilevel_layout(std::size_t n, std::size_t tile, std::size_t value_bytes,
                                                   std::size_t* total_bytes = nullptr) {
  std::vector<LevelBuffers> out;
  std::size_t at = 0;
  for (std::size_t len : multilevel_lens(n, tile)) {
    const std::size_t b = align_up(len * value_bytes);
    out.push_back({at, at + b});
    at += 2 * b;
  }
  if (total_bytes) *total_bytes = at;
  return out;
}

// Reduce-then-scan (scan6): the tiles are shared out in contiguous segments of `per_segment`
// tiles, one segment per block of the two passes over the input, at most `max_blocks` segments.
struct Segments {
  std::size_t tiles = 0, per_segment = 0, blocks = 0;
};
inline Segments segment_plan(std::size_t n, std::size_t tile, std::size_t max_blocks) {
  Segments s;
  s.tiles = tile_count(n, tile);
  s.per_segment = tile_count(s.tiles, max_blocks);
  s.blocks = tile_count(s.tiles, s.per_segment);
  return s;
}

// ---- rounding depths ---------------------------------------------------------------------------
// The height of the summation tree of the worst output element: the most roundings any input
// goes through on its way to any output (compare/core/tolerance.hpp: the bound is
// gamma(depth)·sum|x_0..x_i| for element i). Each function is an upper bound for the order its
// step computes, derived in its comment; tests/host/test_scan_plan.cpp builds the trees of the
// block-level orders and checks that no leaf is deeper than declared.

KL_SCAN_HD int ceil_log2(std::size_t x) {
  int l = 0;
  while ((std::size_t{1} << l) < x) ++l;
  return l;
}

// Hillis and Steele over `len` elements (one block): element i adds at the steps whose distance
// 2^s is at most i, so ceil(log2(i + 1)) roundings; the exclusive form reads element i - 1's.
inline double hillis_steele_depth(std::size_t len) { return ceil_log2(len > 1 ? len : 2); }

// Blelloch's up-sweep and down-sweep over a tile of 2^L elements. The up-sweep's node at level l
// holds a balanced sum of height l; the down-sweep gives a right child its parent's value plus the
// left sibling's up-sweep sum (height l - 1), so a node at level l holds a value of height at
// most max(h(parent), l) + 1: L at level L - 1, L + 1 at L - 2, ..., 2L - 1 at the leaves
// (exclusive). The inclusive form adds the element itself: 2L. The tile's total is the up-sweep's
// root: L.
struct TileDepths {
  double inclusive, exclusive, total;
  double local(bool incl) const { return incl ? inclusive : exclusive; }
};
inline TileDepths blelloch_depths(std::size_t tile) {
  const double L = ceil_log2(tile);
  return {2 * L, 2 * L - 1, L};
}
inline TileDepths hillis_steele_depths(std::size_t tile) {
  const double L = ceil_log2(tile);
  return {L, L, L};
}

// The block scan of scan5 onwards (scan_common.cuh, block_scan): each thread scans its `items`
// consecutive elements in order (items - 1 roundings), a warp's 32 thread totals are scanned with
// shuffles (Kogge-Stone: 5), the warps' totals by one warp (ceil(log2(warps))), the thread's
// prefix is its warp's plus its own within the warp (1), the tile's prefix is added to it (1) and
// the result to each element's local prefix (1): items + 7 + ceil(log2(warps)). The tile's
// aggregate is the last warp's inclusive total: items + 4 + ceil(log2(warps)).
inline TileDepths block_scan_depths(int items, int threads) {
  const double lw = ceil_log2(static_cast<std::size_t>(threads / 32));
  return {items + 7 + lw, items + 7 + lw, items + 4 + lw};
}

// scan9's warp-striped block scan (scan_common.cuh, StripedScan) with `items` elements per thread
// in vectors of `width`, V = items / width of them: each vector scanned in order (width - 1), each
// row's 32 vector totals by shuffles (5), the rows before a vector chained (one per row), the
// lanes before it in its row added (1): a vector's prefix within the warp is at most
// width + 3 + max(V, 2) high, the warp's total width + V + 3; the warps' totals scanned
// (ceil(log2(warps))); then y = (E + (warp's prefix + vector's prefix)) + local (3).
inline TileDepths striped_scan_depths(int items, int width, int threads) {
  const double lw = ceil_log2(static_cast<std::size_t>(threads / 32));
  const double v = items / width, w = width;
  const double warp_total = w + v + 3;
  const double vector_prefix = w + 3 + (v > 2 ? v : 2);
  const double thread_prefix = (warp_total + lw > vector_prefix ? warp_total + lw : vector_prefix) + 1;
  return {thread_prefix + 2, thread_prefix + 2, warp_total + lw};
}

// Multi-level scan-then-propagate over n elements with tiles of `tile`: a single tile is its
// tile's depth; otherwise element y = local + offset, the offset being the inclusive scan of the
// tiles' totals at the level above (leaves of height d.total, scanned with this same depth), so
// depth(n) = max(local, total + depth(tiles)) + 1.
inline double multilevel_depth(std::size_t n, std::size_t tile, TileDepths d, bool inclusive) {
  if (n <= tile) return d.local(inclusive);
  const double above = multilevel_depth(tile_count(n, tile), tile, d, true);
  const double local = d.local(inclusive);
  return (local > d.total + above ? local : d.total + above) + 1;
}

// A chained scan (scan7): tile k's inclusive prefix is tile k-1's plus its aggregate (height
// h_A + k, tile 0's being its aggregate), its exclusive prefix tile k-1's inclusive one; an
// element adds that prefix to its thread's prefix and to its local one (2 more). So
// max(local, h_A + tiles).
inline double chained_depth(std::size_t tiles, TileDepths d) {
  const double chain = d.total + static_cast<double>(tiles);
  return d.local(true) > chain ? d.local(true) : chain;
}

// Decoupled look-back (scan8, scan9): tile k finds the nearest inclusive prefix P_j (j < k) and the
// aggregates S of the tiles between, S summed by a 5-level shuffle tree per window and chained
// across its W windows (S: h_A + 5 + W - 1 high, W <= k - j); it publishes P_k = P_j + (S + A_k)
// and takes E_k = P_j + S. By induction P_k is at most h_A + 6 + k high: P_j's path gains one
// rounding (h_A + 7 + j <= h_A + 6 + k), the aggregates' paths h_A + 6 + W <= h_A + 6 + k; E_k
// likewise. The element adds 2, and k <= tiles - 1: max(local, tiles + h_A + 7). The predecessor
// always done (j = k - 1) reaches it.
inline double lookback_depth(std::size_t tiles, TileDepths d) {
  const double chain = static_cast<double>(tiles) + d.total + 7;
  return d.local(true) > chain ? d.local(true) : chain;
}

// Reduce-then-scan (scan6) over `seg` segments of `per` tiles: the first pass sums each segment
// (each thread `per`·items terms in order, then a shuffle tree of 5 + log2(warps)); the spine
// scans the segment sums with one block of 1024 threads (block_scan over chunks of 1024, a carry
// chained across ceil(seg / 1024) chunks); the second pass starts each segment from its offset
// and chains a carry across its tiles (one rounding each), each tile scanned by block_scan.
inline double reduce_then_scan_depth(Segments s, int items, int threads, bool inclusive) {
  const double lw = ceil_log2(static_cast<std::size_t>(threads / 32));
  const double segment_sum = static_cast<double>(s.per_segment) * items + 5 + lw;
  // The spine's chunk c >= 1 starts from a carry of height segment_sum + h_A + c (h_A: 10), so its
  // outputs are at most max(segment_sum + local (13), carry + 2) high: segment_sum + 13 +
  // max(0, chunks - 2) over all chunks. One segment uses no offset.
  const TileDepths spine = block_scan_depths(1, 1024);
  const double chunks = static_cast<double>(tile_count(s.blocks, std::size_t{1024}));
  const double offset = s.blocks > 1 ? segment_sum + spine.local(true) + (chunks > 2 ? chunks - 2 : 0) : 0;
  const TileDepths tile = block_scan_depths(items, threads);
  // The carry before the segment's tile k: max(offset, h_A) + k, k < per; an element: the carry + 2.
  const double carry = (offset > tile.total ? offset : tile.total) + static_cast<double>(s.per_segment) - 1;
  const double local = tile.local(inclusive);
  return (local > carry + 2 ? local : carry + 2);
}

// Whether a chain of `depth` roundings in T is too long for any bound: gamma(depth) >= 1
// (depth·u >= 1/2) lets anything within sum|x| of the truth pass, which the runner fails as
// meaningless; a step declares such a size unsupported instead. Integers: never (exact).
template <class T>
bool depth_too_long(double depth) {
  if constexpr (std::is_integral_v<T>) return false;
  else return depth * (std::numeric_limits<T>::epsilon() / 2) >= 0.5;
}

}  // namespace kl::scan_plan
