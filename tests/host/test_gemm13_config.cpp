// gemm13's geometry (handwritten/gemm/gemm13_config.hpp) for every configuration the gemm list
// registers in sm_90a builds, checked without a GPU: their names, and what the kernel's comments
// claim about shared memory, registers, rows and the transposing producer.
#include "common/tensor_map_2d.hpp"
#include "handwritten/gemm/gemm13_config.hpp"

#include <doctest/doctest.h>

#include <set>
#include <vector>

using namespace kl::gemm13;

namespace {

constexpr int kSmemOptIn = 227 * 1024;  // Hopper's largest dynamic shared memory per block

template <class C, int WM, int TM>
void check_geometry() {
  // Shared memory: the stages, the staging buffers and the barriers fit; the swizzled boxes start
  // on 1024-byte boundaries (TMA's 128-byte swizzle repeats every 1024 bytes), the ragged form's
  // stages (no TMA, no swizzle) on the 16 bytes of an LDS.128.
  CHECK(C::kSmemBytes <= std::size_t(kSmemOptIn));
  CHECK(C::kStageBytes % (C::RAGGED ? 16 : 1024) == 0);
  CHECK(C::kABytes % 16 == 0);
  CHECK(C::kStagingOffset % 1024 == 0);
  CHECK(C::kBarrierOffset % 8 == 0);
  // Registers: setmaxnreg grows the FMA warps and shrinks the producer warpgroup within the file.
  if constexpr (C::SETMAXNREG) {
    const int start = 65536 / C::kThreads / 8 * 8;
    CHECK(C::kRegsConsumer >= start);
    CHECK(C::kRegsProducer <= start);
    CHECK(C::kRegsProducer >= 24);
    CHECK(C::kRegsProducer % 8 == 0);
    CHECK(C::kConsumers * C::kRegsConsumer + 128 * C::kRegsProducer <= 65536);
  }
  // A thread's rows cover its warp tile once, and grow with i (the epilogue stops at the first
  // row past M).
  std::multiset<int> rows;
  for (int lm = 0; lm < C::kLanesM; ++lm)
    for (int i = 0; i < TM; ++i) {
      rows.insert(C::row_in_warp(lm, i));
      if (i > 0) CHECK(C::row_in_warp(lm, i) > C::row_in_warp(lm, i - 1));
    }
  CHECK(rows.size() == std::size_t(WM));
  for (int r = 0; r < WM; ++r) CHECK(rows.count(r) == 1);
}

// The swizzle of A's box rows: in each row the chunks are a permutation, and 8 consecutive rows
// (a quarter warp of the transposing producer, or the kLanesM rows of one FMA-warp load) put the
// same logical chunk into 8 different 16-byte bank groups.
template <class C, int BM>
void check_swizzle() {
  const int chunks = C::kRowBytes / 16;
  for (int m = 0; m < BM; ++m) {
    std::set<int> phys;
    for (int c = 0; c < chunks; ++c) phys.insert(c ^ C::row_swizzle_of(m));
    CHECK(int(phys.size()) == chunks);
    CHECK(*phys.rbegin() == chunks - 1);
  }
  if (C::kRowBytes == 128)
    for (int m0 = 0; m0 < BM; m0 += 8)
      for (int c = 0; c < chunks; ++c) {
        std::set<int> groups;
        for (int m = m0; m < m0 + 8; ++m) groups.insert(((m * C::kRowBytes) / 16 + (c ^ C::row_swizzle_of(m))) % 8);
        CHECK(groups.size() == 8);
      }
}

// The two tensor maps the launcher encodes (gemm13_tma_warpspecialized.cuh's launch) are maps TMA
// can describe whenever the launcher takes the TMA path (K and N multiples of 4): A's boxes of
// kABoxK × BM within the swizzle that matches their rows, B's of BN × kBPartK unswizzled.
template <class C>
void check_maps() {
  for (const int M : {1, 67, 4096, 65535})
    for (const int K : {4, 100, 4096})
      CHECK(kl::tma_describes(kl::row_major_2d(M, K, C::BM, C::kABoxK, sizeof(float)), sizeof(float), C::kRowBytes));
  for (const int N : {4, 132, 4096})
    CHECK(kl::tma_describes(kl::row_major_2d(4096, N, C::kBPartK, C::BN, sizeof(float)), sizeof(float)));
  CHECK_FALSE(kl::tma_describes(kl::row_major_2d(4096, 4097, C::BM, C::kABoxK, sizeof(float)), sizeof(float), C::kRowBytes));
}

}  // namespace

TEST_CASE("gemm13 tensor maps: every registered form's maps are ones TMA describes") {
  check_maps<R232>();
  check_maps<R232At>();
  check_maps<R0>();
  check_maps<R232C2>();
  check_maps<Small64>();
  check_maps<Small64s3>();
  // (R232Ragged has no maps: its producer copies with cp.async)
}

TEST_CASE("gemm13 names: each registered form's name, built from its parameters") {
  // The names reports and renames know these variants by (compare --list in an sm_90a build).
  CHECK(R232::name() == "gemm13_tma_warpspecialized_256x128x32_w64x64_t8x16_s4_r232");
  CHECK(R232At::name() == "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at");
  CHECK(R0::name() == "gemm13_tma_warpspecialized_256x128x32_w64x64_t8x16_s4_r0");
  CHECK(R232C2::name() == "gemm13_tma_warpspecialized_256x128x32_w64x64_t8x16_s4_r232_c2");
  CHECK(R232Ragged::name() == "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at_ragged");
  CHECK(Small64::name() == "gemm13_tma_warpspecialized_64x64x32_w16x64_t4x8_s4_r0");
  CHECK(Small64s3::name() == "gemm13_tma_warpspecialized_64x64x32_w16x64_t4x8_s3_r0");
  // A form nobody registers still says every parameter.
  CHECK(Config<256, 128, 32, 64, 64, 8, 16, 4, 0, 2>::name() == "gemm13_tma_warpspecialized_256x128x32_w64x64_t8x16_s4_r0_c2");
}

TEST_CASE("gemm13 geometry: the configurations of the gemm list") {
  using C2 = R232C2;
  using AT = R232At;
  check_geometry<R232, 64, 8>();
  check_geometry<R0, 64, 8>();
  check_geometry<C2, 64, 8>();
  check_geometry<AT, 64, 8>();
  check_geometry<R232Ragged, 64, 8>();
  check_geometry<Small64, 16, 4>();
  check_geometry<Small64s3, 16, 4>();
  check_swizzle<R232, 256>();
  check_swizzle<Small64, 64>();
  check_swizzle<AT, 128>();

  // The sizes README.md's requirements table gives (192.1 KB, _at 224.1 KB).
  CHECK(R232::kSmemBytes == 196672);
  CHECK(AT::kSmemBytes == 229456);
  // Threads: two FMA warpgroups and the producer warpgroup; without setmaxnreg no extra warp.
  CHECK(R232::kThreads == 384);
  CHECK(R0::kThreads == 256);
  CHECK(AT::kThreads == 384);
  CHECK(R232::kRegsProducer == 40);
  // Arrivals: one per FMA warp (of each CTA of the cluster); every thread in the transposing form.
  CHECK(R232::kEmptyArrivals == 8);
  CHECK(C2::kEmptyArrivals == 16);
  CHECK(R232::kFullArrivals == 1);
  CHECK(AT::kEmptyArrivals == 256);
  CHECK(AT::kFullArrivals == 128);
  // Staging buffers: 128 × 256's A tile (16 KiB) leaves room for two beside 4 stages; 256 × 128's
  // (32 KiB) for one beside 4 stages, two beside 3 (the forms measured: docs/sgemm-ladder.md,
  // "gemm13: what Hopper adds to a CUDA-core GEMM").
  CHECK(AT::kStaging == 2);
  CHECK(Config<256, 128, 32, 64, 64, 8, 16, 4, 232, 1, true>::kStaging == 1);
  CHECK(Config<256, 128, 32, 64, 64, 8, 16, 3, 232, 1, true>::kStaging == 2);
  CHECK(R232::kStaging == 0);
  // Blocks an SM (the _r0 kernel's launch bound, the small tile's split rule): one at gemm13's own
  // tiles; at the 64² tile 16 KiB a stage, so three blocks at four stages, four at three; four
  // FMA warps, no producer warpgroup.
  CHECK(R232::kResidentBlocks == 1);
  CHECK(R0::kResidentBlocks == 1);
  CHECK(AT::kResidentBlocks == 1);
  CHECK(Small64::kStageBytes == 16384);
  CHECK(Small64::kThreads == 128);
  CHECK(Small64::kResidentBlocks == 3);
  CHECK(Small64s3::kResidentBlocks == 4);
  CHECK(Small64::kEmptyArrivals == 4);
}

TEST_CASE("gemm13 transposing form: a thread's A loads are its rows, 4 consecutive each") {
  using AT = R232At;
  // The FMA warps read rows 4·lm + 4·kLanesM·q .. + 3 of [k][m] with one LDS.128 (the kernel's
  // a4[q]); element e of that load is the thread's row i = 4q + e.
  for (int lm = 0; lm < AT::kLanesM; ++lm)
    for (int q = 0; q < 8 / 4; ++q)
      for (int e = 0; e < 4; ++e) CHECK(AT::row_in_warp(lm, 4 * q + e) == 4 * lm + 4 * AT::kLanesM * q + e);
  // The producer writes element (m, k) of the tile to [k][m] at k·BM + m: every float of the
  // stage's A once, from every (row, chunk, element) of the staging buffer once.
  constexpr int BM = 128, BK = 32;
  std::vector<int> hits(BM * BK, 0);
  for (int m = 0; m < BM; ++m)
    for (int c = 0; c < BK / 4; ++c)
      for (int e = 0; e < 4; ++e) ++hits[(4 * c + e) * BM + m];
  for (int h : hits) CHECK(h == 1);
}

TEST_CASE("gemm13 ragged form: each element of a stage copied once, each warp's copy whole sectors and 32 banks") {
  using R = R232Ragged;
  // No staging buffer; A's [k][m] rows padded to BM + 4 floats; the transposing form's arrivals.
  CHECK(R::kStaging == 0);
  CHECK(R::kAPitch == R::BM + 4);
  CHECK(R::kStageBytes == (R::BK * (R::BM + 4) + R::BK * R::BN) * 4);
  CHECK(R::kSmemBytes == std::size_t(4 * R::kStageBytes + 8 * 8));
  CHECK(R::kFullArrivals == 128);
  CHECK(R::kEmptyArrivals == 256);
  std::vector<int> a(R::BM * R::BK, 0), b(R::BK * R::BN, 0);
  for (int p = 0; p < 128; ++p) {
    for (int j = 0; j < R::kRaggedARows; ++j)
      for (int c = 0; c < R::kRaggedAK; ++c) {
        const auto e = R::ragged_a(p, j, c);
        REQUIRE((e.row >= 0 && e.row < R::BM && e.col >= 0 && e.col < R::BK));
        ++a[e.row * R::BK + e.col];
      }
    for (int i = 0; i < R::kRaggedBK; ++i)
      for (int q = 0; q < R::kRaggedBCols; ++q) {
        const auto e = R::ragged_b(p, i, q);
        REQUIRE((e.row >= 0 && e.row < R::BK && e.col >= 0 && e.col < R::BN));
        ++b[e.row * R::BN + e.col];
      }
  }
  for (int h : a) CHECK(h == 1);
  for (int h : b) CHECK(h == 1);
  // One warp's copy (w, j, c) of A: its 32 elements lie in 4 rows of 8 consecutive k (so each
  // row's 32 bytes are at most two sectors), and [k][m] at k·kAPitch + m puts them in 32 banks;
  // of B (w, i, q): 32 consecutive columns of one k row, 32 banks.
  for (int w = 0; w < 4; ++w) {
    for (int j = 0; j < R::kRaggedARows; ++j)
      for (int c = 0; c < R::kRaggedAK; ++c) {
        std::set<int> rows, banks;
        std::set<std::pair<int, int>> runs;
        for (int l = 0; l < 32; ++l) {
          const auto e = R::ragged_a(32 * w + l, j, c);
          rows.insert(e.row);
          runs.insert({e.row, e.col / 8});
          banks.insert((e.col * R::kAPitch + e.row) % 32);
        }
        CHECK(rows.size() == 4);
        CHECK(runs.size() == 4);  // one run of 8 k per row
        CHECK(banks.size() == 32);
      }
    for (int i = 0; i < R::kRaggedBK; ++i)
      for (int q = 0; q < R::kRaggedBCols; ++q) {
        std::set<int> krows, banks, cols;
        for (int l = 0; l < 32; ++l) {
          const auto e = R::ragged_b(32 * w + l, i, q);
          krows.insert(e.row);
          cols.insert(e.col);
          banks.insert((e.row * R::BN + e.col) % 32);
        }
        CHECK(krows.size() == 1);
        CHECK(*cols.rbegin() - *cols.begin() == 31);
        CHECK(banks.size() == 32);
      }
  }
  // Without the padding the same copies of A would meet 4 banks only (8 k rows a multiple of 32
  // floats apart): the reason for kAPitch.
  std::set<int> unpadded;
  for (int l = 0; l < 32; ++l) {
    const auto e = R::ragged_a(l, 0, 0);
    unpadded.insert((e.col * R::BM + e.row) % 32);
  }
  CHECK(unpadded.size() == 4);
}
