// Prints from a static initializer (as a debugging student does) and is otherwise honest: its
// output must not disturb how it is listed or graded. Must pass.
#include "common/user_kernel.hpp"

#include <cstdio>

namespace {

__global__ void sum_kernel(const float* __restrict__ in, std::size_t n, float* out) {
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

[[maybe_unused]] const bool said = [] {
  std::printf("{\"ok\": false, \"error\": \"printed by a static initializer\"}\n");
  return true;
}();

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "honest, but chatty at start"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<264, 256, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (264 * 256) + 1 + 5 + 264 * 256 / 32); },
})
