// A program run while its module loads (a static initializer calling system(), which starts a
// shell through posix_spawn): the same way out as escaped_child, before any call is made to it.
// The module is first loaded to list it, under the same filter: must be left out there, its
// listing killed by the refused call ("a system call the sandbox refuses"), and never graded.
#include "common/user_kernel.hpp"

#include <cstdlib>

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

const int ran = std::system("true");

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "runs a program while its module loads"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          sum_kernel<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32 + 0 * ran); },
})
