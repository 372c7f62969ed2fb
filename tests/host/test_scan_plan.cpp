// The arithmetic of the scan ladder (handwritten/scan/scan_plan.hpp), checked without a GPU: the
// kernels call exactly these functions, so a tile missed or visited twice, a status word that
// loses its value or its flag, a look-back that adds an aggregate twice or stops too early, two
// workspace regions that overlap, or a declared rounding depth below the height of the tree the
// algorithm really builds fails here, before any GPU run.
//
// The depths are checked against the trees themselves: each block-level order (Hillis-Steele,
// Blelloch's sweeps, the shuffle block scan) and each way of joining tiles (scan-then-propagate,
// reduce-then-scan, the chained and the decoupled look-back prefixes, over random and worst-case
// schedules) is replayed on heights (a + b has height max(h(a), h(b)) + 1), and no output may be
// deeper than the step declares.
#include "handwritten/scan/scan_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <vector>

using namespace kl::scan_plan;

namespace {

using H = std::vector<double>;  // the heights of a sequence of values
double add(double a, double b) { return std::max(a, b) + 1; }
double max_of(const H& h) { return h.empty() ? 0 : *std::max_element(h.begin(), h.end()); }

struct TileOut {
  H incl, excl;
  double total;
};

// Hillis-Steele over a tile of B (the kernel's loop: every element at every step d < B), leaves
// past the given ones 0 (height 0, added all the same).
TileOut hillis_steele(H leaves, std::size_t B) {
  leaves.resize(B, 0);
  H h = leaves;
  for (std::size_t d = 1; d < B; d <<= 1) {
    H next = h;
    for (std::size_t i = d; i < B; ++i) next[i] = add(h[i], h[i - d]);
    h = next;
  }
  TileOut o{h, H(B, 0), h[B - 1]};
  for (std::size_t i = 1; i < B; ++i) o.excl[i] = h[i - 1];
  return o;
}

// Blelloch's sweeps (scan3's loops), inclusive = exclusive + the element.
TileOut blelloch(H leaves, std::size_t B) {
  leaves.resize(B, 0);
  H t = leaves;
  std::size_t offset = 1;
  for (std::size_t d = B >> 1; d > 0; d >>= 1) {
    for (std::size_t th = 0; th < d; ++th) {
      const std::size_t ai = offset * (2 * th + 1) - 1, bi = offset * (2 * th + 2) - 1;
      t[bi] = add(t[bi], t[ai]);
    }
    offset *= 2;
  }
  const double total = t[B - 1];
  t[B - 1] = 0;
  for (std::size_t d = 1; d < B; d *= 2) {
    offset >>= 1;
    for (std::size_t th = 0; th < d; ++th) {
      const std::size_t ai = offset * (2 * th + 1) - 1, bi = offset * (2 * th + 2) - 1;
      const double a = t[ai];
      t[ai] = t[bi];
      t[bi] = add(t[bi], a);
    }
  }
  TileOut o{H(B), t, total};
  for (std::size_t i = 0; i < B; ++i) o.incl[i] = add(t[i], leaves[i]);
  return o;
}

// Kogge-Stone over 32 lanes (warp_inclusive_scan).
H warp_scan(H v) {
  for (std::size_t d = 1; d < 32; d <<= 1) {
    H next = v;
    for (std::size_t l = d; l < 32; ++l) next[l] = add(v[l], v[l - d]);
    v = next;
  }
  return v;
}

// scan_common.cuh's BlockScan followed by write_prefixes, from a tile prefix of height hE.
TileOut block_scan(H leaves, int items, int threads, double hE = 0) {
  const std::size_t B = static_cast<std::size_t>(items) * threads;
  leaves.resize(B, 0);
  const int warps = threads / 32;
  H x = leaves;  // per thread, in place
  H thread_total(threads);
  for (int t = 0; t < threads; ++t) {
    for (int j = 1; j < items; ++j) x[t * items + j] = add(x[t * items + j], x[t * items + j - 1]);
    thread_total[t] = x[t * items + items - 1];
  }
  H in_warp(threads), warp_incl(32, 0);
  for (int w = 0; w < warps; ++w) {
    const H incl = warp_scan(H(thread_total.begin() + 32 * w, thread_total.begin() + 32 * w + 32));
    for (int l = 0; l < 32; ++l) in_warp[32 * w + l] = l == 0 ? 0 : incl[l - 1];
    warp_incl[w] = incl[31];
  }
  const H warps_scanned = warp_scan(warp_incl);
  TileOut o{H(B), H(B), warps_scanned[warps - 1]};
  for (int t = 0; t < threads; ++t) {
    const int w = t / 32;
    const double prefix = add(w == 0 ? 0 : warps_scanned[w - 1], in_warp[t]);
    const double base = add(hE, prefix);
    for (int j = 0; j < items; ++j) {
      o.incl[t * items + j] = add(base, x[t * items + j]);
      o.excl[t * items + j] = j == 0 ? base : add(base, x[t * items + j - 1]);
    }
  }
  return o;
}

// scan_common.cuh's StripedScan followed by its write(), from a tile prefix of height hE: warp w's
// lane l holds vectors k at positions k·32 + l of the warp's run.
TileOut striped_scan(H leaves, int items, int width, int threads, double hE = 0) {
  const std::size_t B = static_cast<std::size_t>(items) * threads;
  leaves.resize(B, 0);
  const int warps = threads / 32, V = items / width;
  const auto at = [&](int w, int k, int l, int e) {
    return static_cast<std::size_t>(w) * 32 * items + (static_cast<std::size_t>(k) * 32 + l) * width + e;
  };
  H x = leaves;
  std::vector<H> t(threads, H(V));
  H warp_total(32, 0);
  for (int w = 0; w < warps; ++w) {
    double rows = 0;
    for (int k = 0; k < V; ++k) {
      H totals(32);
      for (int l = 0; l < 32; ++l) {
        for (int e = 1; e < width; ++e) x[at(w, k, l, e)] = add(x[at(w, k, l, e)], x[at(w, k, l, e - 1)]);
        totals[l] = x[at(w, k, l, width - 1)];
      }
      const H r = warp_scan(totals);
      for (int l = 0; l < 32; ++l) t[32 * w + l][k] = add(rows, l == 0 ? 0 : r[l - 1]);
      rows = k == 0 ? r[31] : add(rows, r[31]);
    }
    warp_total[w] = rows;
  }
  const H scanned = warp_scan(warp_total);
  TileOut o{H(B), H(B), scanned[warps - 1]};
  for (int w = 0; w < warps; ++w)
    for (int l = 0; l < 32; ++l)
      for (int k = 0; k < V; ++k) {
        const double base = add(hE, add(w == 0 ? 0 : scanned[w - 1], t[32 * w + l][k]));
        for (int e = 0; e < width; ++e) {
          o.incl[at(w, k, l, e)] = add(base, x[at(w, k, l, e)]);
          o.excl[at(w, k, l, e)] = e == 0 ? base : add(base, x[at(w, k, l, e - 1)]);
        }
      }
  return o;
}

// scan-then-propagate (run_multilevel) over leaves with tile algorithm f.
template <class F>
H multilevel(const H& leaves, std::size_t B, F f, bool incl) {
  const std::size_t n = leaves.size();
  const std::size_t tiles = tile_count(n, B);
  H local(n), totals(tiles);
  for (std::size_t b = 0; b < tiles; ++b) {
    const TileOut r = f(H(leaves.begin() + b * B, leaves.begin() + b * B + tile_valid(n, b, B)));
    for (std::size_t i = 0; i < tile_valid(n, b, B); ++i) local[b * B + i] = incl ? r.incl[i] : r.excl[i];
    totals[b] = r.total;
  }
  if (tiles == 1) return local;
  const H scanned = multilevel(totals, B, f, true);
  for (std::size_t i = B; i < n; ++i) local[i] = add(local[i], scanned[i / B - 1]);
  return local;
}

}  // namespace

TEST_CASE("tiles: every element in exactly one tile, the last one partial") {
  for (std::size_t tile : {1u, 2u, 3u, 1024u, 3072u, 8192u})
    for (std::size_t n : {1u, 2u, 31u, 33u, 1023u, 1024u, 1025u, 3071u, 3072u, 3073u, 100003u}) {
      CAPTURE(tile);
      CAPTURE(n);
      const std::size_t tiles = tile_count(n, tile);
      std::size_t covered = 0;
      for (std::size_t t = 0; t < tiles; ++t) {
        REQUIRE(tile_begin(t, tile) == covered);
        const std::size_t v = tile_valid(n, t, tile);
        REQUIRE(v >= 1);
        REQUIRE(v <= tile);
        if (t + 1 < tiles) REQUIRE(v == tile);
        covered += v;
      }
      CHECK(covered == n);
    }
  // 64-bit: 2^36 elements in tiles of 3072.
  const std::size_t big = std::size_t{1} << 36;
  CHECK(tile_count(big, 3072) == (big + 3071) / 3072);
  CHECK(tile_begin(tile_count(big, 3072) - 1, 3072) + tile_valid(big, tile_count(big, 3072) - 1, 3072) == big);
}

TEST_CASE("packed status words: flag and value come back bit for bit; an empty word is never valid") {
  std::vector<float> fs = {0.0f, -0.0f, 1.0f, -1.5f, 3.4e38f, -3.4e38f, 1e-45f, std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), 16777217.0f, 2049.0f};
  std::vector<int> is = {0, 1, -1, 2147483647, -2147483647 - 1, 0x5eadbeef, -1000};
  for (unsigned flag : {kAggregate, kInclusive}) {
    for (float f : fs) {
      const std::uint64_t w = pack_status(flag, f);
      CHECK(status_flag(w) == flag);
      const float back = status_value<float>(w);
      CHECK(std::memcmp(&back, &f, sizeof f) == 0);
      CHECK(w != 0);  // a published word is never the cleared one
    }
    for (int i : is) {
      const std::uint64_t w = pack_status(flag, i);
      CHECK(status_flag(w) == flag);
      CHECK(status_value<int>(w) == i);
      CHECK(w != 0);
    }
  }
  CHECK(status_flag(0) == kInvalid);
  CHECK(kPackedStatus<float>);
  CHECK(kPackedStatus<int>);
  CHECK_FALSE(kPackedStatus<double>);
}

TEST_CASE("the look-back window: lanes read each predecessor once, nearest first") {
  for (long long tile : {1LL, 2LL, 31LL, 32LL, 33LL, 64LL, 100LL, 1000LL}) {
    std::set<long long> seen;
    for (int w = 0; w * kWindow < tile; ++w)
      for (int l = 0; l < kWindow; ++l) {
        const long long p = window_predecessor(tile, w, l);
        CHECK(p < tile);
        if (p >= 0) CHECK(seen.insert(p).second);
        if (l > 0) CHECK(window_predecessor(tile, w, l - 1) == p + 1);  // lane 0 the nearest
      }
    CHECK(seen.size() == static_cast<std::size_t>(tile));  // every predecessor, down to tile 0
  }
  CHECK(nearest_inclusive_lane(0) == -1);
  CHECK(nearest_inclusive_lane(1u) == 0);
  CHECK(nearest_inclusive_lane(0x80000000u) == 31);
  CHECK(nearest_inclusive_lane(0x00f00010u) == 4);
  CHECK(lane_adds_aggregate(0, -1));
  CHECK(lane_adds_aggregate(31, -1));
  CHECK(lane_adds_aggregate(3, 4));
  CHECK_FALSE(lane_adds_aggregate(4, 4));  // the inclusive prefix itself is not an aggregate
  CHECK_FALSE(lane_adds_aggregate(5, 4));
}

namespace {
struct Status {
  unsigned flag;
  long long value;
};

// Tiles 0..K-1 with random aggregates, each published as an inclusive prefix with probability
// `p_inclusive` (tile 0 always): every tile's walk must return exactly the sum of the aggregates
// before it, and take the windows down to its nearest inclusive prefix.
void check_walks(std::size_t K, double p_inclusive, std::mt19937_64& g) {
  std::vector<long long> agg(K), incl(K);
  std::vector<Status> st(K);
  std::uniform_int_distribution<int> v(-1000, 1000);
  std::bernoulli_distribution is_incl(p_inclusive);
  long long run = 0;
  for (std::size_t k = 0; k < K; ++k) {
    agg[k] = v(g);
    run += agg[k];
    incl[k] = run;
    st[k] = (k == 0 || is_incl(g)) ? Status{kInclusive, incl[k]} : Status{kAggregate, agg[k]};
  }
  for (std::size_t k = 1; k < K; ++k) {
    CAPTURE(k);
    const auto r = walk_lookback<long long>(static_cast<long long>(k), [&](long long p) { return st.at(static_cast<std::size_t>(p)); });
    REQUIRE(r.exclusive == incl[k - 1]);
    std::size_t j = k - 1;
    while (st[j].flag != kInclusive) --j;
    CHECK(r.windows == static_cast<int>((k - 1 - j) / kWindow) + 1);
  }
}
}  // namespace

TEST_CASE("the look-back walk adds every earlier aggregate exactly once, whatever was published") {
  std::mt19937_64 g(12345);
  check_walks(300, 0.0, g);   // only tile 0 inclusive: every walk goes back to tile 0, up to 10 windows
  check_walks(300, 1.0, g);   // every predecessor inclusive: one lane read
  check_walks(300, 0.5, g);
  check_walks(1000, 0.03, g);  // nearest inclusive prefixes often more than a window back
  // An inclusive prefix exactly at a window's last lane, and just past it.
  for (std::size_t back : {31u, 32u, 33u, 64u}) {
    const std::size_t K = 200, k = 150;
    std::vector<Status> st(K, Status{kAggregate, 1});
    st[0] = {kInclusive, 1};
    st[k - 1 - back] = {kInclusive, static_cast<long long>(k - back)};
    const auto r = walk_lookback<long long>(static_cast<long long>(k), [&](long long p) { return st.at(static_cast<std::size_t>(p)); });
    CAPTURE(back);
    CHECK(r.exclusive == static_cast<long long>(k));
    CHECK(r.windows == static_cast<int>(back / kWindow) + 1);
  }
}

TEST_CASE("workspace layouts: regions in order, aligned, the memset covering the counter and every flag") {
  for (std::size_t tiles : {1u, 2u, 33u, 1000u, 87382u}) {
    for (std::size_t vb : {4u, 8u}) {
      CAPTURE(tiles);
      CAPTURE(vb);
      const StatusLayout l = status_layout(tiles, vb);
      CHECK(l.counter == 0);
      CHECK(l.words >= sizeof(unsigned));
      CHECK(l.words % 8 == 0);
      const std::size_t word = vb == 4 ? 8 : 4;
      CHECK(l.zero_bytes == l.words + tiles * word);
      if (vb == 8) {
        CHECK(l.aggregates >= l.zero_bytes);  // values need no clearing and are not cleared
        CHECK(l.aggregates % kAlign == 0);
        CHECK(l.inclusives >= l.aggregates + tiles * vb);
        CHECK(l.total >= l.inclusives + tiles * vb);
      } else {
        CHECK(l.total >= l.zero_bytes);
      }
    }
  }
  for (std::size_t tile : {8u, 1024u})
    for (std::size_t n : {1u, 8u, 9u, 64u, 65u, 1025u, 1048576u, 1048577u, 100000000u}) {
      CAPTURE(tile);
      CAPTURE(n);
      const auto lens = multilevel_lens(n, tile);
      std::size_t len = n;
      for (std::size_t l : lens) {
        CHECK(l == tile_count(len, tile));
        len = l;
      }
      CHECK(len <= tile);  // the top level is one tile
      if (n <= tile) CHECK(lens.empty());
      std::size_t total = 0;
      const auto bufs = multilevel_layout(n, tile, 8, &total);
      REQUIRE(bufs.size() == lens.size());
      std::size_t at = 0;
      for (std::size_t i = 0; i < bufs.size(); ++i) {
        CHECK(bufs[i].totals >= at);
        CHECK(bufs[i].scanned >= bufs[i].totals + lens[i] * 8);
        at = bufs[i].scanned + lens[i] * 8;
      }
      CHECK(total >= at);
    }
}

TEST_CASE("reduce-then-scan's segments: every tile in one segment, none empty, at most the blocks asked for") {
  for (std::size_t max_blocks : {1u, 7u, 528u})
    for (std::size_t n : {1u, 1024u, 1025u, 999983u, 268435456u}) {
      CAPTURE(max_blocks);
      CAPTURE(n);
      const Segments s = segment_plan(n, 1024, max_blocks);
      CHECK(s.blocks >= 1);
      CHECK(s.blocks <= max_blocks);
      CHECK(s.blocks * s.per_segment >= s.tiles);
      CHECK((s.blocks - 1) * s.per_segment < s.tiles);  // the last segment has a tile
    }
}

TEST_CASE("Hillis-Steele and Blelloch: no output deeper than declared") {
  for (std::size_t n : {1u, 2u, 3u, 31u, 33u, 1000u, 1024u}) {
    CAPTURE(n);
    const TileOut o = hillis_steele(H(n, 0), 1024);
    CHECK(max_of(H(o.incl.begin(), o.incl.begin() + n)) <= hillis_steele_depth(n));
    CHECK(max_of(H(o.excl.begin(), o.excl.begin() + n)) <= hillis_steele_depth(n));
  }
  const TileDepths hs = hillis_steele_depths(1024), bl = blelloch_depths(1024);
  const TileOut h = hillis_steele(H(1024, 0), 1024), b = blelloch(H(1024, 0), 1024);
  CHECK(max_of(h.incl) <= hs.inclusive);
  CHECK(h.total <= hs.total);
  CHECK(max_of(b.excl) <= bl.exclusive);
  CHECK(max_of(b.incl) <= bl.inclusive);
  CHECK(b.total <= bl.total);
  // Blelloch's bound is tight (2 log2 B - 1 on the last leaf): a smaller declaration would fail.
  CHECK(max_of(b.excl) == bl.exclusive);
}

TEST_CASE("the shuffle block scan: no output deeper than declared, for every shape the ladder uses") {
  for (auto [items, threads] : std::vector<std::pair<int, int>>{{1, 1024}, {2, 512}, {16, 512}, {8, 512}, {24, 128},
                                                                 {12, 128}, {16, 256}, {8, 256}, {4, 32}}) {
    CAPTURE(items);
    CAPTURE(threads);
    const TileDepths d = block_scan_depths(items, threads);
    const TileOut o = block_scan(H(static_cast<std::size_t>(items) * threads, 0), items, threads);
    CHECK(max_of(o.incl) <= d.inclusive);
    CHECK(max_of(o.excl) <= d.exclusive);
    CHECK(o.total <= d.total);
  }
}

TEST_CASE("the warp-striped block scan: no output deeper than declared, for every shape scan9 may use") {
  for (auto [items, width, threads] : std::vector<std::tuple<int, int, int>>{
           {24, 4, 128}, {12, 2, 128}, {16, 4, 256}, {8, 2, 256}, {8, 4, 512}, {4, 4, 64}, {4, 4, 32}, {2, 2, 32},
           {32, 4, 64}}) {
    CAPTURE(items);
    CAPTURE(width);
    CAPTURE(threads);
    const TileDepths d = striped_scan_depths(items, width, threads);
    const TileOut o = striped_scan(H(static_cast<std::size_t>(items) * threads, 0), items, width, threads);
    CHECK(max_of(o.incl) <= d.inclusive);
    CHECK(max_of(o.excl) <= d.exclusive);
    CHECK(o.total <= d.total);
    if (threads >= 128) {  // tight from 4 warps on (with 2, warp 1's prefix is warp 0's total, unscanned)
      CHECK(max_of(o.incl) == d.inclusive);
      CHECK(o.total == d.total);
    }
  }
  // Its tiles joined by the look-back.
  const TileDepths d = striped_scan_depths(24, 4, 128);
  const double hA = d.total;
  double P = hA, worst = max_of(striped_scan(H(3072, 0), 24, 4, 128).incl);
  for (std::size_t k = 1; k < 300; ++k) {  // the predecessor always done: the deepest chain
    const double S = hA + 5;
    const double E = add(P, S);
    P = add(P, add(S, hA));
    worst = std::max(worst, max_of(striped_scan(H(3072, 0), 24, 4, 128, E).incl));
  }
  CHECK(worst <= lookback_depth(300, d));
}

TEST_CASE("scan-then-propagate: no output deeper than multilevel_depth") {
  // Small tiles so that three or four levels appear; the formula does not depend on the tile's size.
  const std::size_t B = 8;
  for (std::size_t n : {1u, 8u, 9u, 63u, 64u, 65u, 511u, 513u, 4097u}) {
    for (bool incl : {true, false}) {
      CAPTURE(n);
      CAPTURE(incl);
      const H hs = multilevel(H(n, 0), B, [&](const H& l) { return hillis_steele(l, B); }, incl);
      CHECK(max_of(hs) <= multilevel_depth(n, B, hillis_steele_depths(B), incl));
      const H bl = multilevel(H(n, 0), B, [&](const H& l) { return blelloch(l, B); }, incl);
      CHECK(max_of(bl) <= multilevel_depth(n, B, blelloch_depths(B), incl));
      const H sh = multilevel(H(n, 0), 64, [&](const H& l) { return block_scan(l, 2, 32); }, incl);
      CHECK(max_of(sh) <= multilevel_depth(n, 64, block_scan_depths(2, 32), incl));
    }
  }
}

TEST_CASE("reduce-then-scan: no output deeper than declared") {
  const int items = 2, threads = 64;  // a small block, so that segments hold many tiles
  const std::size_t tile = static_cast<std::size_t>(items) * threads;
  // (n, at most this many segments): one segment; a few; more than 1024, so that the spine scans
  // two or four chunks and its deepest lanes (the last warps') give offsets.
  const std::vector<std::pair<std::size_t, std::size_t>> cases = {
      {1, 1},     {128, 3},   {129, 3},   {5000, 1},    {5000, 40},   {70001, 3},
      {70001, 40}, {140000, 1100}, {300000, 2100}, {400000, 3200}};
  for (auto [n, max_blocks] : cases)
    for (bool incl : {true, false}) {
      {  // one problem
        CAPTURE(n);
        CAPTURE(max_blocks);
        CAPTURE(incl);
        const Segments s = segment_plan(n, tile, max_blocks);
        const double lw = ceil_log2(static_cast<std::size_t>(threads / 32));
        // First pass: each thread adds per·items terms to 0, then 5 + log2(warps) shuffle levels.
        const double seg = static_cast<double>(s.per_segment) * items + 5 + lw;
        // The spine: BlockScan<1024, 1> over chunks, a carry between them.
        H offsets(s.blocks);
        double carry = 0;
        for (std::size_t c = 0; c < s.blocks; c += 1024) {
          const std::size_t len = std::min<std::size_t>(1024, s.blocks - c);
          const TileOut o = block_scan(H(len, seg), 1, 1024, carry);
          for (std::size_t i = 0; i < len; ++i) offsets[c + i] = o.incl[i];
          carry = add(carry, o.total);
        }
        double worst = 0;
        for (std::size_t b = 0; b < s.blocks; ++b) {
          double c = b == 0 ? 0 : offsets[b - 1];
          for (std::size_t t = b * s.per_segment; t < std::min(s.tiles, (b + 1) * s.per_segment); ++t) {
            const TileOut o = block_scan(H(tile_valid(n, t, tile), 0), items, threads, c);
            worst = std::max(worst, max_of(incl ? o.incl : o.excl));
            c = add(c, o.total);
          }
        }
        CHECK(worst <= reduce_then_scan_depth(s, items, threads, incl));
      }
    }
}

TEST_CASE("chained and decoupled look-back prefixes: no output deeper than declared, on any schedule") {
  const int items = 4, threads = 64;
  const TileDepths d = block_scan_depths(items, threads);
  const TileOut zero = block_scan(H(static_cast<std::size_t>(items) * threads, 0), items, threads);
  const double hA = zero.total;
  // The deepest element of a tile whose exclusive prefix has height hE.
  const auto element = [&](double hE) {
    const TileOut o = block_scan(H(static_cast<std::size_t>(items) * threads, 0), items, threads, hE);
    return max_of(o.incl);
  };
  for (std::size_t tiles : {1u, 2u, 33u, 100u, 2000u}) {
    CAPTURE(tiles);
    // Chained: P_k = P_{k-1} + A_k.
    double P = hA, worst = element(0);
    for (std::size_t k = 1; k < tiles; ++k) {
      worst = std::max(worst, element(P));
      P = add(P, hA);
    }
    CHECK(worst <= chained_depth(tiles, d));
    // Decoupled look-back: tile k's nearest inclusive prefix j, the aggregates between summed by a
    // 5-level tree per window and chained across windows; P_k = P_j + (S + A_k), E_k = P_j + S.
    std::mt19937_64 g(tiles);
    for (int schedule = 0; schedule < 4; ++schedule) {
      H Ph(tiles);
      Ph[0] = hA;
      worst = element(0);
      for (std::size_t k = 1; k < tiles; ++k) {
        std::size_t j;
        switch (schedule) {
          case 0: j = k - 1; break;                       // the predecessor always done
          case 1: j = 0; break;                           // only tile 0 ever inclusive
          case 2: j = k >= 33 ? k - 33 : 0; break;        // always just past one window
          default: j = std::uniform_int_distribution<std::size_t>(0, k - 1)(g); break;
        }
        const std::size_t windows = (k - 1 - j) / kWindow + 1;
        double S = 0;
        for (std::size_t w = 0; w < windows; ++w) S = w == 0 ? hA + 5 : add(S, hA + 5);
        const double E = add(Ph[j], S);
        Ph[k] = add(Ph[j], add(S, hA));
        worst = std::max(worst, element(E));
      }
      CAPTURE(schedule);
      CHECK(worst <= lookback_depth(tiles, d));
    }
  }
}

TEST_CASE("a depth too long for any bound is recognised; integers never are") {
  CHECK_FALSE(depth_too_long<float>(1e6));
  CHECK(depth_too_long<float>(9e6));   // 9e6 · 2^-24 > 1/2
  CHECK_FALSE(depth_too_long<double>(1e12));
  CHECK_FALSE(depth_too_long<int>(1e30));
}
