// The same window set on the stream it is given instead of on the launch: every kernel captured
// from that stream inherits it (and, left there, every later launch on it would). Must FAIL:
// the window reaches the captured kernel node and is refused ("access-policy window").
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
    .info = {"sum", "", "an access-policy window on the stream it is given"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          int dev = 0, window = 0;
          KL_CUDA_CHECK(cudaGetDevice(&dev));
          KL_CUDA_CHECK(cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, dev));
          cudaStreamAttrValue v{};
          v.accessPolicyWindow.base_ptr = const_cast<float*>(a.in);
          v.accessPolicyWindow.num_bytes = std::min(a.n * sizeof(float), static_cast<std::size_t>(window));
          v.accessPolicyWindow.hitRatio = 1.0f;
          v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
          v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
          KL_CUDA_CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
