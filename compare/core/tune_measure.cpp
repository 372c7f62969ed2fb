#include "compare/core/tune_measure.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <thread>

namespace kl {

namespace {

bool env_is(const char* name, std::string_view value) {
  const char* e = std::getenv(name);
  return e && std::string_view(e) == value;
}

}  // namespace

StopRule TuneMeasure::rule() {
  StopRule r;
  r.min_samples = 7;
  r.max_samples = 75;
  r.floor_samples = 7;
  r.min_seconds = 0.1;
  r.max_seconds = std::numeric_limits<double>::infinity();
  r.max_noise = std::numeric_limits<double>::infinity();  // enough samples and time: done
  return r;
}

Measure TuneMeasure::view() const {
  static const bool off = env_is("KL_GEMM_AUTO_TUNE", "0");
  if (off) return {};
  return Measure{&TuneMeasure::time, this};
}

double TuneMeasure::time(const void* self, const char* label, void (*op)(const void*, cudaStream_t), const void* ctx) {
  const auto& m = *static_cast<const TuneMeasure*>(self);
  std::this_thread::sleep_for(m.busy_);
  const auto t0 = std::chrono::steady_clock::now();
  SampleHooks h;
  h.op = [&](cudaStream_t s, long long) { op(ctx, s); };
  const Timing t = m.timer_.sample(h, rule(), 2);
  m.busy_ = std::chrono::steady_clock::now() - t0;
  static const bool trace = env_is("KL_GEMM_AUTO_TRACE", "1");
  if (trace)
    std::fprintf(stderr, "tune %s: %s median %.4f ms of %zu\n", m.what_.c_str(), label ? label : "?", t.stats.median,
                 t.samples_ms.size());
  return t.stats.median;
}

}  // namespace kl
