// frank: one float sum launched with two grid sizes, the second registration copied from the
// first without renaming it. Each kernel would be right, but one submission may not register a
// name twice in a family and type: compare leaves frank out, naming both lines, and grades the
// others (docs/your-kernel.md, "A class folder").
#include "common/user_kernel.hpp"

namespace {

constexpr unsigned kThreads = 256;

__global__ void grid_sum(const float* __restrict__ in, std::size_t n, float* out) {
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

void launch(const kl::ReduceArgs<float>& a, cudaStream_t s, unsigned blocks) {
  KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
  grid_sum<<<blocks, kThreads, 0, s>>>(a.in, a.n, a.out);
  KL_CHECK_LAUNCH();
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"grid_sum", "", "grid-stride loop over 132 blocks, warp shuffle, one atomicAdd per warp"},
    .launch = [](const kl::ReduceArgs<float>& a, cudaStream_t s) { launch(a, s, 132); },
})
KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"grid_sum", "", "the same over 528 blocks"},
    .launch = [](const kl::ReduceArgs<float>& a, cudaStream_t s) { launch(a, s, 528); },
})
