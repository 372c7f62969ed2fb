// The index arithmetic of the last gemm steps (handwritten/gemm/gemm_plan.hpp, gemm_layouts.hpp),
// checked exhaustively on the host: the kernels call exactly these functions, so a tile visited
// twice, a layout that overwrites itself, a bank conflict the headers say is not there, a fragment
// that misses an element or a split slice left empty fails here, before any GPU run.
// (Figures in this file's comments are unmeasured: model constants, thresholds, wave fills.)
#include "handwritten/gemm/gemm_auto_models.hpp"
#include "handwritten/gemm/gemm_auto_plan.hpp"
#include "handwritten/gemm/gemm_layouts.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace kl;
using namespace kl::gemm_plan;

TEST_CASE("raster order: every tile of the grid exactly once") {
  for (auto [gx, gy] : std::vector<std::pair<unsigned, unsigned>>{
           {1, 1}, {1, 9}, {7, 1}, {32, 32}, {33, 9}, {5, 17}, {64, 65}, {3, 8}, {3, 16}}) {
    CAPTURE(gx);
    CAPTURE(gy);
    std::set<std::pair<int, int>> seen;
    for (unsigned by = 0; by < gy; ++by)
      for (unsigned bx = 0; bx < gx; ++bx) {
        int tm = -1, tn = -1;
        raster_tile_of(bx, by, gx, gy, tm, tn);
        int tm32 = -1, tn32 = -1;  // the 32-bit walk of gemm13's stream-K kernel: the same order
        raster_tile_at<unsigned>(by * gx + bx, gx, gy, tm32, tn32);
        REQUIRE(tm32 == tm);
        REQUIRE(tn32 == tn);
        int tmg = -1, tng = -1;  // gemm13's unsplit grid (gemm_walk::slice_walk): the same order
        raster_tile_grouped<kRasterRows>(int(by * gx + bx), int(gx), int(gy), tmg, tng);
        REQUIRE(tmg == tm);
        REQUIRE(tng == tn);
        REQUIRE(tm >= 0);
        REQUIRE(tm < int(gy));
        REQUIRE(tn >= 0);
        REQUIRE(tn < int(gx));
        REQUIRE(seen.insert({tm, tn}).second);
      }
    CHECK(seen.size() == std::size_t(gx) * gy);
  }
}

// gemm13's cluster form walks pairs of tile rows in bands of kRasterRows / 2 pairs, and rank r of
// a pair takes its r-th tile row: every tile (pairs padded to whole, as its grid is) exactly once.
TEST_CASE("raster order of pairs of tile rows (gemm13's cluster form): every tile exactly once") {
  for (auto [gx, pairs] : std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {16, 4}, {33, 5}, {5, 9}}) {
    CAPTURE(gx);
    CAPTURE(pairs);
    std::set<std::pair<int, int>> seen;
    for (int id = 0; id < gx * pairs; ++id)
      for (int rank = 0; rank < 2; ++rank) {
        int pm = -1, tn = -1;
        raster_tile_grouped<kRasterRows / 2>(id, gx, pairs, pm, tn);
        REQUIRE(pm >= 0);
        REQUIRE(pm < pairs);
        REQUIRE(tn >= 0);
        REQUIRE(tn < gx);
        REQUIRE(seen.insert({2 * pm + rank, tn}).second);
      }
    CHECK(seen.size() == std::size_t(2 * gx * pairs));
  }
}

TEST_CASE("triangle fold: every tile (i <= j) exactly once, nothing else") {
  for (int T = 1; T <= 70; ++T) {
    CAPTURE(T);
    std::set<std::pair<int, int>> seen;
    for (int y = 0; y < triangle_grid_y(T); ++y)
      for (int x = 0; x < triangle_grid_x(T); ++x) {
        int tm = -1, tn = -1;
        if (!triangle_tile_of(x, y, T, tm, tn)) continue;
        REQUIRE(0 <= tm);
        REQUIRE(tm <= tn);
        REQUIRE(tn < T);
        REQUIRE(seen.insert({tm, tn}).second);
      }
    CHECK(seen.size() == std::size_t(T) * (T + 1) / 2);
  }
}

TEST_CASE("triangle work: the multiply-adds of the computed tiles") {
  for (int M : {1, 17, 63, 64, 65, 1000, 1025, 2048})
    for (int tile : {64, 128}) {
      const int K = 333, T = (M + tile - 1) / tile;
      double brute = 0;
      for (int i = 0; i < T; ++i)
        for (int j = i; j < T; ++j) {
          const int ri = std::min(tile, M - i * tile), rj = std::min(tile, M - j * tile);
          brute += 2.0 * ri * rj * K;
        }
      CHECK(triangle_flops({M, K}, tile) == doctest::Approx(brute).epsilon(1e-12));
    }
}

template <int ELEM, int BK>
void check_swizzle() {
  using L = SwizzledRows<ELEM, BK>;
  constexpr int rows = 64, V = 16 / ELEM;
  std::set<int> places;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < BK; ++c) {
      const int at = L::at(r, c);
      REQUIRE(at >= 0);
      REQUIRE(at < rows * BK);
      REQUIRE(places.insert(at).second);                 // a bijection of the tile
      CHECK(at / BK == r);                               // chunks stay in their row
      if (c % V) CHECK(at == L::at(r, c - c % V) + c % V);  // and whole, 16-byte aligned
      else CHECK(at * ELEM % 16 == 0);
      if (r + L::kPeriod < rows) CHECK(L::at(r + L::kPeriod, c) == at + L::kPeriod * BK);
    }
  // gemm10's read: lanes read chunk q of 8 consecutive rows (8-aligned): 8 different 16-byte
  // bank groups, one wavefront.
  for (int r0 = 0; r0 < rows; r0 += 8)
    for (int q = 0; q < BK / V; ++q) {
      std::set<int> groups;
      for (int r = r0; r < r0 + 8; ++r) groups.insert(L::at(r, q * V) * ELEM / 16 % 8);
      CHECK(groups.size() == 8);
    }
}

TEST_CASE("swizzled rows: a bijection, chunks whole, 8 consecutive rows conflict-free") {
  check_swizzle<4, 8>();
  check_swizzle<4, 16>();
  check_swizzle<4, 32>();
  check_swizzle<8, 8>();
  check_swizzle<8, 16>();
}

// What AsyncCopyK assumes of every layout: a bijection of the tile, and row r + kPeriod·i placed
// as row r, kPeriod·i·kPitch further on (its copies step by kRowStep rows, a multiple of kPeriod).
template <class L>
void check_layout_steps(int rows, int cols) {
  std::set<int> places;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int at = L::at(r, c);
      REQUIRE(at >= 0);
      REQUIRE(places.insert(at).second);
      if (r + L::kPeriod < rows) CHECK(L::at(r + L::kPeriod, c) == at + L::kPeriod * L::kPitch);
    }
}

TEST_CASE("padded and transposed rows: bijections that step by kPitch per row (AsyncCopyK)") {
  check_layout_steps<PaddedRows<20>>(128, 16);      // gemm11's A tile
  check_layout_steps<TransposedRows<132>>(128, 16);  // float gemm9's A tile as[k][m], LDA = BM + 4
  check_layout_steps<TransposedRows<66>>(64, 8);     // double gemm9's 64-row tile, LDA = BM + 2
  CHECK(TransposedRows<132>::at(5, 3) == 3 * 132 + 5);  // row r is column r of [k][r]
}

// gemm_shallow_k's A tile, for one element size (V elements of ELEM bytes per 16 bytes): the
// loader's walk covers every (row, k) of the tile once and steps as the kernel assumes; its warp
// instructions write conflict-free (and would not unpadded); the reads are aligned 16-byte groups.
template <int V, int BM, int THREADS, int KMAX>
void check_shallow_a(int pitch) {
  constexpr int ELEM = 16 / V, kPer = BM * KMAX / THREADS;
  static_assert(BM * KMAX % THREADS == 0);
  const auto at = [&](int r, int k) { return k * pitch + r; };
  std::set<std::pair<int, int>> seen;
  for (int e = 0; e < BM * KMAX; ++e) {
    int r = -1, k = -1;
    shallow_a_fill<V, BM>(e, r, k);
    REQUIRE(0 <= r);
    REQUIRE(r < BM);
    REQUIRE(0 <= k);
    REQUIRE(k < KMAX);
    REQUIRE(seen.insert({r, k}).second);
    // The kernel's form of the walk: thread t's first element plus constants.
    const int t = e % THREADS, u = e / THREADS;
    int rt = -1, kt = -1;
    shallow_a_fill<V, BM>(t, rt, kt);
    CHECK(r == rt + shallow_a_dr<BM, THREADS>(u));
    CHECK(k == kt + shallow_a_dk<BM, THREADS>(u));
    CHECK(u < kPer);
  }
  CHECK(seen.size() == std::size_t(BM) * KMAX);
  // A wavefront serves 128 bytes: 32 lanes of floats, 16 of doubles. Within one, no two lanes
  // may touch the same 4-byte bank at different addresses.
  const auto conflict_free = [&](int p) {
    for (int e0 = 0; e0 < BM * KMAX; e0 += 32)
      for (int w0 = 0; w0 < 32; w0 += 128 / ELEM) {
        std::set<int> banks;
        for (int l = w0; l < w0 + 128 / ELEM; ++l) {
          int r = -1, k = -1;
          shallow_a_fill<V, BM>(e0 + l, r, k);
          const int byte = (k * p + r) * ELEM;
          for (int b = 0; b < ELEM; b += 4)
            if (!banks.insert((byte + b) / 4 % 32).second) return false;
        }
      }
    return true;
  };
  CHECK(conflict_free(pitch));
  CHECK_FALSE(conflict_free(BM));  // unpadded, the 8 k of a row share a bank
  // Reads: V rows from a multiple of V at one k are one aligned 16-byte group.
  for (int k = 0; k < KMAX; ++k)
    for (int r0 = 0; r0 < BM; r0 += V) {
      CHECK(at(r0, k) * ELEM % 16 == 0);
      for (int i = 0; i < V; ++i) CHECK(at(r0 + i, k) == at(r0, k) + i);
    }
}

TEST_CASE("shallow-K A tile: the walk covers the tile once, writes and reads conflict-free, reads aligned") {
  CHECK(shallow_a_pitch<4, 64>() == 68);
  CHECK(shallow_a_at<4, 64>(5, 3) == 3 * 68 + 5);
  check_shallow_a<4, 64, 256, 64>(shallow_a_pitch<4, 64>());  // float: gemm_shallow_k's tile, kMaxK
  check_shallow_a<2, 64, 256, 48>(shallow_a_pitch<2, 64>());  // double
  check_shallow_a<4, 64, 256, 8>(shallow_a_pitch<4, 64>());
  check_shallow_a<2, 64, 128, 16>(shallow_a_pitch<2, 64>());
}

TEST_CASE("DMMA fragments cover their tiles exactly once") {
  for (int kmma : {4, 8, 16}) {
    CAPTURE(kmma);
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int i = 0; i < kmma / 2; ++i) REQUIRE(a.insert({dmma_a_row(g, i), dmma_a_col(t, i)}).second);
      for (int i = 0; i < kmma / 4; ++i) REQUIRE(b.insert({dmma_b_row(t, i), dmma_b_col(g)}).second);
      for (int e = 0; e < 4; ++e) REQUIRE(c.insert({dmma_c_row(g, e), dmma_c_col(t, e)}).second);
    }
    CHECK(a.size() == std::size_t(16 * kmma));
    CHECK(b.size() == std::size_t(kmma * 8));
    CHECK(c.size() == 16u * 8u);
    for (auto [r, k] : a) CHECK((r < 16 && k < kmma));
    for (auto [k, n] : b) CHECK((k < kmma && n < 8));
    for (auto [r, n] : c) CHECK((r < 16 && n < 8));
  }
}

// The coverage test above cannot tell a fragment map from a wrong one that also covers its
// tile (a transposed or permuted one). Here each map is pinned to the PTX ISA's own table
// ("Matrix Fragments for mma.m16n8k4 / mma.m16n8k8 / mma.m16n8k16", the .f64 rows), written as
// the ISA prints it, case by case (B and C of k8/k16 as CUTLASS's cute/atom/mma_traits_sm90.hpp
// lays them out, SM90_16x8x{8,16}_F64F64F64F64_TN): a wrong map would make gemm11 compute a
// permuted product on the GPU, which only the exact check would reveal, after a whole run.
namespace ptx_isa {
// A (16 × k) element a_i of lane (g, t).
int a_row(int kmma, int g, int i) {
  if (kmma == 4) return i == 0 ? g : g + 8;                 // a0: groupID; a1: groupID + 8
  if (kmma == 8) return (i == 0 || i == 2) ? g : g + 8;      // a0, a2: groupID; a1, a3: + 8
  return i % 2 == 0 ? g : g + 8;                             // k16: even i: groupID, else + 8
}
int a_col(int kmma, int t, int i) {
  if (kmma == 4) return t;                                   // threadID_in_group
  if (kmma == 8) return (i == 0 || i == 1) ? t : t + 4;      // a0, a1: t; a2, a3: t + 4
  return i % 2 == 0 ? i * 2 + t : i * 2 - 2 + t;             // k16: (i·2) + t, or (i·2) - 2 + t
}
// B (k × 8) element b_i: row threadID_in_group + 4·i, column groupID.
int b_row(int t, int i) { return i == 0 ? t : i == 1 ? t + 4 : i == 2 ? t + 8 : t + 12; }
int b_col(int g) { return g; }
// C/D (16 × 8) element c_e: c0, c1 in row groupID, c2, c3 in groupID + 8; column 2t + (e & 1).
int c_row(int g, int e) { return e < 2 ? g : g + 8; }
int c_col(int t, int e) { return t * 2 + (e & 1); }
}  // namespace ptx_isa

TEST_CASE("DMMA fragment maps are the PTX ISA's (f64 m16n8k4, k8, k16), and sm_80's m8n8k4 stacking") {
  for (int kmma : {4, 8, 16}) {
    CAPTURE(kmma);
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane >> 2, t = lane % 4;
      CAPTURE(lane);
      for (int i = 0; i < kmma / 2; ++i) {
        CHECK(dmma_a_row(g, i) == ptx_isa::a_row(kmma, g, i));
        CHECK(dmma_a_col(t, i) == ptx_isa::a_col(kmma, t, i));
      }
      for (int i = 0; i < kmma / 4; ++i) {
        CHECK(dmma_b_row(t, i) == ptx_isa::b_row(t, i));
        CHECK(dmma_b_col(g) == ptx_isa::b_col(g));
      }
      for (int e = 0; e < 4; ++e) {
        CHECK(dmma_c_row(g, e) == ptx_isa::c_row(g, e));
        CHECK(dmma_c_col(t, e) == ptx_isa::c_col(t, e));
      }
      // gemm11's sm_80 path: k step s of a 16 × 8 × k product is two m8n8k4 DMMAs, whose A
      // element is (groupID, threadID_in_group), B element (threadID_in_group, groupID), C
      // elements (groupID, 2t + e): rows 0-7 take a[2s], c0, c1; rows 8-15 a[2s + 1], c2, c3;
      // both take b[s]. That is the m16n8k* map exactly when these hold.
      for (int s = 0; s < kmma / 4; ++s) {
        CHECK(dmma_a_row(g, 2 * s) == g);
        CHECK(dmma_a_row(g, 2 * s + 1) == g + 8);
        CHECK(dmma_a_col(t, 2 * s) == 4 * s + t);
        CHECK(dmma_a_col(t, 2 * s + 1) == 4 * s + t);
        CHECK(dmma_b_row(t, s) == 4 * s + t);
      }
      for (int e = 0; e < 2; ++e) {
        CHECK(dmma_c_row(g, e) == g);
        CHECK(dmma_c_row(g, e + 2) == g + 8);
        CHECK(dmma_c_col(t, e) == 2 * t + e);
        CHECK(dmma_c_col(t, e + 2) == 2 * t + e);
      }
    }
  }
}

// A 64-bit shared load is served per half-warp: conflict-free when its 16 lanes use 16
// different 8-byte bank pairs (double index mod 16).
template <class Offset>
bool half_warps_conflict_free(Offset offset) {
  for (int h = 0; h < 2; ++h) {
    std::set<int> pairs;
    for (int lane = 16 * h; lane < 16 * h + 16; ++lane) pairs.insert(offset(lane / 4, lane % 4) % 16);
    if (pairs.size() != 16) return false;
  }
  return true;
}

TEST_CASE("DMMA fragment loads from the padded tiles are conflict-free (and would not be unpadded)") {
  for (int bk : {8, 16, 32})
    for (int kmma : {4, 8, 16}) {
      if (bk % kmma) continue;
      CAPTURE(bk);
      CAPTURE(kmma);
      const int pk = bk + kDmmaPad;
      for (int m0 : {0, 16, 48})
        for (int kk = 0; kk < bk; kk += kmma)
          for (int i = 0; i < kmma / 2; ++i) {
            CHECK(half_warps_conflict_free([&](int g, int t) { return (m0 + dmma_a_row(g, i)) * pk + kk + dmma_a_col(t, i); }));
            if (i < kmma / 4)  // B read as [n][k] (A·Aᵀ): the same pattern
              CHECK(half_warps_conflict_free([&](int g, int t) { return (m0 + dmma_b_col(g)) * pk + kk + dmma_b_row(t, i); }));
          }
      if (bk >= 16)  // unpadded, rows 0..3 would share their bank pairs
        CHECK_FALSE(half_warps_conflict_free([&](int g, int t) { return dmma_a_row(g, 0) * bk + dmma_a_col(t, 0); }));
    }
  for (int bn : {64, 128})
    for (int kmma : {4, 8, 16}) {
      const int pn = bn + kDmmaPad;
      for (int n0 = 0; n0 < bn; n0 += 8)
        for (int i = 0; i < kmma / 4; ++i)
          CHECK(half_warps_conflict_free([&](int g, int t) { return dmma_b_row(t, i) * pn + n0 + dmma_b_col(g); }));
    }
}

// gemm14's TMA tiles (128-byte swizzle) and the k order of its fragments.
TEST_CASE("gemm14: the 128-byte swizzle keeps chunks whole; its k order reads conflict-free where the ISA's does not") {
  std::set<int> places;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      REQUIRE(places.insert(swz128_double(r, c)).second);
      CHECK(swz128_double(r, c) / 16 == r);  // in its own 128-byte row
      if (c % 2 == 0) {
        CHECK(swz128_double(r, c) == r * 16 + 2 * ((c / 2) ^ (r % 8)));  // chunk c/2 at chunk (c/2) ^ (r mod 8)
        CHECK(swz128_double(r, c + 1) == swz128_double(r, c) + 1);       // a chunk stays whole
      }
    }
  std::set<int> ks;
  for (int s = 0; s < 4; ++s)
    for (int t = 0; t < 4; ++t) REQUIRE(ks.insert(dmma_tma_k(s, t)).second);
  CHECK(ks.size() == 16u);
  CHECK(*ks.rbegin() == 15);
  for (int s = 0; s < 4; ++s) {
    CAPTURE(s);
    // A: rows m0 + g (+ 8), m0 a multiple of 16; B: row k of a 16 × 16 box, column 8·(ni mod 2) + g.
    for (int m0 : {0, 16, 64, 112})
      for (int h : {0, 1}) {
        CHECK(half_warps_conflict_free([&](int g, int t) { return swz128_double(m0 + g + 8 * h, dmma_tma_k(s, t)); }));
        CHECK(half_warps_conflict_free([&](int g, int t) { return swz128_double(dmma_tma_k(s, t), 8 * h + g); }));
      }
  }
  // The ISA's order (k = 4s + t) under the same swizzle: two lanes of a half-warp share a pair.
  CHECK_FALSE(half_warps_conflict_free([&](int g, int t) { return swz128_double(g, t); }));
  CHECK_FALSE(half_warps_conflict_free([&](int g, int t) { return swz128_double(t, g); }));
}

TEST_CASE("split-K plans: slices of whole k tiles, none empty, all of K covered, honest depth") {
  for (int bk : {8, 16, 32})
    for (int K = 1; K <= 700; ++K)
      for (int splits = 1; splits <= kMaxSplits; ++splits) {
        const int ks = k_per_split(K, splits, bk), used = used_splits(K, splits, bk);
        REQUIRE(ks % bk == 0);
        REQUIRE(used >= 1);
        REQUIRE(used <= splits);
        REQUIRE(std::size_t(used - 1) * ks < std::size_t(K));  // the last slice holds some k
        REQUIRE(std::size_t(used) * ks >= std::size_t(K));      // and all of K is covered
        const double depth = splitk_depth(K, splits, bk);
        REQUIRE(depth <= K);  // never above the unsplit chain
        REQUIRE(depth >= std::min(K, ks));
        CHECK((splitk_workspace({3, 5, K}, splits, bk, 8) == (used > 1 ? std::size_t(used) * 15 * 8 : 0)));
      }
}

// The segments of a stream-K block's run as gemm13's and gemm14's kernels cut them
// (gemm_plan::stream_segment_end): a segment runs to its tile's last k tile or to the run's end,
// seg_end = min(run, seg_t0 + kt - its first k tile), where the first k tile is 0 but for the
// first stream segment's, (b·q) % kt; kt iterations are the whole tile (C, slot -1), any fewer
// the block's first stream segment (slot 2b) or its last (2b + 1). The kernel walks the plan in
// int (stream_k_int): every step here is also taken in int and must agree. gemm11_pf's stream
// kernel (gemm11_dmma_prefetch.cuh) cuts them from the walk alone: from iteration t, the k tile
// stream_iteration gives and min(run - t, kt - that k tile) iterations; it must cut the same.
namespace {
struct Segment {
  long long block, tile;
  int k_begin, k_end;  // k tiles [k_begin, k_end)
  long long slot;      // -1: C
};
std::vector<Segment> stream_segments(const StreamK& p, long long b) {
  std::vector<Segment> out;
  StreamKInt pi{};
  REQUIRE(stream_k_int(p, pi));
  const long long n = stream_run_length<long long>(b, p.kt, p.dp_waves, p.per_block, p.tail_iters);
  REQUIRE(n == stream_run_length<int>(static_cast<int>(b), pi.kt, pi.dp_waves, pi.per_block, pi.tail_iters));
  const long long dp_iters = p.dp_waves * p.kt;
  const int stream_k0 = static_cast<int>(b * p.per_block % p.kt);
  for (long long seg_t0 = 0; seg_t0 < n;) {
    const int k0 = seg_t0 == dp_iters ? stream_k0 : 0;
    const long long seg_end = std::min(n, seg_t0 + p.kt - k0);
    // the kernels' own cut (gemm_plan::stream_segment_end), in the int they take it in
    REQUIRE(stream_segment_end<int>(static_cast<int>(seg_t0), static_cast<int>(n), pi.kt, pi.dp_waves * pi.kt, stream_k0) == seg_end);
    long long tile0 = -1;
    for (long long t = seg_t0; t < seg_end; ++t) {  // the walk puts the segment in one tile, k in order
      long long tile, k;
      stream_iteration<long long>(b, t, p.kt, p.dp_waves, p.blocks, p.per_block, tile, k);
      int tile32, k32;
      stream_iteration<int>(static_cast<int>(b), static_cast<int>(t), pi.kt, pi.dp_waves, pi.blocks, pi.per_block, tile32, k32);
      REQUIRE(tile32 == tile);
      REQUIRE(k32 == k);
      if (t == seg_t0) tile0 = tile;
      REQUIRE(tile == tile0);
      REQUIRE(k == k0 + (t - seg_t0));
    }
    long long tile_at, k_at;  // gemm11_pf's cut
    stream_iteration<long long>(b, seg_t0, p.kt, p.dp_waves, p.blocks, p.per_block, tile_at, k_at);
    REQUIRE(k_at == k0);
    REQUIRE(std::min(n - seg_t0, p.kt - k_at) == seg_end - seg_t0);
    const bool whole = seg_end - seg_t0 == p.kt;
    out.push_back({b, tile0, k0, static_cast<int>(k0 + (seg_end - seg_t0)), whole ? -1 : 2 * b + (seg_t0 == dp_iters ? 0 : 1)});
    seg_t0 = seg_end;
  }
  return out;
}
}  // namespace

TEST_CASE("stream-K plans: every iteration once, partial tiles in distinct slots, the fixup's blocks exactly the tile's") {
  const GemmShape shapes[] = {{1, 1, 1},       {1500, 1500, 1500}, {4096, 4096, 4096}, {513, 257, 129}, {1000, 1000, 1000},
                              {129, 4100, 33}, {7, 9, 4000},       {8192, 8192, 32},   {1408, 3072, 512}, {8192, 8192, 8192},
                              {3000, 3000, 3000}};
  struct TileShape {
    int bm, bn, bk;
    std::size_t elem_bytes;
  };
  // gemm13's float tile and gemm11_pf's double one; the stream part as the last two waves
  // (gemm13, gemm11_pf) or the part-empty last wave alone (gemm14)
  for (const StreamPart part : {StreamPart::last_two_waves, StreamPart::last_wave})
  for (const TileShape ts : {TileShape{128, 256, 32, 4}, TileShape{128, 128, 16, 8}})
    for (const GemmShape sh : shapes)
      for (long long sms : {1LL, 2LL, 7LL, 132LL, 144LL, 1000LL}) {
        CAPTURE(static_cast<int>(part));
        CAPTURE(ts.bn);
        CAPTURE(sh.M);
        CAPTURE(sh.N);
        CAPTURE(sh.K);
        CAPTURE(sms);
        const StreamK p = stream_k_plan(sh, ts.bm, ts.bn, ts.bk, sms, part);
        REQUIRE(p.tiles == tiles_of(sh, ts.bm, ts.bn));
        REQUIRE(p.blocks <= sms);
        REQUIRE(p.stream_blocks <= p.blocks);
        REQUIRE(p.tail_tiles == p.tiles - p.dp_waves * p.blocks);
        if (part == StreamPart::last_wave && p.tiles > sms && p.tiles % sms != 0) {
          REQUIRE(p.tail_tiles == p.tiles % sms);  // the part-empty last wave alone
        } else {
          REQUIRE(p.tail_tiles >= std::min(p.tiles, sms));  // the stream part holds at least the last wave
          REQUIRE(p.tail_tiles < 2 * sms);                  // and at most two
        }
        REQUIRE(p.stream_blocks * p.per_block >= p.tail_iters);
        REQUIRE((p.stream_blocks - 1) * p.per_block < p.tail_iters);  // no stream block without work
        std::vector<std::vector<Segment>> of_tile(static_cast<std::size_t>(p.tiles));
        std::set<long long> slots;
        for (long long b = 0; b < p.blocks; ++b)
          for (const Segment& s : stream_segments(p, b)) {
            REQUIRE(s.tile < p.tiles);
            of_tile[static_cast<std::size_t>(s.tile)].push_back(s);
            if (s.slot >= 0) {
              const long long j = s.tile - p.dp_waves * p.blocks;
              REQUIRE(j >= 0);                            // data-parallel tiles are whole
              REQUIRE(slots.insert(s.slot).second);       // no slot written twice
              REQUIRE(s.slot == stream_slot(b, j, p.kt, p.per_block));  // the fixup reads where it was written
              REQUIRE(std::size_t(s.slot + 1) * ts.bm * ts.bn * ts.elem_bytes <= stream_k_workspace(p, ts.bm, ts.bn, ts.elem_bytes));
            }
          }
        for (long long tile = 0; tile < p.tiles; ++tile) {
          const auto& segs = of_tile[static_cast<std::size_t>(tile)];
          REQUIRE(!segs.empty());
          int k = 0;  // the segments, in block order, cover the tile's k tiles once, in order
          for (const Segment& s : segs) {
            REQUIRE(s.k_begin == k);
            REQUIRE(s.k_end > s.k_begin);
            k = s.k_end;
          }
          REQUIRE(k == p.kt);
          // one segment: the whole tile, straight to C (the fixup skips it); several: all partial
          for (const Segment& s : segs) REQUIRE((s.slot == -1) == (segs.size() == 1));
          const long long j = tile - p.dp_waves * p.blocks;
          if (j < 0) {
            REQUIRE(segs.size() == 1);
            continue;
          }
          long long b0, b1;  // the fixup's blocks for the tile: exactly those that hold it
          stream_tile_blocks(j, p.kt, p.per_block, b0, b1);
          REQUIRE(segs.front().block == b0);
          REQUIRE(segs.back().block == b1);
          REQUIRE(static_cast<long long>(segs.size()) == b1 - b0 + 1);
          for (long long b = b0 + 1; b <= b1; ++b) REQUIRE(stream_slot(b, j, p.kt, p.per_block) == 2 * b);  // the fixup's shortcut
        }
      }
}

TEST_CASE("stream-K in int: the plan's counts fit, or the launcher runs the product unsplit") {
  StreamKInt pi{};
  const StreamK p = stream_k_plan({4096, 4096, 4096}, 128, 256, 32, 132);
  REQUIRE(stream_k_int(p, pi));
  CHECK(pi.tiles_m == 32);
  CHECK(pi.tiles_n == 16);
  CHECK(pi.kt == 128);
  CHECK(pi.blocks == 132);
  CHECK(pi.dp_waves == 2);
  CHECK(pi.per_block == p.per_block);
  CHECK(pi.tail_iters == (512 - 264) * 128);
  // 33 tiles on one SM, K = 2³¹ - 1: 32 data-parallel tiles of 2²⁶ k tiles, 2³¹ iterations
  CHECK_FALSE(stream_k_int(stream_k_plan({128 * 33, 256, 2147483647}, 128, 256, 32, 1), pi));
  // a run of 33 · 64·10⁶ iterations fits, but not the next segment's end the kernel forms from it
  CHECK_FALSE(stream_k_int(stream_k_plan({128 * 33, 256, 2048000000}, 128, 256, 32, 1), pi));
  CHECK(stream_k_int(stream_k_plan({128 * 33, 256, 1 << 25}, 128, 256, 32, 1), pi));
  CHECK(pi.dp_waves == 32);
  // more tiles than the raster's 8·tiles may count in 32 bits
  CHECK_FALSE(stream_k_int(stream_k_plan({2147483647, 1 << 20, 32}, 128, 256, 32, 132), pi));
}

TEST_CASE("split-K choice: the examples of gemm_auto's header") {
  CHECK(splitk_splits({2048, 2048, 2048}, 128, 128, 16, 1) == 1);
  CHECK(splitk_splits({4097, 4095, 17}, 128, 128, 16, 1) == 1);
  CHECK(splitk_splits({1000, 1000, 1000}, 128, 128, 16, 1) == 2);  // double 1000³: 64 tiles → 128 blocks
  CHECK(splitk_splits({1000, 1000, 1000}, 64, 64, 16, 4) == 2);    // float 1000³: 256 → 512 blocks
  CHECK(splitk_splits({513, 257, 129}, 64, 64, 16, 4) == 3);       // 45 tiles, 3 slices of 48
  CHECK(k_per_split(129, 3, 16) == 48);
  CHECK(splitk_splits({513, 257, 129}, 64, 64, 16, 2) == 3);
  CHECK(splitk_splits({4096, 1, 4096}, 128, 128, 16, 1) == 4);
  CHECK(splitk_splits({4096, 1, 4096}, 64, 64, 16, 4) == 8);
  CHECK(splitk_splits({1, 1, 1}, 64, 64, 16, 4) == 1);
  for (int K : {1, 100, 1000, 100000}) CHECK(splitk_splits({1, 1, K}, 64, 64, 16, 4) <= kMaxSplits);
  // gemm_auto passes the device's multiprocessors: slices the resident blocks hold whole
  // (rounded down), so 132 SMs of 4 blocks still split float 1000³ in 2, not 3.
  CHECK(splitk_splits({1000, 1000, 1000}, 64, 64, 16, 4, 132) == 2);
  CHECK(splitk_splits({513, 257, 129}, 32, 32, 16, 2, 132) == 1);  // 153 tiles: a wave already
  CHECK(splitk_splits({256, 256, 65536}, 32, 32, 16, 2, 132) == 4);
  // gemm_auto's classes and waves (the rule of gemm_auto.cuh's header).
  CHECK(shape_class({4096, 1, 4096}) == ShapeClass::gemv);
  CHECK(shape_class({1, 1, 1}) == ShapeClass::gemv);
  CHECK(shape_class({1, 4096, 4096}) == ShapeClass::gevm);
  CHECK(shape_class({1, 4096, 1}) == ShapeClass::gevm);
  CHECK(shape_class({4096, 4096, 1}) == ShapeClass::thin_k);
  CHECK(shape_class({67, 133, 4}) == ShapeClass::thin_k);
  CHECK(shape_class({67, 133, 5}) == ShapeClass::tiled);
  CHECK(shape_class({513, 257, 129}) == ShapeClass::tiled);
  CHECK(tiles_of({513, 257, 129}, 64, 64) == 45);
  CHECK(tiles_of({513, 257, 129}, 32, 32) == 153);
  // A·Aᵀ's triangle: T(T + 1)/2 tiles.
  CHECK(triangle_tiles(1000, 64) == 136);
  CHECK(triangle_tiles(1, 64) == 1);
  CHECK(triangle_tiles(2048, 64) == 528);
}

TEST_CASE("split-K by the time model: gemm_auto's small float step, the measured picks") {
  const auto used = [](GemmShape s) {
    return used_splits(s.K, splitk_splits_modeled(s, 64, 64, 16, 4, 132, 4), 16);
  };
  // The fastest split measured on the H100 where the model found it
  // (docs/sgemm-ladder.md, "Every shape class") ...
  CHECK(used({513, 257, 129}) == 1);    // the fill rule: 3 slices, slower
  CHECK(used({700, 600, 200}) == 1);    // fill: 4, slower
  CHECK(used({1000, 1000, 300}) == 1);  // fill: 2
  CHECK(used({1000, 700, 120}) == 1);
  CHECK(used({513, 257, 257}) == 5);
  CHECK(used({300, 200, 1000}) == 13);  // fill: 16
  CHECK(used({129, 129, 4097}) == 14);  // fill: 16 (144 blocks: two on twelve SMs), slower
  CHECK(used({97, 513, 3001}) == 14);
  CHECK(used({1000, 1000, 1000}) == 2);
  CHECK(used({60, 2000, 1000}) == 8);
  CHECK(used({2000, 1000, 500}) == 1);
  // ... and where it did not: 3000×200×300, one slice where two were faster.
  CHECK(used({3000, 200, 300}) == 1);
  // The double 32² DMMA tile (two blocks per SM), its k tile a quarter of the 64² one's time: the
  // reduction's fixed cost then outweighs the k loop it shortens unless k is long: 211×223×227 ran
  // faster unsplit than split on the H100 (docs/sgemm-ladder.md, "gemm_auto's rules").
  const auto used_dmma = [](GemmShape s) {
    return used_splits(s.K, splitk_splits_modeled(s, 32, 32, 16, 2, 132, 8), 16);
  };
  CHECK(split_tile_us(32, 32) == doctest::Approx(0.7 / 4));
  CHECK(split_tile_us(64, 64) == doctest::Approx(0.7));
  CHECK(used_dmma({211, 223, 227}) == 1);
  CHECK(used_dmma({256, 256, 256}) == 1);
  CHECK(used_dmma({100, 100, 4096}) > 1);                  // 16 tiles, 256 k tiles deep
  // The model's own arithmetic (splitk_model_us): one slice, one block per SM: k tiles × 0.7 µs;
  // 700×600×200 in 4 slices: 440 blocks (4 on the busiest SM, 2.5 blocks' time) of 4 k tiles,
  // plus the reduction (3.5 µs and 5 × 420000 floats at 2.5 TB/s).
  CHECK(splitk_model_us({700, 600, 200}, 64, 64, 16, 1, 4, 132, 4) == doctest::Approx(0.7 * 13));
  CHECK(splitk_model_us({700, 600, 200}, 64, 64, 16, 4, 4, 132, 4) ==
        doctest::Approx(0.7 * 4 * 2.5 + 3.5 + 5 * 420000 * 4 / 2.5e6));
  // Past the resident blocks, whole waves: 9 blocks of one slice on 1 SM at 4 per SM: 2 × 2.5 + 1.
  CHECK(splitk_model_us({192, 192, 16}, 64, 64, 16, 1, 4, 1, 4) == doctest::Approx(0.7 * (2 * 2.5 + 1)));
  // Always a plan the kernels take: 1 to kMaxSplits, the fewest splits for its slice count.
  for (int M : {1, 63, 513, 3000})
    for (int K : {1, 17, 129, 4097, 100000})
      for (long long sms : {1, 24, 132}) {
        const GemmShape s{M, 257, K};
        const int n = splitk_splits_modeled(s, 64, 64, 16, 4, sms, 4);
        CAPTURE(M);
        CAPTURE(K);
        CAPTURE(sms);
        CHECK(n >= 1);
        CHECK(n <= kMaxSplits);
        CHECK((n == 1 || used_splits(K, n - 1, 16) < used_splits(K, n, 16)));
      }
}

// gemm_auto's shortlist (handwritten/gemm/gemm_auto.cuh): the steps its time model puts within
// kShortlist of its best, which tune then measures. For every product measured with the steps side
// by side (tests/fixtures/gemm_auto_measured.tsv, tagged by GPU, whose header says where the rows
// come from), the shortlist under that GPU's model must hold a step the measurement put within 3%
// of the fastest; otherwise tune could not find it.
namespace {
// A choice as the measurements name it: the step's name in the gemm list, and for a split form
// /fill (the list's fill rule), /model (the time model's) or /split (the step's one split rule);
// both /fill and /model where the two rules agree.
std::vector<std::string> labels(StepChoice c, GemmShape s, long long sms) {
  const StepRow& r = row_of(c.step);
  const std::string n(r.name);
  if (c.splits == 1) return {n};
  if (r.splits.kind == Splits::fill) return {n + "/split"};
  std::vector<std::string> out;
  if (c.splits == splitk_splits(s, r.bm, r.bn, r.bk, r.splits.blocks))
    out.push_back(n + "/fill");
  if (c.splits == splitk_splits_modeled(s, r.bm, r.bn, r.bk, r.splits.blocks, sms, r.dbl ? 8 : 4))
    out.push_back(n + "/model");
  return out;
}
struct Measured {
  std::string gpu;
  bool dbl;
  GemmShape shape;
  std::string within_3pct;  // the labels within 3% of the fastest, space-separated
};
std::vector<Measured> read_measured() {
  std::ifstream in(std::string(KL_SOURCE_DIR) + "/tests/fixtures/gemm_auto_measured.tsv");
  REQUIRE(in.good());
  std::vector<Measured> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Measured m;
    std::string type;
    std::getline(f, m.gpu, '\t');
    std::getline(f, type, '\t');
    f >> m.shape.M >> m.shape.N >> m.shape.K;
    f.ignore(1);
    std::getline(f, m.within_3pct);
    REQUIRE((type == "float" || type == "double"));
    m.dbl = type == "double";
    out.push_back(m);
  }
  return out;
}
}  // namespace

TEST_CASE("gemm_auto's shortlist holds a step within 3% of the fastest measured, on every measured product") {
  const std::vector<Measured> measured = read_measured();
  CHECK(measured.size() >= 200);
  for (const Measured& m : measured) {
    CAPTURE(m.gpu);
    CAPTURE(m.shape.M);
    CAPTURE(m.shape.N);
    CAPTURE(m.shape.K);
    CAPTURE(m.within_3pct);
    // The features compare's buffers give gemm_auto (gemm_auto.cuh, key_of): 16-byte B and C where
    // N is a multiple of the vector width; float's TMA step through padded copies of ragged
    // operands (compare's products always have the workspace), double's where N and K are even.
    AutoFeatures f;
    f.vec = m.shape.N % (m.dbl ? 2 : 4) == 0;
    f.tma = !m.dbl || (m.shape.N % 2 == 0 && m.shape.K % 2 == 0);
    f.huge = f.dmma_large = true;
    f.model = model_for(m.gpu);
    REQUIRE(f.model != nullptr);
    const std::vector<StepChoice> list = auto_shortlist(m.shape, m.dbl, f);
    REQUIRE(!list.empty());
    bool found = false;
    std::string names;
    for (const StepChoice& c : list)
      for (const std::string& n : labels(c, m.shape, f.sms)) {
        names += n + " ";
        found = found || (" " + m.within_3pct + " ").find(" " + n + " ") != std::string::npos;
      }
    CAPTURE(names);
    CHECK(found);
  }
}

TEST_CASE("gemm_auto's candidates: what the device and the buffers allow, splits only where they split") {
  AutoFeatures none;
  // No 16-byte path: gemm10's tiles, gemm9's 64² and k8 tiles elementwise.
  for (const StepChoice& c : auto_candidates({4096, 4095, 4096}, false, none))
    CHECK((c.step == Step::g10_64 || c.step == Step::g10_128 || c.step == Step::g10_128x32 ||
           c.step == Step::g10_32x128 || c.step == Step::g9_64 || c.step == Step::g9_64k8 ||
           c.step == Step::g9_32x128k8 || c.step == Step::g9_128x64k8 || c.step == Step::g9_64x128k8 ||
           c.step == Step::g9_32x64k8 || c.step == Step::g10_32x64k8 || c.step == Step::g10_64x128k8));
  AutoFeatures all;
  all.vec = all.tma = all.huge = all.dmma_large = true;
  all.model = &kModelH100;
  const auto f = auto_candidates({4096, 4096, 4096}, false, all);
  // gemm10 64² (1 slice: the tiles fill the GPU), 128², 128 × 32, 32 × 128; gemm9 ×8, gemm12, gemm13,
  // its stream-K, gemm13 at the 64² tile in four and three stages (unsplit: the tiles fill the GPU)
  CHECK(f.size() == 17);
  // The slice count a candidate list offers `step` beside its unsplit run (a fill-rule row offers
  // one); 0 where it offers none.
  const auto split_of = [](const std::vector<StepChoice>& v, Step step) {
    for (const StepChoice& c : v)
      if (c.step == step && c.splits > 1) return c.splits;
    return 0;
  };
  // gemm13 split where its 128 × 256 tiles leave SMs idle (float 1000³: 32 tiles, 4 slices of 8
  // k tiles), only on the TMA path, never where its tiles fill the GPU
  CHECK(split_of(auto_candidates({1000, 1000, 1000}, false, all), Step::g13) == 4);
  CHECK(split_of(f, Step::g13) == 0);
  CHECK(split_of(auto_candidates({2048, 2048, 2048}, false, all), Step::g13) == 0);
  // gemm13's 64² tile split by the same rule at the blocks its shared memory lets an SM hold
  // (three at four stages): float 513 × 257 × 129 makes 45 tiles, which three blocks on each of
  // 132 SMs would cut into 8 slices, but a slice keeps at least 4 k tiles of 32, so 2; float
  // 1000³'s 256 tiles already fill the resident blocks (no split)
  CHECK(row_of(Step::g13s_64).splits.blocks == 3);
  CHECK(row_of(Step::g13s_64s3).splits.blocks == 4);
  CHECK(split_of(auto_candidates({513, 257, 129}, false, all), Step::g13s_64) == 2);
  CHECK(split_of(auto_candidates({1000, 1000, 1000}, false, all), Step::g13s_64) == 0);
  CHECK(split_of(auto_candidates({64, 64, 4096}, false, all), Step::g13s_64) == 16);
  // The thin tiles (gemm10's 128 × 32 and 32 × 128; gemm11_pf's 32 × 128, 128 × 32 and 32 × 64 × 32)
  // split k by the same rule at their blocks an SM where a thin product's tiles leave SMs idle: float
  // 3363 × 72 × 476 makes 81 tiles of 128 × 32, which four blocks on each of 132 SMs cut into 6
  // slices (its 30 k tiles allow 8); double 27 × 3772 × 634 makes 59 tiles of 32 × 64 (two blocks
  // an SM: 4 slices) and 30 of 32 × 128 (8); none where the tiles fill the GPU
  CHECK(split_of(auto_candidates({3363, 72, 476}, false, all), Step::g10_128x32) == 6);
  CHECK(split_of(auto_candidates({27, 3772, 634}, true, all), Step::g11_32x64k16pf) == 4);
  CHECK(split_of(auto_candidates({27, 3772, 634}, true, all), Step::g11_32x128pf) == 8);
  CHECK(split_of(auto_candidates({4096, 4096, 4096}, true, all), Step::g11_128x32pf) == 0);
  CHECK(split_of(auto_candidates({4096, 4096, 4096}, false, all), Step::g10_32x128) == 0);
  // gemm10's 32² tile, always measured, where 64² tiles make less than two waves or M or N is at
  // most 32 (float 12258 × 30 × 567: 192 tiles of 64², each less than half used)
  const auto has = [](Step step) {
    return [step](const std::vector<StepChoice>& v) {
      return std::any_of(v.begin(), v.end(), [step](StepChoice c) { return c.step == step; });
    };
  };
  const auto has_32 = has(Step::g10_32);
  CHECK(has_32(auto_shortlist({513, 257, 129}, false, all)));
  CHECK(has_32(auto_shortlist({12258, 30, 567}, false, all)));
  CHECK(has_32(auto_shortlist({1021, 546, 9}, false, all)));
  CHECK_FALSE(has_32(auto_candidates({2048, 2048, 2048}, false, all)));
  CHECK_FALSE(has_32(auto_candidates({513, 257, 129}, true, all)));
  // gemm10's 64² warps as a 32 × 128 row or a 128 × 32 column: modelled with the 64² tile's
  // constants, so the model puts them first where their tiling leaves fewer blocks on the busiest
  // SM (260 × 3600: 261 tiles of 32 × 128, 2 per SM at most, against 285 of 64², 3), and leaves
  // them out where gemm13's tiles fill the GPU
  for (const AutoFeatures* g : {&all, &none}) {
    AutoFeatures m = *g;
    m.model = &kModelH100;
    CHECK(auto_shortlist({260, 3600, 700}, false, m).front().step == Step::g10_32x128);
    CHECK(auto_shortlist({12000, 130, 400}, false, m).front().step == Step::g10_128x32);
  }
  CHECK(model_of(Step::g10_32x128, all)->ktile_us == model_of(Step::g10_64, all)->ktile_us);
  CHECK(model_of(Step::g10_32x128, all)->bm == 32);
  CHECK_FALSE(has(Step::g10_32x128)(auto_shortlist({4096, 4096, 4096}, false, all)));
  CHECK_FALSE(has(Step::g10_128x32)(auto_shortlist({8192, 8192, 8192}, false, all)));
  // gemm11_pf's 64² DMMA warps stacked the same ways, on the 64² _pf tile's constants: the row
  // first where M is short and N long (150 × 9128: 5 × 72 tiles of 32 × 128 cover 160 rows,
  // 3 × 143 of 64² cover 192, a fifth more blocks), with the 64² tile still measured while the
  // row is borrowed; neither first at 4096³ double, where every tile is whole and the 128² tile
  // does more work per byte
  for (const GpuModel* g : {&kModelH100, &kModelH200}) {
    AutoFeatures m = all;
    m.model = g;
    const auto l = auto_shortlist({150, 9128, 686}, true, m);
    CHECK(l.front().step == Step::g11_32x128pf);
    if (borrowed_from(Step::g11_32x128pf, m)) CHECK(has(Step::g11_64pf)(l));
    const Step first = auto_shortlist({4096, 4096, 4096}, true, m).front().step;
    CHECK((first != Step::g11_32x128pf && first != Step::g11_128x32pf));
  }
  // gemm10's 32 × 64 × 8 and 64 × 128 × 8 tiles only where C's rows take no 16-byte stores
  // (gemm9's tiles store C element by element there), measured wherever the GPU's data has no
  // row for them
  for (const Step k8 : {Step::g10_32x64k8, Step::g10_64x128k8}) {
    for (const GpuModel* g : {&kModelH100, &kModelH200}) {
      AutoFeatures m = none;
      m.model = g;
      if (!model_of(k8, m)) CHECK(has(k8)(auto_shortlist({777, 1333, 97}, false, m)));
    }
    CHECK_FALSE(has(k8)(f));
    CHECK(has(k8)(auto_candidates({4096, 4095, 4096}, false, none)));
  }
  // gemm13's stream-K form, always measured, where the last wave of its tiles is under 90% full
  const auto has_stream = has(Step::g13_stream);
  CHECK(has_stream(auto_shortlist({1500, 1500, 1500}, false, all)));  // 72 tiles
  CHECK(has_stream(auto_shortlist({3000, 3000, 3000}, false, all)));  // 288 tiles: 2.2 waves
  CHECK(has_stream(f));                                                      // 4096³: 3.9 waves, the last 88% full
  CHECK(has_stream(auto_shortlist({8192, 8192, 8192}, false, all)));         // 15.5 waves
  CHECK(has_stream(auto_shortlist({6000, 6000, 6000}, false, all)));         // 8.5 waves
  CHECK_FALSE(has_stream(auto_candidates({2048, 2048, 2048}, false, all)));  // 128 tiles of 132
  AutoFeatures sm128 = all;
  sm128.sms = 128;
  CHECK_FALSE(has_stream(auto_candidates({4096, 4096, 4096}, false, sm128)));  // four whole waves of 128
  CHECK_FALSE(has_stream(auto_candidates({1408, 3072, 512}, false, all)));   // 11 × 12: one whole wave
  CHECK_FALSE(has_stream(auto_candidates({1500, 1500, 1500}, true, all)));   // float only
  AutoFeatures no_tma = all;
  no_tma.tma = false;
  for (const StepChoice& c : auto_candidates({1000, 1000, 1000}, false, no_tma))
    CHECK((c.step != Step::g13 && c.step != Step::g13_stream));
  // gemm_shallow_k where k is one of its chunks, and always on the shortlist there (no model yet)
  const auto has_shallow = has(Step::shallow);
  CHECK(has_shallow(auto_candidates({4097, 4095, 64}, false, all)));
  CHECK_FALSE(has_shallow(auto_candidates({4097, 4095, 65}, false, all)));
  CHECK(has_shallow(auto_shortlist({4097, 4095, 17}, false, all)));
  const auto has_shallow_double = has(Step::shallow_double);
  CHECK(has_shallow_double(auto_shortlist({4097, 4095, 48}, true, all)));
  CHECK_FALSE(has_shallow_double(auto_candidates({4097, 4095, 49}, true, all)));
  const auto d = auto_candidates({100, 100, 4096}, true, all);
  CHECK(d.front().step == Step::g11_32);
  CHECK(std::any_of(d.begin(), d.end(), [](StepChoice c) { return c.step == Step::g11_32 && c.splits > 1; }));
  // gemm11's 128² DMMA tile as stream-K, always measured, by the same rule (one block per SM)
  const auto has_dstream = has(Step::g11_stream);
  CHECK(has_dstream(auto_shortlist({4096, 4096, 4096}, true, all)));        // 1024 tiles: 7.8 waves
  CHECK(has_dstream(auto_shortlist({8192, 8192, 8192}, true, all)));        // 4096 tiles: 31.03 waves
  CHECK(has_dstream(auto_shortlist({1000, 1000, 1000}, true, all)));        // 64 tiles
  CHECK_FALSE(has_dstream(auto_candidates({2048, 2048, 2048}, true, all)));  // 256 tiles: the last wave 94% full
  CHECK_FALSE(has_dstream(auto_candidates({4096, 4096, 4096}, true, sm128)));  // eight whole waves of 128
  CHECK_FALSE(has_dstream(auto_candidates({4096, 4096, 4096}, false, all)));   // double only
  // gemm14 (gemm11_pf's 128² tile fed by TMA), always measured, for double wherever TMA describes
  // the operands and the 128² tile fits; never for float
  const auto has_g14 = has(Step::g14);
  CHECK(has_g14(auto_shortlist({4096, 4096, 4096}, true, all)));
  CHECK(has_g14(auto_shortlist({1000, 1000, 1000}, true, all)));
  CHECK(has_g14(auto_shortlist({513, 257, 130}, true, all)));
  CHECK_FALSE(has_g14(auto_candidates({4096, 4096, 4096}, false, all)));
  // Where `step` stands in a shortlist; its size where the shortlist does not hold it.
  const auto at = [](const std::vector<StepChoice>& l, Step step) {
    return std::find_if(l.begin(), l.end(), [step](StepChoice c) { return c.step == step; }) - l.begin();
  };
  // measured just before the 128² tile it feeds (its stream-K form between), where the model
  // shortlists that tile; once
  for (GemmShape sh : {GemmShape{4096, 4096, 4096}, GemmShape{2048, 2048, 2048}, GemmShape{8192, 8192, 8192},
                       GemmShape{1000, 1000, 1000}, GemmShape{513, 257, 130}}) {
    const auto l = auto_shortlist(sh, true, all);
    CHECK(std::count_if(l.begin(), l.end(), [](StepChoice c) { return c.step == Step::g14; }) == 1);
    const bool stream = has(Step::g14_stream)(l);
    if (has(Step::g11_128pf)(l)) {
      const auto first = std::min(at(l, Step::g14), at(l, Step::g14_stream));
      CHECK(first + (stream ? 2 : 1) == at(l, Step::g11_128pf));  // gemm14's forms, then the 128² tile
    }
  }
  // gemm13's stream-K form just before gemm13 unsplit where K >= 1024 (where it pays: 4096³ and
  // 8192³ on the H100), after the modelled steps where shallower
  for (GemmShape sh : {GemmShape{4096, 4096, 4096}, GemmShape{8192, 8192, 8192}, GemmShape{3000, 3000, 3000}}) {
    CAPTURE(sh.K);
    const auto l = auto_shortlist(sh, false, all);
    REQUIRE(has(Step::g13)(l));
    CHECK(at(l, Step::g13_stream) + 1 == at(l, Step::g13));
    CHECK(std::count_if(l.begin(), l.end(), [](StepChoice c) { return c.step == Step::g13_stream; }) == 1);
  }
  {
    const auto l = auto_shortlist({4096, 4096, 512}, false, all);  // 512 tiles as 4096³, K < 1024
    REQUIRE(has(Step::g13_stream)(l));
    CHECK(at(l, Step::g13_stream) > at(l, Step::g13));
  }
  // gemm14's stream-K form first where K >= 1024, its unsplit form first where shallower
  CHECK_FALSE(stream_first({4096, 4096, 1023}));
  CHECK(stream_first({4096, 4096, 1024}));
  CHECK(auto_shortlist({8192, 8192, 8192}, true, all).front().step == Step::g14_stream);
  CHECK(auto_shortlist({2048, 2048, 2048}, true, all).front().step == Step::g14);  // no stream-K form there
  // its stream-K form by gemm11's rule (the same tile), right after it
  const auto has_g14s = has(Step::g14_stream);
  CHECK(has_g14s(auto_shortlist({4096, 4096, 4096}, true, all)));
  CHECK(has_g14s(auto_shortlist({3000, 3000, 3000}, true, all)));
  CHECK_FALSE(has_g14s(auto_candidates({2048, 2048, 2048}, true, all)));  // the last wave 94% full
  CHECK_FALSE(has_g14s(auto_candidates({4096, 4096, 4096}, true, no_tma)));
  CHECK_FALSE(has_g14s(auto_candidates({4096, 4096, 4096}, false, all)));
  {
    const auto l = auto_shortlist({4096, 4096, 4096}, true, all);
    CHECK(l[0].step == Step::g14_stream);
    CHECK(l[1].step == Step::g14);
  }
  for (GemmShape sh : {GemmShape{4096, 4096, 4096}, GemmShape{3000, 3000, 3000}, GemmShape{6000, 6000, 6000},
                       GemmShape{8192, 8192, 8192}, GemmShape{4096, 4096, 1024}, GemmShape{4096, 4096, 1022},
                       GemmShape{1000, 1000, 1000}, GemmShape{2048, 2048, 2048}}) {
    const auto l = auto_shortlist(sh, true, all);
    if (has_g14s(l) && has(Step::g11_128pf)(l)) CHECK((at(l, Step::g14_stream) < at(l, Step::g14)) == stream_first(sh));
  }
  CHECK_FALSE(has_g14(auto_candidates({4096, 4096, 4096}, true, no_tma)));
  all.dmma_large = false;
  for (const StepChoice& c : auto_candidates({4096, 4096, 4096}, true, all))
    CHECK((c.step != Step::g11_128pf && c.step != Step::g11_stream && c.step != Step::g14 && c.step != Step::g14_stream));
  // The shortlist: its best first, nothing past kShortlist of it.
  CHECK(shortlist({3.0, 1.0, 1.2, 2.0}) == std::vector<int>{1, 2});
  CHECK(shortlist({1.0}) == std::vector<int>{0});
  CHECK(shortlist({}).empty());
  // The model's own arithmetic: one block on one SM of 132, one k tile, nothing moved to speak of.
  const StepModel m{64, 64, 16, 4, 4.0, 1.0, 0.5, 0.5, 0.0};
  CHECK(step_model_us(m, {64, 64, 16}, 1, 132, 4) == doctest::Approx(4.0 + 1.0 + 0.5));
  // 528 tiles on 132 SMs: 4 on the busiest, one group of 4 overlapping (1 + 3 × 0.5 blocks' time).
  CHECK(step_model_us(m, {64 * 24, 64 * 22, 16}, 1, 132, 4) == doctest::Approx(4.0 + 2.5 * 1.5));
}
