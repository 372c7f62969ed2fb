// The GPU's global timer written into a buffer from the stream: the marks a submission's sandbox
// puts around each timed sample (compare/sandbox/child/sandbox.cu), and the runner's own
// measurement of what the marks cost where nothing runs between them (GpuTimer::mark_overhead_ms),
// which the runner subtracts before it holds a reported time against the span the marks saw.
#pragma once

#include <cuda_runtime.h>

namespace kl {

namespace {
// One thread writes %globaltimer (nanoseconds) at `at`.
__global__ void stamp_kernel(unsigned long long* at) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *at = t;
}
// The least a captured graph can hold: what the marks' own cost is measured around.
__global__ void empty_kernel() {}
}  // namespace

}  // namespace kl
