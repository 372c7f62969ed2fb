// The runner's device: its stream, the one sampling loop (compare/core/sampler.hpp), the stream
// check of a launch, scratch memory, poison and guard bands. GpuTimer is the real one; the host
// suite runs the runner core over a fake.
#pragma once

#include "compare/core/family.hpp"
#include "compare/core/sampler.hpp"
#include "compare/core/stats.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

namespace kl {

// A launcher broke the contract that it only enqueues work on the stream it is given (an
// allocation, a synchronisation, work the stream capture refuses): what() names the call.
struct StreamContractError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the runner core needs from the device: a stream, synchronisation, timing, workspace.
// GpuTimer is the real one; the host suite runs the core over a fake.
class Timer {
 public:
  virtual ~Timer() = default;
  virtual cudaStream_t stream() const = 0;
  virtual void synchronize() = 0;  // waits for the stream; throws CudaError
  // The sampling loop (Sampler::run) over `hooks` until `rule` says stop (or g_interrupted).
  virtual Timing sample(const SampleHooks& hooks, const StopRule& rule, int warmup) = 0;
  // `op` alone, sampled as above; `before` (may be empty) runs before every run, warm-ups
  // included, with the run's index from 0.
  Timing measure(const std::function<void(cudaStream_t)>& op, const StopRule& rule, int warmup,
                 const std::function<void(cudaStream_t, int)>& before = {}) {
    SampleHooks h;
    if (before) h.before = [&](cudaStream_t s, long long j, bool) { before(s, static_cast<int>(j + warmup)); };
    h.op = [&](cudaStream_t s, long long) { op(s); };
    return sample(h, rule, warmup);
  }
  // The stream check (execute.cpp): runs `launch` under stream capture in global mode and throws
  // StreamContractError when the launch broke it (an allocation, a synchronisation, work the
  // capture refuses, a launch attribute that changes caching or priority: graph_check.hpp); then
  // waits for everything the launch may have started elsewhere, calls `between` (poison), and
  // replays only what was captured on stream(), and waits for it.
  virtual void run_captured(const std::function<void(cudaStream_t)>& launch, const std::function<void()>& between) = 0;
  // What the clock marks around a sample cost by themselves (compare/core/clock_marks.cuh): the
  // median, over samples of an empty captured graph taken as a sandbox takes them (flush, mark,
  // event, graph, event, mark), of the marks' span less the events' time. Measured once, in this
  // process, so a submission cannot influence it; 0 where there is no GPU timer.
  virtual double mark_overhead_ms() { return 0; }
  // How the sampling loop empties the L2 (a submission's sandbox is told to do the same).
  virtual L2Flush flush_mode() const { return L2Flush::read; }
  // Device scratch of at least `bytes` (null for 0), owned by the caller through the deleter.
  virtual std::shared_ptr<void> allocate(std::size_t bytes) = 0;
  // Fills `bytes` at `p` on the stream (a workspace's contents are undefined): 0xff bytes for
  // pattern 0, 0x7f for pattern 1.
  virtual void poison(void* p, std::size_t bytes, int pattern = 0) = 0;
  // Guard bands (compare/core/problem.hpp): fills `bytes` at `p` with `value`, and counts the bytes
  // there that differ from it (after a synchronisation).
  virtual void fill_bytes(void* p, std::size_t bytes, unsigned char value) = 0;
  virtual std::size_t bytes_changed(const void* p, std::size_t bytes, unsigned char value) = 0;
  // After an exception: is the CUDA context still usable? (Faults such as an illegal address are
  // sticky and fail every later call.)
  virtual bool context_is_dead() = 0;
};

class GpuTimer final : public Timer {
 public:
  GpuTimer(std::size_t l2_bytes, L2Flush flush);
  ~GpuTimer() override;
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const override { return stream_; }
  void synchronize() override;
  Timing sample(const SampleHooks& hooks, const StopRule& rule, int warmup) override;
  void run_captured(const std::function<void(cudaStream_t)>& launch, const std::function<void()>& between) override;
  std::shared_ptr<void> allocate(std::size_t bytes) override;
  void poison(void* p, std::size_t bytes, int pattern = 0) override;
  void fill_bytes(void* p, std::size_t bytes, unsigned char value) override;
  std::size_t bytes_changed(const void* p, std::size_t bytes, unsigned char value) override;
  bool context_is_dead() override;
  double mark_overhead_ms() override;

  std::size_t flush_bytes() const { return sampler_->flush_bytes(); }
  L2Flush flush_mode() const override { return sampler_->mode(); }
  Sampler& sampler() { return *sampler_; }

 private:
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<Sampler> sampler_;
};

// Device-to-device copy bandwidth (bytes read + bytes written per second, GB/s) over
// `bytes`-sized buffers: the memory ceiling the report measures each run against.
double measure_copy_bandwidth_gbps(Timer& timer, std::size_t bytes, const StopRule& rule);

// read_through, the read-only flush: common/l2_flush.cuh.

}  // namespace kl
