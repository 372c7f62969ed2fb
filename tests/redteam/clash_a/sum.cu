// One of two submissions (clash_a, clash_b) that define the same kernel, helper and variable at
// file scope, as docs' earliest example taught. Each is its own module with hidden symbols: both
// must build and pass.
#include "common/user_kernel.hpp"

__global__ void sum_kernel(const float* __restrict__ in, std::size_t n, float* out) {
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
unsigned blocks_for(std::size_t) { return 264; }
int clash_counter = 0;

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "file-scope names that clash with another submission's"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          ++clash_counter;
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<blocks_for(a.n), 256, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (264 * 256) + 1 + 5 + 264 * 256 / 32); },
})
