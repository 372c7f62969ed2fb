// A launch that asks for the highest scheduling priority, so that beside other work its kernel
// runs first. Must FAIL: a launch attribute that changes how work is scheduled is refused
// ("priority").
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

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "the highest launch priority"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          int least = 0, greatest = 0;
          KL_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          cudaLaunchAttribute attr{};
          attr.id = cudaLaunchAttributePriority;
          attr.val.priority = greatest;
          cudaLaunchConfig_t cfg{};
          cfg.gridDim = kBlocks;
          cfg.blockDim = kThreads;
          cfg.stream = s;
          cfg.attrs = &attr;
          cfg.numAttrs = 1;
          KL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, sum_kernel, a.in, a.n, a.out));
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
