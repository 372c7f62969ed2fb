// The two-sided Mann-Whitney U test (Wilcoxon rank-sum), exact for small samples: what
// `compare diff` judges two runs' samples with (diff.hpp says how).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace kl {

// ---- the Mann-Whitney U test --------------------------------------------------------------

struct UTest {
  bool ran = false;          // false: a sample has fewer than 2 values (why_not says so)
  std::size_t n1 = 0, n2 = 0;
  double u1 = 0, u2 = 0;     // u1: pairs (a_i, b_j) with a_i > b_j, plus half the ties; u1 + u2 = n1*n2
  double p = 1;              // two-sided
  bool exact = false;        // exact permutation distribution (with the ties as observed), else
                             // the normal approximation with tie and continuity corrections
  double z = 0;              // the corrected normal deviate (normal approximation only)
  double min_p = 0;          // the smallest p these sample sizes and ties can give at all
  std::string why_not;
};

// The U test of a against b (scipy.stats.mannwhitneyu(a, b, alternative='two-sided') convention:
// u1 is a's statistic). Exact when the smaller sample times the total is at most
// kUTestExactLimit (44 vs 44, 10 vs 390), which covers the runner's usual 10-sample rows; the
// normal approximation beyond, where it is accurate.
UTest mann_whitney_u(std::span<const double> a, std::span<const double> b);
inline constexpr std::size_t kUTestExactLimit = 4000;

}  // namespace kl
