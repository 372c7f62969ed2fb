// The index arithmetic of the last gemm steps (handwritten/gemm/gemm_plan.hpp), checked
// exhaustively on the host: the kernels call exactly these functions, so a tile visited twice,
// a layout that overwrites itself, a bank conflict the headers say is not there, a fragment
// that misses an element or a split slice left empty fails here, before any GPU run.
#include "handwritten/gemm/gemm_plan.hpp"

#include <doctest/doctest.h>

#include <set>
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
        REQUIRE(tm >= 0);
        REQUIRE(tm < int(gy));
        REQUIRE(tn >= 0);
        REQUIRE(tn < int(gx));
        REQUIRE(seen.insert({tm, tn}).second);
      }
    CHECK(seen.size() == std::size_t(gx) * gy);
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
  CHECK(wave(132) == 123);
  CHECK(tiles_of({2048, 2048, 2048}, 256, 128) >= wave(132));  // gemm12's tile at 2048³
  CHECK(tiles_of({1000, 1000, 1000}, 64, 64) >= wave(132));    // double 1000³: the 64² DMMA tile
  CHECK(tiles_of({513, 257, 129}, 64, 64) < wave(132));        // 513x257x129: 45 tiles ...
  CHECK(tiles_of({513, 257, 129}, 32, 32) >= wave(132));       // ... the 32² tile unsplit (153)
  // double: the widest DMMA tile that fills a wave (docs/sgemm-ladder.md, "Every shape class")
  CHECK(dmma_tile({2048, 2048, 2048}, 132, true) == 128);   // 256 tiles of 128²
  CHECK(dmma_tile({8192, 8192, 8192}, 132, true) == 128);
  CHECK(dmma_tile({2048, 2048, 2048}, 132, false) == 64);   // 128² does not fit (8.6's 99 KB)
  CHECK(dmma_tile({1000, 1000, 1000}, 132, true) == 64);    // 64 tiles of 128², 256 of 64²
  CHECK(dmma_tile({513, 257, 129}, 132, true) == 32);       // 45 tiles of 64²
  CHECK(dmma_tile({1408, 1408, 128}, 132, true) == 64);     // 121 tiles of 128²: short of 123
  CHECK(dmma_tile({1536, 1536, 128}, 132, true) == 128);    // 144 tiles of 128²
  // A shallow product (K <= 64: the whole k range in the 4-stage ring) keeps the 64² tile, without
  // the prefetch, however many 128² tiles it has: measured on the H100 (docs/sgemm-ladder.md,
  // "gemm_auto's rules"), 4097×4095×17 and 3001×2999×61 ran fastest on gemm11 64² unprefetched.
  CHECK(shallow_k({4097, 4095, 17}));
  CHECK(shallow_k({3001, 2999, 64}));
  CHECK_FALSE(shallow_k({3001, 2999, 65}));
  CHECK(dmma_tile({4097, 4095, 17}, 132, true) == 64);
  CHECK(dmma_tile({3001, 2999, 61}, 132, true) == 64);
  CHECK(dmma_tile({1536, 1536, 64}, 132, true) == 64);
  CHECK_FALSE(dmma_prefetch({4097, 4095, 17}));
  CHECK_FALSE(dmma_prefetch({3001, 2999, 61}));
  CHECK(dmma_prefetch({1000, 1000, 1000}));                 // deep: the prefetching 64² tile
  CHECK(dmma_prefetch({2048, 2048, 2048}));
  // ... and k is split only on the 32² floor, where even its tiles are short of a wave
  CHECK_FALSE(dmma_split_k({513, 257, 129}, 132, true));    // 153 tiles of 32²: unsplit
  CHECK_FALSE(dmma_split_k({2048, 2048, 2048}, 132, true));
  CHECK_FALSE(dmma_split_k({1000, 1000, 1000}, 132, false)); // the 64² tile
  CHECK(dmma_split_k({100, 100, 4096}, 132, true));         // 16 tiles of 32²
  CHECK(dmma_split_k({352, 352, 64}, 132, true));           // 121 tiles of 32²: short of 123
  CHECK_FALSE(dmma_split_k({384, 352, 64}, 132, true));     // 132 tiles of 32²
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
  CHECK(used({513, 257, 129}) == 1);    // the fill rule: 3 slices, 11.26 against 10.40 µs
  CHECK(used({700, 600, 200}) == 1);    // fill: 4, 15.94 against 12.03
  CHECK(used({1000, 1000, 300}) == 1);  // fill: 2
  CHECK(used({1000, 700, 120}) == 1);
  CHECK(used({513, 257, 257}) == 5);
  CHECK(used({300, 200, 1000}) == 13);  // fill: 16
  CHECK(used({129, 129, 4097}) == 14);  // fill: 16 (144 blocks: two on twelve SMs), 27.71 against 20.96
  CHECK(used({97, 513, 3001}) == 14);
  CHECK(used({1000, 1000, 1000}) == 2);
  CHECK(used({60, 2000, 1000}) == 8);
  CHECK(used({2000, 1000, 500}) == 1);
  // ... and where it did not: 3000×200×300, one slice where two were 8.4% faster.
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
