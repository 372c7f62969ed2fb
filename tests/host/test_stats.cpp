// Statistics and the stopping rule (compare/core/stats.hpp).
// (Figures in this file's comments are unmeasured: the tests' own samples.)
#include "compare/core/stats.hpp"

#include <doctest/doctest.h>

using namespace kl;

TEST_CASE("summarize: median, min, max, mean, noise") {
  const SampleStats s = summarize({3.0, 1.0, 2.0});
  CHECK(s.samples == 3);
  CHECK(s.median == 2.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 3.0);
  CHECK(s.mean == doctest::Approx(2.0));
  CHECK(s.noise == doctest::Approx(0.5));  // sample std. dev. 1 over mean 2
  CHECK(summarize({4.0, 1.0, 2.0, 3.0}).median == 2.5);
  CHECK(summarize({5.0}).noise == 0.0);
  CHECK(summarize({}).samples == 0);
}

TEST_CASE("stop rule: minimum samples, then the noise target, then the caps") {
  StopRule r;
  r.min_samples = 5;
  r.max_samples = 50;
  r.max_noise = 0.01;
  r.max_seconds = 10;
  std::vector<double> quiet(4, 1.0);
  CHECK(r.check(quiet, 0.1) == StopRule::Verdict::more);  // too few
  quiet.push_back(1.0);
  CHECK(r.check(quiet, 0.1) == StopRule::Verdict::converged);
  std::vector<double> noisy;
  for (int i = 0; i < 10; ++i) noisy.push_back(i % 2 ? 1.0 : 2.0);
  CHECK(r.check(noisy, 0.1) == StopRule::Verdict::more);
  CHECK(r.check(noisy, 11.0) == StopRule::Verdict::capped);  // wall-time cap
  noisy.resize(50, 1.5);
  CHECK(r.check(noisy, 0.1) == StopRule::Verdict::capped);   // sample cap
}

TEST_CASE("stop rule: a slow kernel still gets floor_samples before the time cap stops it") {
  StopRule r;
  r.max_seconds = 1;
  r.floor_samples = 3;
  CHECK(r.check({900.0, 950.0}, 2.0) == StopRule::Verdict::more);
  CHECK(r.check({900.0, 950.0, 920.0}, 3.0) == StopRule::Verdict::capped);
}

TEST_CASE("stop rule: min_seconds of measured time") {
  StopRule r;
  r.min_samples = 2;
  r.min_seconds = 0.01;  // 10 ms
  CHECK(r.check({1.0, 1.0}, 0.0) == StopRule::Verdict::more);
  CHECK(r.check(std::vector<double>(10, 1.0), 0.0) == StopRule::Verdict::converged);
}
