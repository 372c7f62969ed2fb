#include "compare/core/stats.hpp"

#include <numeric>

namespace kl {

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
