// The input kept in L2 across the flush: .prepare sets aside the largest persisting L2 the GPU
// allows, and the launch carries an access-policy window marking the input persisting, so a flush
// that reads or writes another buffer leaves it in the L2. Must FAIL: a launch attribute that
// changes caching is refused ("access-policy window"), and the set-aside is reset to 0 before
// every sample anyway.
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

std::size_t window_max = 0;

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "an access-policy window keeps the input persisting in L2"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          cudaLaunchAttribute attr{};
          attr.id = cudaLaunchAttributeAccessPolicyWindow;
          attr.val.accessPolicyWindow.base_ptr = const_cast<float*>(a.in);
          attr.val.accessPolicyWindow.num_bytes = std::min(a.n * sizeof(float), window_max);
          attr.val.accessPolicyWindow.hitRatio = 1.0f;
          attr.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
          attr.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
          cudaLaunchConfig_t cfg{};
          cfg.gridDim = kBlocks;
          cfg.blockDim = kThreads;
          cfg.stream = s;
          cfg.attrs = &attr;
          cfg.numAttrs = 1;
          KL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, sum_kernel, a.in, a.n, a.out));
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
    .prepare =
        [] {
          int dev = 0, set_aside = 0, window = 0;
          KL_CUDA_CHECK(cudaGetDevice(&dev));
          KL_CUDA_CHECK(cudaDeviceGetAttribute(&set_aside, cudaDevAttrMaxPersistingL2CacheSize, dev));
          KL_CUDA_CHECK(cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, dev));
          KL_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(set_aside)));
          window_max = static_cast<std::size_t>(window);
        },
})
