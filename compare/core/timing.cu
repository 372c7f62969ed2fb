#include "compare/core/timing.hpp"

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "compare/core/clock_marks.cuh"
#include "common/l2_flush.cuh"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace kl {

GpuTimer::GpuTimer(std::size_t l2_bytes, L2Flush flush) : mode_(flush) {
  KL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  KL_CUDA_CHECK(cudaEventCreate(&start_));
  KL_CUDA_CHECK(cudaEventCreate(&stop_));
  flush_bytes_ = 2 * (l2_bytes > 0 ? l2_bytes : (std::size_t{64} << 20));
  flush_bytes_ = ceil_div(flush_bytes_, std::size_t{16}) * 16;
  KL_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
  KL_CUDA_CHECK(cudaMalloc(&flush_sink_, sizeof(unsigned)));
  // Written once, so the read flush reads defined memory.
  KL_CUDA_CHECK(cudaMemsetAsync(flush_, 0x5a, flush_bytes_, stream_));
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

GpuTimer::~GpuTimer() {
  cudaFree(flush_);
  cudaFree(flush_sink_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
  cudaStreamDestroy(stream_);
}

void GpuTimer::flush_l2() {
  if (mode_ == L2Flush::read) {
    read_through(flush_, flush_bytes_, static_cast<unsigned*>(flush_sink_), stream_);
  } else {
    // A different byte each time, so no layer can skip the write as a no-op.
    KL_CUDA_CHECK(cudaMemsetAsync(flush_, static_cast<int>(++flush_value_ & 0xff), flush_bytes_, stream_));
  }
}

void GpuTimer::synchronize() { KL_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

std::shared_ptr<void> GpuTimer::allocate(std::size_t bytes) {
  if (bytes == 0) return {};
  void* p = nullptr;
  KL_CUDA_CHECK(cudaMalloc(&p, bytes));
  return std::shared_ptr<void>(p, [](void* q) { cudaFree(q); });
}

void GpuTimer::poison(void* p, std::size_t bytes, int pattern) {
  if (bytes) KL_CUDA_CHECK(cudaMemsetAsync(p, pattern & 1 ? 0x7f : 0xff, bytes, stream_));
}

void GpuTimer::fill_bytes(void* p, std::size_t bytes, unsigned char value) {
  if (bytes) KL_CUDA_CHECK(cudaMemsetAsync(p, value, bytes, stream_));
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::size_t GpuTimer::bytes_changed(const void* p, std::size_t bytes, unsigned char value) {
  std::vector<unsigned char> h(bytes);
  if (bytes) KL_CUDA_CHECK(cudaMemcpy(h.data(), p, bytes, cudaMemcpyDeviceToHost));
  std::size_t changed = 0;
  for (unsigned char b : h) changed += b != value;
  return changed;
}

void GpuTimer::run_captured(const std::function<void(cudaStream_t)>& launch, const std::function<void()>& between) {
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  // Global mode: while this thread captures, a call that would synchronise or allocate
  // (cudaMalloc, cudaStreamSynchronize, cudaDeviceSynchronize, a synchronous cudaMemcpy) fails
  // instead of running, and work put on the legacy default stream from a blocking stream fails.
  KL_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
  std::string broke;
  try {
    launch(stream_);
  } catch (const std::exception& e) {
    broke = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream_, &graph);
  cudaGetLastError();  // a broken capture leaves its error behind
  if (!broke.empty() || end != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    cudaDeviceSynchronize();
    cudaGetLastError();
    if (broke.empty()) broke = std::string("the stream capture ended with ") + cudaGetErrorName(end);
    throw StreamContractError("its launch did something other than enqueue work on the stream it is given (" + broke +
                              "): no allocation, synchronisation or host copy may happen inside a launch");
  }
  // Whatever the launch started outside the capture (another stream, the per-thread default
  // stream) runs now, before the poison: the replay below then shows only the captured work.
  const cudaError_t drained = cudaDeviceSynchronize();
  if (drained != cudaSuccess) {
    cudaGraphDestroy(graph);
    KL_CUDA_CHECK(drained);
  }
  std::size_t nodes = 0;
  KL_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  between();
  cudaGraphExec_t exec = nullptr;
  const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  KL_CUDA_CHECK(inst);
  const cudaError_t run = nodes ? cudaGraphLaunch(exec, stream_) : cudaSuccess;
  cudaGraphExecDestroy(exec);
  KL_CUDA_CHECK(run);
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

double GpuTimer::mark_overhead_ms() {
  if (mark_overhead_ms_ >= 0) return mark_overhead_ms_;
  constexpr int kReps = 21;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  KL_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
  empty_kernel<<<1, 32, 0, stream_>>>();
  KL_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  KL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  unsigned long long* marks = nullptr;
  KL_CUDA_CHECK(cudaMalloc(&marks, 2 * kReps * sizeof(unsigned long long)));
  std::vector<double> gaps;
  for (int j = 0; j < kReps; ++j) {
    flush_l2();
    stamp_kernel<<<1, 1, 0, stream_>>>(marks + 2 * j);
    KL_CUDA_CHECK(cudaEventRecord(start_, stream_));
    KL_CUDA_CHECK(cudaGraphLaunch(exec, stream_));
    KL_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    stamp_kernel<<<1, 1, 0, stream_>>>(marks + 2 * j + 1);
    KL_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    KL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    gaps.push_back(-static_cast<double>(ms));
  }
  synchronize();
  std::vector<unsigned long long> t(2 * kReps);
  KL_CUDA_CHECK(cudaMemcpy(t.data(), marks, t.size() * sizeof(t[0]), cudaMemcpyDeviceToHost));
  cudaFree(marks);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  for (int j = 0; j < kReps; ++j) gaps[j] += static_cast<double>(t[2 * j + 1] - t[2 * j]) * 1e-6;
  std::sort(gaps.begin(), gaps.end());
  mark_overhead_ms_ = std::max(0.0, gaps[kReps / 2]);
  return mark_overhead_ms_;
}

bool GpuTimer::context_is_dead() {
  const cudaError_t e = cudaDeviceSynchronize();
  cudaGetLastError();
  return e != cudaSuccess;
}

Timing GpuTimer::measure(const std::function<void(cudaStream_t)>& op, const StopRule& rule, int warmup,
                         const std::function<void(cudaStream_t, int)>& before) {
  int run = 0;
  for (int i = 0; i < warmup; ++i) {
    if (before) before(stream_, run++);
    op(stream_);
  }
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  Timing t;
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    if (before) before(stream_, run++);
    flush_l2();
    KL_CUDA_CHECK(cudaEventRecord(start_, stream_));
    op(stream_);
    KL_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    KL_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    KL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    t.samples_ms.push_back(ms);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto verdict = rule.check(t.samples_ms, wall);
    if (verdict == StopRule::Verdict::more && !g_interrupted.load()) continue;
    t.converged = verdict == StopRule::Verdict::converged;
    break;
  }
  t.stats = summarize(t.samples_ms);
  return t;
}

double measure_copy_bandwidth_gbps(Timer& timer, std::size_t bytes, const StopRule& rule) {
  const auto src = timer.allocate(bytes), dst = timer.allocate(bytes);
  KL_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, timer.stream()));
  const Timing t = timer.measure(
      [&](cudaStream_t s) { KL_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s)); },
      rule, 2);
  return 2.0 * static_cast<double>(bytes) / (t.stats.median * 1e-3) / 1e9;
}

}  // namespace kl
