#include "compare/core/metric.hpp"

#include <cstdio>

namespace kl {

Metric Metric::bandwidth(double bytes, double copy_gbps) {
  char b[64];
  std::snprintf(b, sizeof b, "d2d copy %.0f GB/s (measured)", copy_gbps);
  return {"GB/s", "bytes", 1e9, 1, bytes, copy_gbps, b, {}, {}, 0, 0, {}};
}

Metric Metric::flops(double flops, double peak_tflops, std::string peak_label) {
  return {"TFLOP/s", "flop", 1e12, 2, flops, peak_tflops, std::move(peak_label), {}, {}, 0, 0, {}};
}

}  // namespace kl
