// An honest float matrix-vector product (one warp per row, coalesced along the row, a shuffle
// reduction): must pass, at the same speed graded alone as beside every planted submission.
#include "common/user_kernel.hpp"

namespace {

constexpr int kWarps = 8;

__global__ void warp_per_row(const float* __restrict__ A, const float* __restrict__ x, float* y, int M, int N) {
  const int row = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= M) return;
  const float* a = A + static_cast<std::size_t>(row) * N;
  float s = 0;
  for (int j = lane; j < N; j += 32) s += a[j] * x[j];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) y[row] = s;
}

}  // namespace

KL_REGISTER_VARIANT("gemv", kl::MatVecVariant<float>{
    .info = {"warp_per_row", "", "one warp per row, shuffle reduction"},
    .launch =
        [](const kl::MatVecArgs<float>& a, cudaStream_t s) {
          warp_per_row<<<(a.M + kWarps - 1) / kWarps, kWarps * 32, 0, s>>>(a.A, a.x, a.y, a.M, a.N);
          KL_CHECK_LAUNCH();
        },
})
