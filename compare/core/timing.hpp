// GPU timing as the README's Method section sets it: CUDA events on one stream around the whole
// operation; warm-up first; before each sample the L2 is emptied, so no sample reads its inputs
// from a cache the previous one warmed; samples until the StopRule is satisfied.
//
// The L2 is emptied by *reading* a buffer twice its size (L2Flush::read, the default). Writing it
// (a memset, L2Flush::write, as nvbench does) leaves the L2 full of dirty lines whose write-back
// to DRAM then happens inside the next timed window: on an H100 a read-only float4 sum over
// 1 GiB measured clearly slower after a memset flush than after a read flush (the times in this
// comment at commit 3914f57; the same effect across the default run: docs/method.md, "Method",
// journal/h100/flush_write_vs_read.md).
#pragma once

#include "compare/core/family.hpp"
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

struct Timing {
  std::vector<double> samples_ms;
  SampleStats stats;
  bool converged = false;  // stopped on the noise rule, not on a cap
};

// What the runner core needs from the device: a stream, synchronisation, timing, workspace.
// GpuTimer is the real one; the host suite runs the core over a fake.
class Timer {
 public:
  virtual ~Timer() = default;
  virtual cudaStream_t stream() const = 0;
  virtual void synchronize() = 0;  // waits for the stream; throws CudaError
  // Runs `op` `warmup` times, then samples it until `rule` says stop (or g_interrupted).
  // `before` (may be empty) is enqueued before every run, outside the timed window (the runner
  // poisons the outputs and the workspace there, with pattern i % 2 for run i).
  virtual Timing measure(const std::function<void(cudaStream_t)>& op, const StopRule& rule, int warmup,
                         const std::function<void(cudaStream_t, int)>& before = {}) = 0;
  // The stream check (execute.cpp): runs `launch` under stream capture in global mode and throws
  // StreamContractError when the launch broke it (an allocation, a synchronisation, work the
  // capture refuses); then waits for everything the launch may have started elsewhere, calls
  // `between` (poison), and replays only what was captured on stream(), and waits for it.
  virtual void run_captured(const std::function<void(cudaStream_t)>& launch, const std::function<void()>& between) = 0;
  // What the clock marks around a sample cost by themselves (compare/core/clock_marks.cuh): the
  // median, over samples of an empty captured graph taken as a sandbox takes them (flush, mark,
  // event, graph, event, mark), of the marks' span less the events' time. Measured once, in this
  // process, so a submission cannot influence it; 0 where there is no GPU timer.
  virtual double mark_overhead_ms() { return 0; }
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
  Timing measure(const std::function<void(cudaStream_t)>& op, const StopRule& rule, int warmup,
                 const std::function<void(cudaStream_t, int)>& before = {}) override;
  void run_captured(const std::function<void(cudaStream_t)>& launch, const std::function<void()>& between) override;
  std::shared_ptr<void> allocate(std::size_t bytes) override;
  void poison(void* p, std::size_t bytes, int pattern = 0) override;
  void fill_bytes(void* p, std::size_t bytes, unsigned char value) override;
  std::size_t bytes_changed(const void* p, std::size_t bytes, unsigned char value) override;
  bool context_is_dead() override;
  double mark_overhead_ms() override;

  std::size_t flush_bytes() const { return flush_bytes_; }
  L2Flush flush_mode() const { return mode_; }
  // Empties the L2 on the stream (outside the timed events).
  void flush_l2();

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  void* flush_sink_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned flush_value_ = 0;
  double mark_overhead_ms_ = -1;  // measured on first use
  L2Flush mode_;
};

// Device-to-device copy bandwidth (bytes read + bytes written per second, GB/s) over
// `bytes`-sized buffers: the memory ceiling the report measures each run against.
double measure_copy_bandwidth_gbps(Timer& timer, std::size_t bytes, const StopRule& rule);

// read_through, the read-only flush: common/l2_flush.cuh.

}  // namespace kl
