// Writes into its (const) input: the right sum, then in[0] zeroed, so a variant run after it on
// the same inputs would read a different array. Must FAIL ("wrote to its input 0"), and the
// variants after it must see the inputs as loaded.
#include "common/user_kernel.hpp"

namespace {

__global__ void sum_then_spoil(const float* __restrict__ in, std::size_t n, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
    const_cast<float*>(in)[0] = 0.f;
  }
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "a serial sum that zeroes in[0]"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          sum_then_spoil<<<1, 32, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
})
