// A process of its own that leaves the sandbox's process group: .prepare forks, and the child
// starts a session of its own (setsid), out of reach of the SIGSTOP that stops the sandbox
// between requests, and runs a program there (here a sleep; it could be a CUDA program keeping
// the GPU busy while the library or another submission is timed, which no check in the sandbox's
// own context sees). Must FAIL: a submission starts no process ("started a process of its own").
#include "common/user_kernel.hpp"

#include <unistd.h>

namespace {

constexpr unsigned kBlocks = 264, kThreads = 256;

__global__ void sum_kernel(const float* __restrict__ in, std::size_t n, float* out) {
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "forks a child that leaves the sandbox's process group in .prepare"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
    .prepare =
        [] {
          if (fork() == 0) {
            setsid();
            execl("/bin/sleep", "sleep", "20", static_cast<char*>(nullptr));
            _exit(0);
          }
        },
})
