// Registers two variants under one name. Must be left out, naming both places; no other
// submission's listing or run changes.
#include "common/user_kernel.hpp"

namespace {
__global__ void sum_kernel(const float* in, std::size_t n, float* out) {
  if (threadIdx.x == 0) {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
  }
}
void launch(const kl::ReduceArgs<float>& a, cudaStream_t s) { sum_kernel<<<1, 32, 0, s>>>(a.in, a.n, a.out); }
}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{.info = {"sum", "", "first"}, .launch = launch})
KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{.info = {"sum", "", "second, same name"}, .launch = launch})
