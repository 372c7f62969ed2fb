// The persisting-L2 set-aside changed from inside the launch. Must FAIL: a limit is not stream
// work, and the capture the launch runs in refuses it ("other than enqueue work"); were it ever to
// get through, the limit read back after every capture and every sample would name it.
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
    .info = {"sum", "", "sets the persisting-L2 limit inside its launch"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          int dev = 0, set_aside = 0;
          KL_CUDA_CHECK(cudaGetDevice(&dev));
          KL_CUDA_CHECK(cudaDeviceGetAttribute(&set_aside, cudaDevAttrMaxPersistingL2CacheSize, dev));
          if (set_aside > 0) cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(set_aside));
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
