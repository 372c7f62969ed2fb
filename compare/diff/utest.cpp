#include "compare/diff/utest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace kl {

// ---- the Mann-Whitney U test --------------------------------------------------------------
//
// Both samples are ranked together; tied values share the mean of their ranks (midranks).
// Midranks are kept doubled, so every rank and rank sum is an integer and the exact
// distribution can be indexed by it.

namespace {

struct TieGroup {
  long long rank2;   // doubled midrank of the group
  std::size_t size;  // values in the group
  std::size_t in_a;  // of which from the first sample
};

std::vector<TieGroup> rank_groups(std::span<const double> a, std::span<const double> b) {
  std::vector<std::pair<double, bool>> all;  // (value, from a)
  all.reserve(a.size() + b.size());
  for (double x : a) all.emplace_back(x, true);
  for (double x : b) all.emplace_back(x, false);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<TieGroup> groups;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i, in_a = 0;
    while (j < all.size() && all[j].first == all[i].first) in_a += all[j++].second;
    // 1-based ranks i+1 .. j: midrank (i+1+j)/2, doubled i+1+j.
    groups.push_back({static_cast<long long>(i + 1 + j), j - i, in_a});
    i = j;
  }
  return groups;
}

// The exact null distribution of the doubled rank sum of a sample of `k` values drawn without
// replacement from the pooled, tied ranks (the permutation distribution conditional on the
// ties observed, as in Hollander & Wolfe, Nonparametric Statistical Methods, ch. 4). Counts
// ways[j][s]: subsets of j values with doubled rank sum s, built group by group: taking c of a
// group's t values adds c * rank2 and can be done in C(t, c) ways.
std::vector<double> exact_rank_sum_counts(const std::vector<TieGroup>& groups, std::size_t k, long long max_sum) {
  const std::size_t width = static_cast<std::size_t>(max_sum) + 1;
  std::vector<double> ways((k + 1) * width, 0.0);
  ways[0] = 1.0;
  for (const TieGroup& g : groups) {
    // Descending j: a source row is read before anything is added to it for this group.
    for (std::size_t j = k + 1; j-- > 0;) {
      double binom = 1.0;  // C(t, c)
      for (std::size_t c = 1; c <= g.size && j + c <= k; ++c) {
        binom = binom * static_cast<double>(g.size - c + 1) / static_cast<double>(c);
        const long long shift = static_cast<long long>(c) * g.rank2;
        const double* src = &ways[j * width];
        double* dst = &ways[(j + c) * width];
        for (long long s = 0; s + shift <= max_sum; ++s)
          if (src[s] != 0.0) dst[s + shift] += src[s] * binom;
      }
    }
  }
  return {ways.begin() + static_cast<std::ptrdiff_t>(k * width), ways.end()};
}

// Upper tail of the standard normal, two-sided: P(|Z| >= |z|).
double two_sided_normal_p(double z) { return std::min(1.0, std::erfc(std::fabs(z) / std::sqrt(2.0))); }

}  // namespace

UTest mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  UTest t;
  t.n1 = a.size();
  t.n2 = b.size();
  if (t.n1 < 2 || t.n2 < 2) {
    t.why_not = "fewer than 2 samples in a run";
    return t;
  }
  const std::vector<TieGroup> groups = rank_groups(a, b);
  const std::size_t n = t.n1 + t.n2;
  long long r1_2 = 0;  // doubled rank sum of a
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (const TieGroup& g : groups) {
    r1_2 += g.rank2 * static_cast<long long>(g.in_a);
    const double s = static_cast<double>(g.size);
    tie_term += s * s * s - s;
  }
  const double n1 = static_cast<double>(t.n1), n2 = static_cast<double>(t.n2);
  t.u1 = static_cast<double>(r1_2) / 2.0 - n1 * (n1 + 1) / 2.0;
  t.u2 = n1 * n2 - t.u1;
  t.ran = true;

  const bool a_smaller = t.n1 <= t.n2;
  const std::size_t k = a_smaller ? t.n1 : t.n2;
  if (k * n <= kUTestExactLimit) {
    t.exact = true;
    // Statistic: the doubled rank sum w of the smaller sample; its mean is k(N+1), and the
    // distribution is symmetric about it, so "as or more extreme" is |w - mean| >= observed.
    const long long total2 = static_cast<long long>(n) * static_cast<long long>(n + 1);
    const long long w = a_smaller ? r1_2 : total2 - r1_2;
    const long long mean2 = static_cast<long long>(k) * static_cast<long long>(n + 1);
    const long long max_sum = 2 * static_cast<long long>(k) * static_cast<long long>(n);
    const std::vector<double> ways = exact_rank_sum_counts(groups, k, max_sum);
    const long long observed = std::llabs(w - mean2);
    double all = 0, extreme = 0;
    long long widest = 0;
    for (long long s = 0; s <= max_sum; ++s) {
      if (ways[s] == 0.0) continue;
      all += ways[s];
      widest = std::max(widest, std::llabs(s - mean2));
      if (std::llabs(s - mean2) >= observed) extreme += ways[s];
    }
    double at_widest = 0;
    for (long long s = 0; s <= max_sum; ++s)
      if (ways[s] != 0.0 && std::llabs(s - mean2) >= widest) at_widest += ways[s];
    t.p = std::min(1.0, extreme / all);
    t.min_p = std::min(1.0, at_widest / all);
    return t;
  }

  // Normal approximation: mean n1 n2 / 2, variance n1 n2 / 12 * ((N+1) - sum(t^3-t) / (N(N-1)))
  // (the tie correction), and 0.5 toward the mean (the continuity correction): what scipy's
  // method='asymptotic' and R's wilcox.test(correct=TRUE) compute.
  const double nn = static_cast<double>(n);
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (!(var > 0)) {  // every value equal: nothing can tell the runs apart
    t.p = 1;
    t.min_p = 1;
    return t;
  }
  const double sd = std::sqrt(var);
  const double dev = t.u1 - mu;
  t.z = (dev > 0 ? 1 : -1) * std::max(0.0, std::fabs(dev) - 0.5) / sd;
  t.p = two_sided_normal_p(t.z);
  t.min_p = two_sided_normal_p((mu - 0.5) / sd);
  return t;
}

}  // namespace kl
