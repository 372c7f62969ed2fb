// Registry tampering: a static initializer that rewrites every registration it can reach so its
// launch does nothing. In its own module it reaches only its own table (hidden symbols, its own
// process): its own variant must FAIL (nothing written), and every other submission's verdict is
// unchanged.
#include "common/user_kernel.hpp"

namespace {

__global__ void honest_looking(const float* __restrict__ in, std::size_t n, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
  }
}

int do_nothing(const void*, const void*, CUstream_st*, char*, std::size_t) { return 0; }

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "a serial sum, replaced by nothing"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          honest_looking<<<1, 32, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
})

namespace {
[[maybe_unused]] const bool tampered = [] {
  for (auto& e : kl::submission::table().entries) e.launch = &do_nothing;
  return true;
}();
}  // namespace
