// Two-sample t tests, two-sided: what `compare diff` judges the per-pass medians of two runs with
// when both have enough passes (diff.hpp says when and why).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace kl {

struct WelchTest {
  bool ran = false;  // false: a side has fewer than 2 values (why_not says so)
  std::size_t n1 = 0, n2 = 0;
  double t = 0;   // (mean(b) - mean(a)) / standard error: positive when b is larger
  double df = 0;  // Welch-Satterthwaite degrees of freedom, or n1 + n2 - 2 when pooled
  bool pooled = false;  // Student's pooled-variance test (pass_t chose it: equal sizes)
  double p = 1;   // two-sided
  std::string why_not;
};

// Welch's t test of a against b (scipy.stats.ttest_ind(a, b, equal_var=False) up to the sign of
// t). Both sides without spread: p = 0 when their means differ, 1 when they are equal.
WelchTest welch_t(std::span<const double> a, std::span<const double> b);

// Student's t test with the pooled variance (scipy.stats.ttest_ind(a, b), equal_var=True).
WelchTest student_t(std::span<const double> a, std::span<const double> b);

// The test `compare diff` runs on pass medians: Student's where both sides have as many values,
// Welch's otherwise. With equal sizes the pooled test keeps its level when the two variances
// differ (the pooled standard error then equals Welch's), and it has all n1 + n2 - 2 degrees of
// freedom, where Welch-Satterthwaite's estimate falls towards n - 1 whenever one side happens
// to scatter more: with 3 to 5 passes a side that alone costs most of the power.
WelchTest pass_t(std::span<const double> a, std::span<const double> b);

// P(|T| >= |t|) for Student's t with `df` degrees of freedom (df > 0, not necessarily whole).
double student_t_two_sided_p(double t, double df);

}  // namespace kl
