#include "compare/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kl {

SampleStats summarize(std::vector<double> v) {
  SampleStats s;
  s.samples = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  if (n >= 2 && s.mean > 0) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.noise = std::sqrt(ss / static_cast<double>(n - 1)) / s.mean;
  }
  return s;
}

StopRule::Verdict StopRule::check(const std::vector<double>& samples_ms, double wall_seconds) const {
  const std::size_t n = samples_ms.size();
  if (n >= max_samples) return Verdict::capped;
  if (wall_seconds >= max_seconds && n >= floor_samples) return Verdict::capped;
  if (n < min_samples) return Verdict::more;
  const double measured_s = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / 1e3;
  if (measured_s < min_seconds) return Verdict::more;
  return summarize(samples_ms).noise <= max_noise ? Verdict::converged : Verdict::more;
}

}  // namespace kl
