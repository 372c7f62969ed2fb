// compare --inject-fault (testing the runner): a variant that faults on purpose.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kl {

// Enqueues a kernel that faults: kind "oob" (an illegal address) or "trap".
void launch_fault(const std::string& kind, void* workspace, cudaStream_t s);

// Enqueues a kernel that waits `microseconds` on the GPU (compare --inject-delay, for testing
// that `compare diff` flags a slowed variant and nothing else).
void launch_delay(double microseconds, cudaStream_t s);

}  // namespace kl
