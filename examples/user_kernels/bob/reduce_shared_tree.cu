// bob: a shared-memory tree per block, then a second pass over the partial sums. Deliberately
// wrong, the way a first attempt often is: each block loads blockDim.x elements but the grid is
// n / blockDim.x blocks, rounded down, so the last partial block's elements are never added.
// Right whenever n is a multiple of 256; the runner's odd sizes catch it (exact inputs).
#include "common/user_kernel.hpp"

namespace {

constexpr unsigned kThreads = 256;

__global__ void block_sums(const float* __restrict__ in, std::size_t n, float* partial) {
  __shared__ float s[kThreads];
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void sum_partials(const float* partial, unsigned count, float* out) {
  float t = 0;
  for (unsigned b = 0; b < count; ++b) t += partial[b];
  *out = t;
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>(n / kThreads); }  // the bug: rounds down

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"shared_tree", "", "shared-memory tree per block, partial sums added by one thread"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          float* partial = static_cast<float*>(a.workspace);
          const unsigned blocks = blocks_for(a.n);
          if (blocks > 0) {
            block_sums<<<blocks, kThreads, 0, s>>>(a.in, a.n, partial);
            KL_CHECK_LAUNCH();
          }
          sum_partials<<<1, 1, 0, s>>>(partial, blocks, a.out);
          KL_CHECK_LAUNCH();
        },
    .workspace_bytes = [](std::size_t n) { return (n / kThreads + 1) * sizeof(float); },
    .rounding_depth = [](std::size_t n) { return double(8 + n / kThreads + 1); },
})
