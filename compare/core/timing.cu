#include "compare/core/timing.hpp"

#include "common/cuda_check.hpp"
#include "compare/core/graph_check.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace kl {

GpuTimer::GpuTimer(std::size_t l2_bytes, L2Flush flush) {
  KL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  sampler_ = std::make_unique<Sampler>(stream_, l2_bytes, flush);
}

GpuTimer::~GpuTimer() {
  sampler_.reset();
  cudaStreamDestroy(stream_);
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
  std::string refused = graph_refusal(graph, GraphRules::own);
  if (refused.empty()) refused = stream_attribute_refusal(stream_);
  if (!refused.empty()) {
    cudaGraphDestroy(graph);
    clear_stream_window(stream_);
    throw StreamContractError(refused);
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

double GpuTimer::mark_overhead_ms() { return sampler_->mark_overhead_ms(); }

bool GpuTimer::context_is_dead() {
  const cudaError_t e = cudaDeviceSynchronize();
  cudaGetLastError();
  return e != cudaSuccess;
}

Timing GpuTimer::sample(const SampleHooks& hooks, const StopRule& rule, int warmup) {
  return sampler_->run(hooks, rule, warmup, nullptr, 0, &g_interrupted);
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
