// Writes one element before its output (out[-1]) besides a correct sum. Must FAIL: the band before
// every output is guarded too ("wrote before the start of its output").
#include "common/user_kernel.hpp"

namespace {

__global__ void sum_and_scribble(const float* __restrict__ in, std::size_t n, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += in[i];
    out[0] = s;
    out[-1] = 1.f;
  }
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "a serial sum that writes out[-1]"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          sum_and_scribble<<<1, 32, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
})
