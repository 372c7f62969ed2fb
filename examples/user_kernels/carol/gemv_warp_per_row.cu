// carol: y = A·x with one warp per row (coalesced loads along the row, a shuffle reduction), in
// float and double. Correct at every shape; declares nothing optional: the family's default
// depth (N products per row) bounds its error.
#include "common/user_kernel.hpp"

namespace {

template <class T>
__global__ void warp_per_row(const T* __restrict__ A, const T* __restrict__ x, T* y, int M, int N) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= M) return;
  const T* a = A + static_cast<std::size_t>(row) * N;
  T s = 0;
  for (int j = lane; j < N; j += 32) s += a[j] * x[j];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) y[row] = s;
}

template <class T>
kl::MatVecVariant<T> variant() {
  return {.info = {"warp_per_row", "", "one warp per row, shuffle reduction"},
          .launch = [](const kl::MatVecArgs<T>& a, cudaStream_t s) {
            constexpr int kWarps = 8;
            warp_per_row<T><<<(a.M + kWarps - 1) / kWarps, kWarps * 32, 0, s>>>(a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace

KL_REGISTER_VARIANT("gemv", variant<float>())
KL_REGISTER_VARIANT("gemv", variant<double>())
