// A memo in the guard band: the sum and a sample of the input are stored just past the input
// (in[n], in[n + 1]) and reused while the sample is unchanged. Must FAIL: the band after an input
// is checked unchanged after every run ("wrote past the end of its input 0").
#include "common/user_kernel.hpp"

namespace {

__global__ void memo_sum(const float* __restrict__ in, std::size_t n, float* out) {
  float* memo = const_cast<float*>(in) + n;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    if (memo[1] == in[0] && !isnan(memo[0])) {
      *out = memo[0];
      return;
    }
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
    memo[0] = s;
    memo[1] = in[0];
  }
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "remembers its answer just past the input"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          memo_sum<<<1, 32, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
})
