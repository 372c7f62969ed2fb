// GPU timing as DESIGN.md sets it: CUDA events on one stream around the whole operation;
// warm-up first; before each sample the L2 is flushed by writing a buffer twice its size, so
// no sample reads its inputs from a cache the previous one warmed; samples until the
// StopRule is satisfied.
#pragma once

#include "compare/stats.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace kl {

struct Timing {
  std::vector<double> samples_ms;
  SampleStats stats;
  bool converged = false;  // stopped on the noise rule, not on a cap
};

class GpuTimer {
 public:
  explicit GpuTimer(std::size_t l2_bytes);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const { return stream_; }
  std::size_t flush_bytes() const { return flush_bytes_; }

  // Evicts the L2 by writing flush_bytes() on the stream (outside the timed events).
  void flush_l2();

  // Runs `op` `warmup` times, then samples it until `rule` says stop.
  Timing measure(const std::function<void(cudaStream_t)>& op, const StopRule& rule, int warmup);

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned flush_value_ = 0;
};

// Device-to-device copy bandwidth (bytes read + bytes written per second, GB/s) over
// `bytes`-sized buffers: the memory ceiling the report measures each run against.
double measure_copy_bandwidth_gbps(GpuTimer& timer, std::size_t bytes, const StopRule& rule);

}  // namespace kl
