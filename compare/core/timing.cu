#include "compare/core/timing.hpp"

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"

#include <chrono>

namespace kl {

namespace {

// Every thread reads 16-byte words with a grid stride and folds them into one word; only a
// value no real data produces (all reads XOR-ing to a magic pattern with the thread index) would
// store it. The loads leave clean lines in L2: nothing to write back later.
__global__ void read_kernel(const uint4* __restrict__ p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
#pragma unroll 4
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u + threadIdx.x) *sink = acc;
}

}  // namespace

void read_through(const void* p, std::size_t bytes, unsigned* sink, cudaStream_t s) {
  const std::size_t n = bytes / 16;
  read_kernel<<<sm_count() * 4, 512, 0, s>>>(static_cast<const uint4*>(p), n, sink);
  KL_CHECK_LAUNCH();
}

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

void GpuTimer::poison(void* p, std::size_t bytes) {
  if (bytes) KL_CUDA_CHECK(cudaMemsetAsync(p, 0xff, bytes, stream_));
}

bool GpuTimer::context_is_dead() {
  const cudaError_t e = cudaDeviceSynchronize();
  cudaGetLastError();
  return e != cudaSuccess;
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
