// A constant defined only in Debug builds (#ifndef NDEBUG). With the build's own flags (Release:
// -DNDEBUG) it does not compile: it must be left out with its file, line and first error, and
// every other submission built and graded.
#include "common/user_kernel.hpp"

#ifndef NDEBUG
constexpr unsigned kThreads = 256;
#endif

namespace {

__global__ void sum_kernel(const float* __restrict__ in, std::size_t n, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
  }
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "uses a Debug-only constant"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          sum_kernel<<<1, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
})
