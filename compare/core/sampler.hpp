// The one sampling loop (README, "Method"): compare times the ladder and the libraries with it,
// kl-sandbox (compare/sandbox/child/) times a submission with it, and the runner lends it to a
// variant's tune hook (compare/core/tune_measure.hpp). One loop, so what a submission's time
// means is what the ladder's time means:
//
//   warm-up runs (each after its `before`)
//   for each sample j:
//     before(j)             the sample's own input set and its poison (outside the window)
//     GPU state reset       the persisting-L2 limit at 0, every persisting line normal again
//     L2 flush              read (or write) a buffer twice the L2's size
//     mark, event, op(j), event, mark
//     wait for the stop event; after(j) (checks: the limit read back, the context idle, ...)
//     the stop rule (noise, sample and time caps); then `extra` samples more (the final probe)
//
// Reading the flush buffer (L2Flush::read, the default) leaves clean lines; a memset
// (L2Flush::write, as nvbench does) leaves dirty lines whose write-back lands in the next timed
// window (docs/method.md, "Timing"). The persisting-L2 state is reset before every sample
// because a set-aside L2 and lines marked persisting (an access-policy window, evict_last hints)
// would survive the flush and carry inputs from one sample into the next.
#pragma once

#include "compare/core/stats.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kl {

// The GPU state a sample starts from was changed during the sample (the persisting-L2 limit read
// back non-zero): the caller fails the variant with what() as the reason.
struct SampleStateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Timing {
  std::vector<double> samples_ms;  // every sample, in order (the probes included)
  SampleStats stats;               // over the samples the caller counts (all of them unless it says)
  bool converged = false;          // stopped on the noise rule, not on a cap
};

// What happens around each sample, outside its timed window. `j` counts timed samples from 0;
// warm-up runs pass negative j. `last`: the sample is one of the `extra` taken after the stop rule
// said stop.
struct SampleHooks {
  std::function<void(cudaStream_t, long long j, bool last)> before;  // may be empty
  std::function<void(cudaStream_t, long long j)> op;                 // the timed work
  std::function<void(long long j)> after;                            // may be empty; may throw
  int extra = 0;
};

// The persisting-L2 limit set to 0 and every line marked persisting made normal again
// (cudaCtxResetPersistingL2Cache); nothing where the GPU has no persisting L2.
void reset_l2_persistence();
// "" when the persisting-L2 limit is still 0; otherwise what it reads.
std::string l2_persistence_changed();

class Sampler {
 public:
  // `l2_bytes`: the device's L2 (0: 64 MiB assumed). The stream is the caller's.
  Sampler(cudaStream_t stream, std::size_t l2_bytes, L2Flush mode);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Runs the loop above. `marks` (device memory, 2 per sample, or null): the GPU's global timer
  // written just before and just after each sample's events; at most `max_marks` samples are
  // taken when it is given. `stop`: set from another thread (SIGINT) to end the sampling early.
  Timing run(const SampleHooks& hooks, const StopRule& rule, int warmup, unsigned long long* marks = nullptr,
             std::size_t max_marks = 0, const std::atomic<bool>* stop = nullptr);

  // The GPU state reset, then the flush, on the stream (outside any timed window).
  void flush_l2();
  // What the marks around a sample cost by themselves: the median, over samples of an empty
  // captured graph taken as run() takes them, of the marks' span less the events' time.
  double mark_overhead_ms();

  L2Flush mode() const { return mode_; }
  std::size_t flush_bytes() const { return flush_bytes_; }
  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  unsigned* flush_sink_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned flush_value_ = 0;
  double mark_overhead_ms_ = -1;
  L2Flush mode_;
};

}  // namespace kl
