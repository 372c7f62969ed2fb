// erin: a float sum, one shared-memory tree per block and one atomic per block, handed in with a
// typo: the block's result is stored from a variable that does not exist. It does not compile,
// so the build and compare leave erin out, naming the file, the line and the compiler's first
// error, and every other submission is built and graded (docs/your-kernel.md, "A class folder").
#include "common/user_kernel.hpp"

namespace {

constexpr unsigned kBlocks = 264, kThreads = 256;

__global__ void block_sum(const float* __restrict__ in, std::size_t n, float* out) {
  __shared__ float part[kThreads];
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"block_sum", "", "grid-stride loop, shared-memory tree per block, one atomicAdd per block"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
          block_sum<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
})
