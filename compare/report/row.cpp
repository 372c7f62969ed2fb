// The functions that make row.hpp's values: a sample's statistics and a family's two metrics.
#include "compare/report/row.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

Metric Metric::bandwidth(double bytes, double copy_gbps) {
  char b[64];
  std::snprintf(b, sizeof b, "d2d copy %.0f GB/s (measured)", copy_gbps);
  return {"GB/s", "bytes", 1e9, 1, bytes, copy_gbps, b, {}, {}, 0, 0, {}};
}

Metric Metric::flops(double flops, double peak_tflops, std::string peak_label) {
  return {"TFLOP/s", "flop", 1e12, 2, flops, peak_tflops, std::move(peak_label), {}, {}, 0, 0, {}};
}

}  // namespace kl
