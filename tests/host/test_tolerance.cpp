// The tolerance: derived from the error bound; a result just outside fails, just inside
// passes, NaN and Inf never pass.
#include "compare/core/reference.hpp"
#include "compare/core/tolerance.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace kl;

TEST_CASE("gamma(k) = k·u / (1 - k·u)") {
  const double u = 0x1p-24;
  CHECK(gamma_bound(0, u) == 0);
  CHECK(gamma_bound(10, u) == doctest::Approx(10 * u / (1 - 10 * u)));
  CHECK(std::isinf(gamma_bound(1 << 24, u)));  // k·u = 1: the bound says nothing
}

TEST_CASE("sum bound: just outside fails, just inside passes") {
  SumReference ref;
  ref.sum = 100.0;
  ref.abs_sum = 5000.0;
  ref.self_error = 0;
  const double u = 0x1p-24, depth = 30;
  const double b = sum_bound(ref, depth, u);
  CHECK(b == doctest::Approx(gamma_bound(depth, u) * 5000.0));
  CHECK(within(ref.sum + 0.99 * b, ref.sum, b));
  CHECK(within(ref.sum - 0.99 * b, ref.sum, b));
  CHECK_FALSE(within(ref.sum + 1.01 * b, ref.sum, b));
  CHECK_FALSE(within(ref.sum - 1.01 * b, ref.sum, b));
}

TEST_CASE("the bound grows with the tree height, so a deeper order is allowed more error") {
  SumReference ref;
  ref.abs_sum = 1e6;
  CHECK(sum_bound(ref, 1000, 0x1p-24) > sum_bound(ref, 28, 0x1p-24));
}

TEST_CASE("integers are exact") {
  SumReference ref;
  ref.abs_sum = 1e9;
  CHECK(sum_bound(ref, 1000, 0.0) == 0.0);
  CHECK(within(42, 42, 0));
  CHECK_FALSE(within(43, 42, 0));
}

TEST_CASE("NaN and Inf never pass, whatever the bound") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(within(nan, 1.0, 1e300));
  CHECK_FALSE(within(inf, 1.0, 1e300));
  CHECK_FALSE(within(-inf, 1.0, inf));
  CheckAccumulator acc;
  acc.add(0, 1.0, 1.0, 0.1);
  acc.add(1, nan, 1.0, 1e300);
  const Check c = acc.finish();
  CHECK_FALSE(c.pass);
  CHECK(c.bad_count == 1);
  CHECK(c.worst_index == 1);
  CHECK(c.detail.find("first at 1") != std::string::npos);
}

TEST_CASE("CheckAccumulator reports the worst element relative to its own bound") {
  CheckAccumulator acc;
  acc.add(0, 1.5, 1.0, 1.0);     // ratio 0.5
  acc.add(1, 10.09, 10.0, 0.1);  // ratio 0.9: the worst, though not the largest error
  acc.add(2, 2.0, 1.0, 10.0);    // ratio 0.1, largest absolute error
  const Check c = acc.finish();
  CHECK(c.pass);
  CHECK(c.worst_index == 1);
  CHECK(c.worst_ratio == doctest::Approx(0.9));
  CHECK(c.max_abs_err == doctest::Approx(1.0));
}

TEST_CASE("an empty check does not pass") {
  CheckAccumulator acc;
  CHECK_FALSE(acc.finish().pass);
}

TEST_CASE("checking in parallel chunks gives the sequential pass's result") {
  const std::size_t n = (std::size_t{1} << 20) + 17;
  std::vector<double> got(n), ref(n), bound(n);
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = static_cast<double>(i % 97);
    bound[i] = 1e-3 * (1 + i % 13);
    got[i] = ref[i] + bound[i] * ((i % 7) / 8.0);  // within
  }
  got[5000] = ref[5000] + 2 * bound[5000];  // the first out of bound
  got[700001] = std::numeric_limits<double>::quiet_NaN();
  got[900000] = ref[900000] + 50 * bound[900000];  // the worst
  CheckAccumulator seq;
  for (std::size_t i = 0; i < n; ++i) seq.add(i, got[i], ref[i], bound[i]);
  const Check a = seq.finish();
  const Check b = check_elements(n, [&](CheckAccumulator& acc, std::size_t i) { acc.add(i, got[i], ref[i], bound[i]); });
  CHECK(a.pass == b.pass);
  CHECK(b.bad_count == 3);
  CHECK(a.bad_count == b.bad_count);
  CHECK(a.worst_index == b.worst_index);
  CHECK(a.worst_ratio == b.worst_ratio);
  CHECK(a.max_abs_err == b.max_abs_err);
  CHECK(a.detail == b.detail);
  CHECK(b.detail.find("first at 5000") != std::string::npos);
}
