// compare --inject-fault: kernels that fault (or never end) on purpose, to test that the runner keeps every other
// row (--isolate) or writes an incomplete report (without it). Never part of a family's list.
#include "common/cuda_check.hpp"
#include "compare/testing/fault_injection.hpp"

#include <stdexcept>

namespace kl {
namespace {

// A write far past any allocation: "an illegal memory access was encountered", which leaves the
// CUDA context unusable (a sticky error), like a kernel indexing past its buffer by a lot.
__global__ void write_out_of_bounds(float* p) { p[(std::size_t{1} << 38) + threadIdx.x] = 1.0f; }

__global__ void trap() { __trap(); }

// Spins on the GPU's nanosecond timer: one thread, so it adds latency, not load.
__global__ void wait_ns(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

void launch_fault(const std::string& kind, void* workspace, cudaStream_t s) {
  if (kind == "oob") {
    write_out_of_bounds<<<1, 32, 0, s>>>(static_cast<float*>(workspace));
  } else if (kind == "trap") {
    trap<<<1, 1, 0, s>>>();
  } else if (kind == "hang") {
    wait_ns<<<1, 1, 0, s>>>(~0ull);  // a kernel that never ends (the watchdog's case)
  } else {
    throw std::invalid_argument("unknown fault '" + kind + "'");
  }
  KL_CHECK_LAUNCH();
}

void launch_delay(double microseconds, cudaStream_t s) {
  wait_ns<<<1, 1, 0, s>>>(static_cast<unsigned long long>(microseconds * 1e3));
  KL_CHECK_LAUNCH();
}

}  // namespace kl
