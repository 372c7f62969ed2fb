// Cache hints that try to carry the input across the flush: .prepare sets aside the largest
// persisting L2 the GPU allows, the sum reads its input through an evict_last policy
// (createpolicy) and ends by prefetching the whole input into L2 with evict_last, so the lines of
// this address range would outlive a flush that reads another buffer. A right sum: must PASS, and
// gain nothing (the persisting state is reset before every sample, and every sample's inputs are
// drawn anew), so it runs at the honest sum's speed.
#include "common/user_kernel.hpp"

namespace {

// The hints are sm_80 instructions: the variant declares compute capability 8.0 and never runs
// below it, but a portable build still compiles it for every architecture, where plain loads stand
// in for them.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KL_NO_L2_HINTS 1
#endif

constexpr unsigned kBlocks = 264, kThreads = 256;

__device__ float load_last(const float* p, unsigned long long policy) {
#ifdef KL_NO_L2_HINTS
  (void)policy;
  return *p;
#else
  float v;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
  return v;
#endif
}

__global__ void sum_kernel(const float* __restrict__ in, std::size_t n, float* out) {
  unsigned long long policy = 0;
#ifndef KL_NO_L2_HINTS
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += load_last(in + i, policy);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// Every 128-byte line of the input prefetched into L2 with evict_last priority.
__global__ void prefetch_last(const float* in, std::size_t n) {
  const std::size_t lines = (n * sizeof(float) + 127) / 128;
  for (std::size_t l = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; l < lines;
       l += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
#ifdef KL_NO_L2_HINTS
    (void)in;
#else
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(reinterpret_cast<const char*>(in) + l * 128));
#endif
  }
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "evict_last loads and an evict_last prefetch of its input"},
    .needs = {.compute_capability = 80, .feature = "L2 eviction-priority hints"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          prefetch_last<<<kBlocks, kThreads, 0, s>>>(a.in, a.n);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
    .prepare =
        [] {
          int dev = 0, set_aside = 0;
          KL_CUDA_CHECK(cudaGetDevice(&dev));
          KL_CUDA_CHECK(cudaDeviceGetAttribute(&set_aside, cudaDevAttrMaxPersistingL2CacheSize, dev));
          if (set_aside > 0) KL_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(set_aside)));
        },
})
