// The matrix-vector plans a rule picks (handwritten/gemv/matvec_plan.hpp), checked without a GPU
// against the plans that were measured (the sweeps: docs/gemv.md and docs/log.md, "gemv and gevm").
#include "handwritten/gemv/matvec_plan.hpp"

#include <doctest/doctest.h>

#include <initializer_list>

using namespace kl;

TEST_CASE("pow2_at_least: the smallest power of two >= n, capped") {
  CHECK(matvec::pow2_at_least(1, 32) == 1);
  CHECK(matvec::pow2_at_least(5, 32) == 8);
  CHECK(matvec::pow2_at_least(32, 32) == 32);
  CHECK(matvec::pow2_at_least(1000, 32) == 32);
  CHECK(matvec::pow2_at_least(0, 8) == 1);
}

// One measured plan: the shape (M rows of `items` items of item_bytes each), the SM count, and
// the plan the rule must give there; `pays` only for the deep plan (gevm_plan::deep_pays).
struct PlanCase {
  long long M;
  int items, item_bytes;
  long long sms;
  int C, S, slab;
  bool pays = true;
};

template <class Rule>
void check_plans(Rule rule, std::initializer_list<PlanCase> cases) {
  for (const PlanCase& c : cases) {
    CAPTURE(c.M);
    CAPTURE(c.items);
    CAPTURE(c.sms);
    const gevm_plan::Narrow p = rule(c.M, c.items, c.item_bytes, c.sms);
    CHECK(p.C == c.C);
    CHECK(p.S == c.S);
    CHECK(p.slab == c.slab);
    if (rule == &gevm_plan::deep) CHECK(gevm_plan::deep_pays(p) == c.pays);
  }
}

TEST_CASE("gevm6 _c128: the plans of the sweep (docs/gemv.md, gevm)") {
  check_plans(&gevm_plan::narrow, {
           // float 4096², 16-byte items: 128-byte tiles (8 items), 128 tiles < 132 SMs: 2 slabs
           // (the sweep's C8 U8 S2, ahead of _b1's C32 S8)
           {4096, 1024, 16, 132, 8, 2, 2048},
           // double 4096²: 256 tiles already fill the SMs: one slab (C8 U8 S1)
           {4096, 2048, 16, 132, 8, 1, 4096},
           // float 2500 × 2000: 63 tiles, 4 slabs of 625 rows (C8 U8 S4)
           {2500, 500, 16, 132, 8, 4, 625},
           // the scalar path (N not a multiple of 4): 32 items of 4 bytes are the 128-byte line; a
           // short matrix stops doubling where a slab would hold fewer rows than the block's 8 row
           // threads
           {33, 77, 4, 132, 32, 4, 9},
           // one column: one item per row, all 256 threads on rows; slabs only while each keeps
           // 256 rows
           {100003, 1, 4, 132, 1, 8, 12501},
           {600, 1, 4, 132, 1, 2, 300},
           // the rule reads the device: fewer SMs need fewer slabs, more SMs more
           {4096, 1024, 16, 64, 8, 1, 4096},
           {4096, 1024, 16, 264, 8, 4, 1024},
       });
}

TEST_CASE("gevm6 _c256: the deep plans of the second sweep (docs/gemv.md, gevm)") {
  check_plans(&gevm_plan::deep, {
           // float 4096²: 256-byte tiles (16 items), 64 tiles, 2 slabs (128 blocks <= 132; 4 would
           // be 256): C16 U32 S2, the fastest in both runs; 2048 rows = 4 rounds of 32 × 16 rows
           {4096, 1024, 16, 132, 16, 2, 2048, true},
           // double 4096²: 128 tiles, one slab (C16 U32 S1, a little ahead of _c128);
           // 8 rounds
           {4096, 2048, 16, 132, 16, 1, 4096, true},
           // float 2500 × 2000: 32 tiles, 4 slabs of 625 rows, 1.2 rounds: _c128 instead (the deep
           // plan's C16 U32 S4 ran well behind _c128)
           {2500, 500, 16, 132, 16, 4, 625, false},
           // the scalar path: 4-byte items, 32 of them per tile (128 bytes: the cap is 32 items)
           {4096, 4096, 4, 132, 32, 1, 4096, true},
           // short matrices: slabs double only while each keeps a row for each of the 8 row
           // threads (256 / 32); 9 rows are far from two rounds
           {33, 77, 4, 132, 32, 4, 9, false},
           // the rule reads the device: half the SMs, half the slabs
           {4096, 1024, 16, 66, 16, 1, 4096, true},
       });
}
