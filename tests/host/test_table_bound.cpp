// The table family's error bound (compare/families/family_table.hpp) against float arithmetic emulated on
// the host, where every step can be reproduced exactly: the argument fl(fl(i)·s), an IEEE or a
// one-ulp-off square root, a correctly rounded sine, and __sinf's scaling to revolutions
// (truncated product by fl(1/(2π))). The emulated results must stay within the bound of their
// model at every element; the functions' own documented errors (sinf's 2 ulps, MUFU.SIN's
// 2^-21.41) are the part no emulation can reproduce, and only widen it. Past π, where the guide
// documents nothing, MUFU.SIN's own error is also added adversarially (both signs).
#include "compare/families/family_table.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

using namespace kl;

namespace {

// Round a double to float toward zero (FMUL.RZ).
float to_float_rz(double d) {
  float f = static_cast<float>(d);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return f;
}

}  // namespace

TEST_CASE("emulated float tables stay within their error model's bound") {
  const TableBound accurate(*find_table_model("sinf(sqrtf)"));
  const TableBound fast(*find_table_model("__sinf(sqrt.approx)"));
  const float c32 = 0.15915493667125701904f;
  // MUFU.SIN's own error as far as the documentation bounds it (compare/families/family_table.hpp).
  const double eps_c = std::fabs(static_cast<double>(c32) * 2 * std::numbers::pi - 1);
  const double mufu_own = std::exp2(-21.41) + std::numbers::pi * (0x1p-23 * (1 + eps_c) + eps_c);
  for (float step : {1e-5f, 1e-3f, 0.37f, 1.0f, 3.7f}) {
    const std::size_t n = 200000;
    std::vector<double> ref(n), x(n);
    reference_table_host(static_cast<double>(step), n, ref.data(), x.data());
    double worst_acc = 0, worst_fast = 0;
    for (std::size_t i = 0; i < n; i += (i < 70000 ? 1 : 7)) {
      CAPTURE(step);
      CAPTURE(i);
      const double eps = table_reference_error(x[i]);
      const float p = static_cast<float>(i) * step;  // IEEE float multiply, as the kernels do
      // Accurate: IEEE sqrtf, then a correctly rounded sine (sinf may be 2 ulps off that).
      const float q = std::sqrt(p);
      const float y = static_cast<float>(std::sin(static_cast<double>(q)));
      const double b = accurate(x[i], ref[i], eps);
      REQUIRE(std::fabs(y - ref[i]) <= b);
      worst_acc = std::max(worst_acc, std::fabs(y - ref[i]) / b);
      // Intrinsics: a square root one ulp off (sqrt.approx's documented error), the argument
      // truncated to revolutions as __sinf does, an exact sine of those revolutions.
      for (float qa : {std::nextafter(q, 0.0f), std::nextafter(q, INFINITY)}) {
        const float t = to_float_rz(static_cast<double>(qa) * static_cast<double>(c32));
        const double yf = std::sin(2 * std::numbers::pi * static_cast<double>(t));
        const double bf = fast(x[i], ref[i], eps);
        REQUIRE(std::fabs(yf - ref[i]) <= bf);
        worst_fast = std::max(worst_fast, std::fabs(yf - ref[i]) / bf);
        // Past π, MUFU.SIN may be off the sine of its revolutions by as much as the guide's
        // total on [-π, π] plus the FMUL.RZ shift that total contains: either sign must pass.
        if (qa > std::numbers::pi) {
          for (double sign : {-1.0, 1.0}) REQUIRE(std::fabs(yf + sign * mufu_own - ref[i]) <= bf);
        }
      }
    }
    // Not vacuous: the emulated errors reach a visible part of the bound.
    CAPTURE(step);
    CHECK(worst_acc > 0.05);
    CHECK(worst_fast > 0.05);
  }
}

TEST_CASE("the table bound grows with the argument and vanishes only with it") {
  const TableBound accurate(*find_table_model("sinf(sqrtf)"));
  const TableBound fast(*find_table_model("__sinf(sqrt.approx)"));
  CHECK(accurate(0, 0, 0) < 1e-40);  // sin(0) = 0 exactly
  CHECK(fast(0, 0, 0) == doctest::Approx(std::exp2(-21.41)).epsilon(1e-6));
  // Where the sine is steep (|cos| = 1) the propagated argument error dominates at large x.
  CHECK(accurate(1e4 * std::numbers::pi, 0, 0) > 1e4 * std::numbers::pi * 0x1p-24);
  CHECK(fast(1e4 * std::numbers::pi, 0, 0) > accurate(1e4 * std::numbers::pi, 0, 0));
  CHECK(find_table_model("") == find_table_model("sinf(sqrtf)"));
  CHECK(find_table_model("nosuch") == nullptr);
}
