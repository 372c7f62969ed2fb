// The Measure the runner lends a variant's tune hook (common/variant.hpp): each candidate timed
// through the runner's one sampling loop (compare/core/sampler.hpp) on the runner's stream, the L2
// flushed before every sample, two warm-up runs, then samples until a tenth of a second of them
// (at least 7, at most 75: a product of a few microseconds reaches the cap long before the tenth
// of a second, and its median's spread shrinks as the square root of the samples); the median
// comes back.
//
// Before each candidate the GPU rests as long as the candidate before it ran: a board that holds
// its clock down once a load is sustained (the power-capped large DGEMMs) otherwise ranks the
// candidates by their place in the list, where the runner's own samples of a variant follow its
// validation, an idle GPU (docs/sgemm-ladder.md, "tune's rest").
//
// KL_GEMM_AUTO_TUNE=0: no Measure (the hook keeps its model's first choice).
// KL_GEMM_AUTO_TRACE=1: each candidate's median on stderr, with the problem and its label.
#pragma once

#include "common/variant.hpp"
#include "compare/core/timing.hpp"

#include <chrono>
#include <string>

namespace kl {

class TuneMeasure {
 public:
  TuneMeasure(Timer& timer, std::string what) : timer_(timer), what_(std::move(what)) {}
  // The Measure to hand a tune hook; empty where KL_GEMM_AUTO_TUNE=0.
  Measure view() const;
  // The stopping rule of a candidate's samples.
  static StopRule rule();

 private:
  static double time(const void* self, const char* label, void (*op)(const void*, cudaStream_t), const void* ctx);
  Timer& timer_;
  std::string what_;  // the problem, for the trace
  mutable std::chrono::duration<double> busy_{0};  // how long the last candidate ran: the rest before the next
};

}  // namespace kl
