// An honest float product with 16x16 shared-memory tiles (document 000's lesson): must pass.
#include "common/user_kernel.hpp"

namespace {

constexpr int kTile = 16;

__global__ void tiled(const float* __restrict__ A, const float* __restrict__ B, float* C, int M, int N, int K) {
  __shared__ float as[kTile][kTile], bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    as[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[static_cast<std::size_t>(row) * K + k0 + threadIdx.x] : 0.f;
    bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? B[static_cast<std::size_t>(k0 + threadIdx.y) * N + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<std::size_t>(row) * N + col] = acc;
}

}  // namespace

KL_REGISTER_VARIANT("gemm", kl::GemmVariant<float>{
    .info = {"tiled16", "", "16x16 shared-memory tiles"},
    .launch =
        [](const kl::GemmArgs<float>& a, cudaStream_t s) {
          const dim3 grid((a.N + kTile - 1) / kTile, (a.M + kTile - 1) / kTile);
          tiled<<<grid, dim3(kTile, kTile), 0, s>>>(a.A, a.B, a.C, a.M, a.N, a.K);
          KL_CHECK_LAUNCH();
        },
})
