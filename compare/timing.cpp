#include "compare/timing.hpp"

#include "common/cuda_check.hpp"

#include <chrono>

namespace kl {

GpuTimer::GpuTimer(std::size_t l2_bytes) {
  KL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  KL_CUDA_CHECK(cudaEventCreate(&start_));
  KL_CUDA_CHECK(cudaEventCreate(&stop_));
  flush_bytes_ = 2 * (l2_bytes > 0 ? l2_bytes : (std::size_t{64} << 20));
  KL_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
}

GpuTimer::~GpuTimer() {
  cudaFree(flush_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
  cudaStreamDestroy(stream_);
}

void GpuTimer::flush_l2() {
  // A different byte each time, so no layer can skip the write as a no-op.
  KL_CUDA_CHECK(cudaMemsetAsync(flush_, static_cast<int>(++flush_value_ & 0xff), flush_bytes_, stream_));
}

Timing GpuTimer::measure(const std::function<void(cudaStream_t)>& op, const StopRule& rule, int warmup) {
  for (int i = 0; i < warmup; ++i) op(stream_);
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  Timing t;
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
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
    if (verdict == StopRule::Verdict::more) continue;
    t.converged = verdict == StopRule::Verdict::converged;
    break;
  }
  t.stats = summarize(t.samples_ms);
  return t;
}

double measure_copy_bandwidth_gbps(GpuTimer& timer, std::size_t bytes, const StopRule& rule) {
  void *src = nullptr, *dst = nullptr;
  KL_CUDA_CHECK(cudaMalloc(&src, bytes));
  KL_CUDA_CHECK(cudaMalloc(&dst, bytes));
  KL_CUDA_CHECK(cudaMemsetAsync(src, 1, bytes, timer.stream()));
  double gbps = 0;
  try {
    const Timing t = timer.measure(
        [&](cudaStream_t s) { KL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); },
        rule, 2);
    gbps = 2.0 * static_cast<double>(bytes) / (t.stats.median * 1e-3) / 1e9;
  } catch (...) {
    cudaFree(src);
    cudaFree(dst);
    throw;
  }
  KL_CUDA_CHECK(cudaFree(src));
  KL_CUDA_CHECK(cudaFree(dst));
  return gbps;
}

}  // namespace kl
