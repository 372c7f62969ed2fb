// Sample statistics and the noise-driven stopping rule used by the timer.
#pragma once

#include <cstddef>
#include <vector>

namespace kl {

struct SampleStats {
  std::size_t samples = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double noise = 0;  // relative standard deviation: stddev / mean (0 for fewer than 2 samples)
};

SampleStats summarize(std::vector<double> samples);

// When to stop taking samples (nvbench's rule, simplified): at least min_samples and
// min_seconds of measured time, then stop as soon as the relative noise is at most
// max_noise; stop regardless at max_samples or max_seconds of wall time (then at least
// `floor_samples` were taken, so a very slow kernel still gets a median of several).
struct StopRule {
  std::size_t min_samples = 10;
  std::size_t max_samples = 1000;
  std::size_t floor_samples = 3;
  double min_seconds = 0.0;   // of summed sample time
  double max_seconds = 1.5;   // of wall time spent sampling one variant
  double max_noise = 0.02;

  enum class Verdict { more, converged, capped };
  Verdict check(const std::vector<double>& samples_ms, double wall_seconds) const;
};

}  // namespace kl
