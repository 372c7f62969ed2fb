// Welch's two-sample t test, two-sided: what `compare diff` judges the per-pass medians of two
// runs with when both have enough passes (diff.hpp says when and why).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace kl {

struct WelchTest {
  bool ran = false;  // false: a side has fewer than 2 values (why_not says so)
  std::size_t n1 = 0, n2 = 0;
  double t = 0;   // (mean(b) - mean(a)) / standard error: positive when b is larger
  double df = 0;  // Welch-Satterthwaite degrees of freedom
  double p = 1;   // two-sided
  std::string why_not;
};

// Welch's t test of a against b (scipy.stats.ttest_ind(a, b, equal_var=False) up to the sign of
// t). Both sides without spread: p = 0 when their means differ, 1 when they are equal.
WelchTest welch_t(std::span<const double> a, std::span<const double> b);

// P(|T| >= |t|) for Student's t with `df` degrees of freedom (df > 0, not necessarily whole).
double student_t_two_sided_p(double t, double df);

}  // namespace kl
