// A cache keyed on a launch counter: computes honestly on its first launches (validation, warm-up)
// and every 8th, and otherwise writes the last sum it computed. Must FAIL: the inputs change
// between timed samples, so a stale sum is wrong there ("wrong in timed sample").
#include "common/user_kernel.hpp"

namespace {

constexpr unsigned kBlocks = 264, kThreads = 256;
__device__ unsigned launches;
__device__ float last;

__global__ void decide(float* out) {
  const unsigned k = launches++;
  *out = (k < 6 || k % 8 == 0) ? 0.f : last;
}
__global__ void maybe_sum(const float* __restrict__ in, std::size_t n, float* out) {
  const unsigned k = launches - 1;
  if (!(k < 6 || k % 8 == 0)) return;
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
__global__ void keep(const float* out) { last = *out; }

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "honest on its first launches, stale afterwards"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          decide<<<1, 1, 0, s>>>(a.out);
          maybe_sum<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          keep<<<1, 1, 0, s>>>(a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
