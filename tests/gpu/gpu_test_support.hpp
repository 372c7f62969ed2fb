// Shared by the GPU suite: run a family's variants in validate-only mode through the real
// runner core (same inputs, reference, poison and bounds as `compare`), and helpers for
// negative controls.
#pragma once

#include "compare/execute.hpp"
#include "compare/family.hpp"
#include "compare/timing.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace kl::test {

// One device context for the whole suite.
struct Gpu {
  DeviceInfo dev = query_device(0);
  GpuTimer timer{dev.l2_bytes};
  RunOptions opt = [] {
    RunOptions o;
    o.time_variants = false;  // validate only; fresh random inputs for every problem
    return o;
  }();
  RunContext ctx() { return RunContext{opt, dev, 1.0, timer}; }
  static Gpu& get() {
    static Gpu g;
    return g;
  }
};

// KL_GPU_SUITE_QUICK=1 leaves out the largest shapes (8192³, 2^24+3); =2 keeps only shapes up
// to a few hundred per side, still odd and partial-tile (used under compute-sanitizer, which
// slows kernels by 10-1000×).
inline int quick() {
  const char* q = std::getenv("KL_GPU_SUITE_QUICK");
  return q && *q ? std::atoi(q) : 0;
}

// Every row of the problem must pass its reference check and its library cross-check.
inline void expect_all_pass(const std::vector<Row>& rows) {
  REQUIRE_FALSE(rows.empty());
  for (const Row& r : rows) {
    INFO(r.family << " " << r.dtype << " " << r.shape << " " << r.variant << ": " << status_name(r.status) << " " << r.note);
    CHECK(r.status == RowStatus::ok);
    CHECK(r.check.ran);
    if (r.source == "handwritten") CHECK(r.library_check.ran);
  }
}

inline std::vector<Row> run_family(const char* family, DType t, const Dims& d) {
  const Family* f = find_family(family);
  REQUIRE(f != nullptr);
  RunContext ctx = Gpu::get().ctx();
  return f->run(t, d, ctx);
}

}  // namespace kl::test
