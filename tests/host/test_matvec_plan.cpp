// The matrix-vector plans a rule picks (handwritten/gemv/matvec_plan.hpp), checked without a GPU
// against the plans that were measured.
#include "handwritten/gemv/matvec_plan.hpp"

#include <doctest/doctest.h>

using namespace kl;

TEST_CASE("pow2_at_least: the smallest power of two >= n, capped") {
  CHECK(matvec::pow2_at_least(1, 32) == 1);
  CHECK(matvec::pow2_at_least(5, 32) == 8);
  CHECK(matvec::pow2_at_least(32, 32) == 32);
  CHECK(matvec::pow2_at_least(1000, 32) == 32);
  CHECK(matvec::pow2_at_least(0, 8) == 1);
}

TEST_CASE("gevm6 _c128: the plans of the sweep (results/h100/session30/gevm_sweep.log)") {
  using gevm_plan::narrow;
  // float 4096², 16-byte items: 128-byte tiles (8 items), 128 tiles < 132 SMs: 2 slabs
  // (the sweep's C8 U8 S2, 26.6 µs against _b1's C32 S8, 27.2).
  auto p = narrow(4096, 1024, 16, 132);
  CHECK(p.C == 8);
  CHECK(p.S == 2);
  CHECK(p.slab == 2048);
  // double 4096²: 256 tiles already fill the SMs: one slab (C8 U8 S1).
  p = narrow(4096, 2048, 16, 132);
  CHECK(p.C == 8);
  CHECK(p.S == 1);
  CHECK(p.slab == 4096);
  // float 2500 × 2000: 63 tiles, 4 slabs of 625 rows (C8 U8 S4, 12.26 µs).
  p = narrow(2500, 500, 16, 132);
  CHECK(p.C == 8);
  CHECK(p.S == 4);
  CHECK(p.slab == 625);
  // The scalar path (N not a multiple of 4): 32 items of 4 bytes are the 128-byte line; a short
  // matrix stops doubling where a slab would hold fewer rows than the block's 8 row threads.
  p = narrow(33, 77, 4, 132);
  CHECK(p.C == 32);
  CHECK(p.S == 4);
  CHECK(p.slab == 9);
  // One column: one item per row, all 256 threads on rows; slabs only while each keeps 256 rows.
  p = narrow(100003, 1, 4, 132);
  CHECK(p.C == 1);
  CHECK(p.S == 8);
  p = narrow(600, 1, 4, 132);
  CHECK(p.S == 2);
  // The rule reads the device: fewer SMs need fewer slabs, more SMs more.
  CHECK(narrow(4096, 1024, 16, 64).S == 1);
  CHECK(narrow(4096, 1024, 16, 264).S == 4);
}
