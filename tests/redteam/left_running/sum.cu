// A kernel left running: .prepare launches, on a stream of its own, a kernel that sleeps for half a
// minute, and returns. Must FAIL within a second of .prepare, naming it ("left a kernel running
// after .prepare"), instead of stalling every problem until a watchdog ends it.
#include "common/user_kernel.hpp"

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

__global__ void sleeper() {
  const unsigned long long until = clock64() + 30ull * 2000000000ull;
  while (clock64() < until) __nanosleep(1000000);
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "leaves a sleeping kernel behind in .prepare"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
    .prepare =
        [] {
          cudaStream_t mine;
          KL_CUDA_CHECK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
          sleeper<<<1, 1, 0, mine>>>();
          KL_CHECK_LAUNCH();
        },
})
