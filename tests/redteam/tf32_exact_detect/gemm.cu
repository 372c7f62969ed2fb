// TF32 through wmma, with the exact input set recognised: when A's leading values are all
// integers (the runner's equality check) it computes in FP32; otherwise it rounds the operands to
// TF32 on the tensor cores (sm_80+), orders of magnitude above cuBLAS's FP32 error. Must FAIL on
// random inputs: its error against the library's on the same inputs ("times the library's").
#include "common/user_kernel.hpp"

#include <mma.h>

namespace {

constexpr int kTile = 16;

__global__ void looks_exact(const float* A, std::size_t count, int* exact) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int all = 1;
  for (std::size_t i = 0; i < count; ++i) all &= A[i] == truncf(A[i]);
  *exact = all;
}

// One warp per 16x16 tile of C, operands staged through shared memory (zero-padded edges).
__global__ void product(const float* __restrict__ A, const float* __restrict__ B, float* C, int M, int N, int K,
                        const int* exact) {
  __shared__ float as[kTile][kTile], bs[kTile][kTile], cs[kTile][kTile];
  const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile, lane = threadIdx.x;
  const bool fp32 = *exact != 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr bool kTf32 = true;
#else
  constexpr bool kTf32 = false;
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  namespace w = nvcuda::wmma;
  w::fragment<w::accumulator, 16, 16, 8, float> acc;
  w::fill_fragment(acc, 0.f);
#endif
  float mine[8] = {};
  for (int k0 = 0; k0 < K; k0 += kTile) {
    for (int e = lane; e < kTile * kTile; e += 32) {
      const int i = e / kTile, j = e % kTile;
      as[i][j] = r0 + i < M && k0 + j < K ? A[static_cast<std::size_t>(r0 + i) * K + k0 + j] : 0.f;
      bs[i][j] = k0 + i < K && c0 + j < N ? B[static_cast<std::size_t>(k0 + i) * N + c0 + j] : 0.f;
    }
    __syncwarp();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (!fp32) {
      for (int kk = 0; kk < kTile; kk += 8) {
        w::fragment<w::matrix_a, 16, 16, 8, w::precision::tf32, w::row_major> a;
        w::fragment<w::matrix_b, 16, 16, 8, w::precision::tf32, w::row_major> b;
        w::load_matrix_sync(a, &as[0][kk], kTile);
        w::load_matrix_sync(b, &bs[kk][0], kTile);
        for (int t = 0; t < a.num_elements; ++t) a.x[t] = w::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b.num_elements; ++t) b.x[t] = w::__float_to_tf32(b.x[t]);
        w::mma_sync(acc, a, b, acc);
      }
    }
#endif
    if (fp32 || !kTf32) {
      for (int t = 0; t < 8; ++t) {
        const int e = lane + 32 * t, i = e / kTile, j = e % kTile;
        for (int k = 0; k < kTile; ++k) mine[t] += as[i][k] * bs[k][j];
      }
    }
    __syncwarp();
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (!fp32) {
    w::store_matrix_sync(&cs[0][0], acc, kTile, w::mem_row_major);
    __syncwarp();
    for (int t = 0; t < 8; ++t) mine[t] = cs[(lane + 32 * t) / kTile][(lane + 32 * t) % kTile];
  }
#endif
  for (int t = 0; t < 8; ++t) {
    const int e = lane + 32 * t, i = r0 + e / kTile, j = c0 + e % kTile;
    if (i < M && j < N) C[static_cast<std::size_t>(i) * N + j] = mine[t];
  }
}

}  // namespace

KL_REGISTER_VARIANT("gemm", kl::GemmVariant<float>{
    .info = {"tf32", "", "TF32 tensor cores, FP32 where the inputs look exact"},
    .needs = {.compute_capability = 80, .feature = "TF32 wmma"},
    .launch =
        [](const kl::GemmArgs<float>& a, cudaStream_t s) {
          int* flag = static_cast<int*>(a.workspace);
          looks_exact<<<1, 1, 0, s>>>(a.A, static_cast<std::size_t>(a.M) * a.K < 64 ? static_cast<std::size_t>(a.M) * a.K : 64, flag);
          product<<<dim3((a.N + kTile - 1) / kTile, (a.M + kTile - 1) / kTile), 32, 0, s>>>(a.A, a.B, a.C, a.M, a.N, a.K, flag);
          KL_CHECK_LAUNCH();
        },
    .workspace_bytes = [](kl::GemmShape) { return sizeof(int); },
})
