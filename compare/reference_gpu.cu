// fp64 product reference on the GPU, for products too large for the host reference (the
// runner switches at a work threshold; the GPU suite checks this kernel against
// reference_product_host on small and odd shapes). Deliberately plain: 16×16 tiles in shared
// memory, fp64 accumulation, arbitrary element strides, so it shares no code or indexing
// idea with the kernels it judges. Alongside C it accumulates |A|·|B|, the scale of the bound.
#include "common/cuda_check.hpp"
#include "compare/reference.hpp"

namespace kl {
namespace {

constexpr int kTile = 16;

template <class T>
__global__ void product_fp64(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                             std::size_t sb_k, std::size_t sb_j, int M, int N, int K, double* C,
                             double* absC) {
  __shared__ double as[kTile][kTile + 1];
  __shared__ double bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  double sum = 0, abs_sum = 0;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    const int ka = k0 + tx, kb = k0 + ty;
    as[ty][tx] = (row < M && ka < K) ? static_cast<double>(A[row * sa_i + ka * sa_k]) : 0.0;
    bs[ty][tx] = (kb < K && col < N) ? static_cast<double>(B[kb * sb_k + col * sb_j]) : 0.0;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) {
      sum = fma(as[ty][k], bs[k][tx], sum);
      abs_sum = fma(fabs(as[ty][k]), fabs(bs[k][tx]), abs_sum);
    }
    __syncthreads();
  }
  if (row < M && col < N) {
    const std::size_t idx = static_cast<std::size_t>(row) * N + col;
    C[idx] = sum;
    absC[idx] = abs_sum;
  }
}

}  // namespace

template <class T>
void reference_product_device(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                              std::size_t sb_k, std::size_t sb_j, int M, int N, int K, double* C,
                              double* absC, void* stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  product_fp64<T><<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(A, sa_i, sa_k, B, sb_k,
                                                                         sb_j, M, N, K, C, absC);
  KL_CHECK_LAUNCH();
}

template void reference_product_device<float>(const float*, std::size_t, std::size_t, const float*,
                                               std::size_t, std::size_t, int, int, int, double*,
                                               double*, void*);
template void reference_product_device<double>(const double*, std::size_t, std::size_t,
                                                const double*, std::size_t, std::size_t, int, int,
                                                int, double*, double*, void*);

}  // namespace kl
