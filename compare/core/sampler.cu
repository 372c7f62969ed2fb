#include "compare/core/sampler.hpp"

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/l2_flush.cuh"
#include "compare/core/clock_marks.cuh"

#include <algorithm>
#include <chrono>

namespace kl {

namespace {

// Whether the current device has a persisting L2 to reset (compute capability 8.0 and up).
bool has_persisting_l2() {
  static const bool has = [] {
    int dev = 0, max = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&max, cudaDevAttrMaxPersistingL2CacheSize, dev) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return max > 0;
  }();
  return has;
}

}  // namespace

void reset_l2_persistence() {
  if (!has_persisting_l2()) return;
  std::size_t limit = 0;
  KL_CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  if (limit != 0) KL_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  KL_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
}

std::string l2_persistence_changed() {
  if (!has_persisting_l2()) return {};
  std::size_t limit = 0;
  KL_CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  if (limit == 0) return {};
  return "the persisting-L2 limit read " + std::to_string(limit) + " bytes after its run (it was set to 0 before it)";
}

Sampler::Sampler(cudaStream_t stream, std::size_t l2_bytes, L2Flush mode) : stream_(stream), mode_(mode) {
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

Sampler::~Sampler() {
  cudaFree(flush_);
  cudaFree(flush_sink_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void Sampler::flush_l2() {
  reset_l2_persistence();
  if (mode_ == L2Flush::read) {
    read_through(flush_, flush_bytes_, flush_sink_, stream_);
  } else {
    // A different byte each time, so no layer can skip the write as a no-op.
    KL_CUDA_CHECK(cudaMemsetAsync(flush_, static_cast<int>(++flush_value_ & 0xff), flush_bytes_, stream_));
  }
}

Timing Sampler::run(const SampleHooks& hooks, const StopRule& rule, int warmup, unsigned long long* marks,
                    std::size_t max_marks, const std::atomic<bool>* stop) {
  for (int w = 0; w < warmup; ++w) {
    const long long j = static_cast<long long>(w) - warmup;
    if (hooks.before) hooks.before(stream_, j, false);
    hooks.op(stream_, j);
  }
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  StopRule r = rule;
  if (marks) r.max_samples = std::min(r.max_samples, max_marks > static_cast<std::size_t>(hooks.extra)
                                                             ? max_marks - static_cast<std::size_t>(hooks.extra)
                                                             : std::size_t{1});
  Timing t;
  int extras_left = -1;  // not yet stopping
  const auto t0 = std::chrono::steady_clock::now();
  for (long long j = 0;; ++j) {
    const bool last = extras_left >= 0;
    if (hooks.before) hooks.before(stream_, j, last);
    flush_l2();
    if (marks) stamp_kernel<<<1, 1, 0, stream_>>>(marks + 2 * j);
    KL_CUDA_CHECK(cudaEventRecord(start_, stream_));
    hooks.op(stream_, j);
    KL_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    if (marks) stamp_kernel<<<1, 1, 0, stream_>>>(marks + 2 * j + 1);
    KL_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    KL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    t.samples_ms.push_back(ms);
    if (const std::string why = l2_persistence_changed(); !why.empty()) throw SampleStateError(why);
    if (hooks.after) hooks.after(j);
    if (last) {
      if (--extras_left <= 0) break;
      continue;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto verdict = r.check(t.samples_ms, wall);
    const bool interrupted = stop && stop->load();
    if (verdict == StopRule::Verdict::more && !interrupted) continue;
    t.converged = verdict == StopRule::Verdict::converged;
    if (hooks.extra <= 0 || interrupted) break;
    extras_left = hooks.extra;
  }
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  t.stats = summarize(t.samples_ms);
  return t;
}

double Sampler::mark_overhead_ms() {
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
  SampleHooks h;
  h.op = [&](cudaStream_t s, long long) { KL_CUDA_CHECK(cudaGraphLaunch(exec, s)); };
  StopRule rule;
  rule.min_samples = rule.max_samples = kReps;
  rule.max_seconds = 1e9;
  const Timing t = run(h, rule, 0, marks, kReps);
  std::vector<unsigned long long> m(2 * kReps);
  KL_CUDA_CHECK(cudaMemcpy(m.data(), marks, m.size() * sizeof(m[0]), cudaMemcpyDeviceToHost));
  cudaFree(marks);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::vector<double> gaps;
  for (std::size_t j = 0; j < t.samples_ms.size(); ++j)
    gaps.push_back(static_cast<double>(m[2 * j + 1] - m[2 * j]) * 1e-6 - t.samples_ms[j]);
  std::sort(gaps.begin(), gaps.end());
  mark_overhead_ms_ = gaps.empty() ? 0.0 : std::max(0.0, gaps[gaps.size() / 2]);
  return mark_overhead_ms_;
}

}  // namespace kl
