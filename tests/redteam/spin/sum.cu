// A kernel that never ends. Must cost its own ERROR row ("timed out after N s"), and nothing else:
// the rows after it are graded as usual.
#include "common/user_kernel.hpp"

namespace {

__global__ void forever(const float* in, float* out) {
  volatile const float* v = in;
  while (v[0] == v[0] || v[0] != v[0]) {
  }
  *out = 0;
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "never returns"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          forever<<<1, 1, 0, s>>>(a.in, a.out);
          KL_CHECK_LAUNCH();
        },
})
