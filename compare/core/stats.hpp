// How samples are taken: the noise-driven stopping rule and the L2 flush. The statistics the
// rule judges by (SampleStats, summarize) are the report's: compare/report/row.hpp.
#pragma once

#include "compare/report/row.hpp"

#include <cstddef>
#include <vector>

namespace kl {

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

// How the L2 is emptied before each sample (compare/core/sampler.hpp): by reading a buffer twice
// its size (the default: clean lines), or by writing it (dirty lines).
enum class L2Flush { read, write };

}  // namespace kl
