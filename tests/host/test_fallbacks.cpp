// A variant that hands some problems to another step (Variant::fallback: gemm13 and gemm14 where
// TMA cannot describe the operands) must name a step of the same list, one that takes every
// problem itself (no fallback of its own), or the GPU suite's bitwise case compares it with
// nothing. In a build without sm_90a no listed step has a fallback, and the case says so.
#include "common/args/gemm_args.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kl;

TEST_CASE_TEMPLATE("a fallback names a listed step that has none of its own", T, float, double) {
  const std::vector<GemmVariant<T>> list = gemm_handwritten<T>();
  int with_fallback = 0, tma_steps = 0;
  for (const auto& v : list) {
    const std::string name(v.info.name);
    const bool tma = (name.rfind("gemm13_", 0) == 0 && name.find("_ragged") == std::string::npos) ||
                     name.rfind("gemm14_", 0) == 0;  // gemm13's ragged form takes every product itself
    tma_steps += tma;
    if (tma) CHECK_MESSAGE(!v.fallback.empty(), name << " runs TMA and names no fallback");
    if (v.fallback.empty()) continue;
    ++with_fallback;
    const GemmVariant<T>* target = nullptr;
    for (const auto& w : list)
      if (w.info.name == v.fallback) target = &w;
    REQUIRE_MESSAGE(target != nullptr, name << "'s fallback " << std::string(v.fallback) << " is not in the list");
    CHECK_MESSAGE(target->fallback.empty(), name << "'s fallback " << std::string(v.fallback) << " has a fallback of its own");
    CHECK_MESSAGE(target->needs.compute_capability <= v.needs.compute_capability,
                  name << "'s fallback needs a newer GPU than it does");
  }
  CHECK(with_fallback == tma_steps);
  if (tma_steps == 0) MESSAGE("no sm_90a steps in this build: no fallbacks to check");
}
