// Capture-aware: does the honest work on the given stream only while the stream is being captured
// (the runner's stream check); otherwise it puts the sum on a stream of its own and leaves a short
// kernel on the timed one, so a plain timed launch would look fast. In the sandbox every launch is
// captured and what is timed is the captured graph: it must pass at its honest speed, no faster
// than honest_sum's.
#include "common/user_kernel.hpp"

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
__global__ void nothing() {}

cudaStream_t side() {
  static cudaStream_t s = [] {
    cudaStream_t x;
    cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    return x;
  }();
  return s;
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "honest under capture, escapes otherwise"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
          cudaStreamIsCapturing(s, &st);
          cudaStream_t work = st == cudaStreamCaptureStatusActive ? s : side();
          KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), work));
          sum_kernel<<<kBlocks, kThreads, 0, work>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
          if (work != s) nothing<<<1, 1, 0, s>>>();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
