// fp64 product reference on the GPU, for products too large for the host reference (the
// runner switches at a work threshold; the GPU suite checks this kernel against
// reference_product_host on small and odd shapes). Deliberately plain: 16×16 tiles in shared
// memory, arbitrary element strides, so it shares no code or indexing idea with the kernels it
// judges; but compensated like the host one (Dot2: the exact error of every product by an FMA,
// a Neumaier sum), so a double kernel's error is measured against something far more accurate
// than itself. Alongside C it accumulates |A|·|B|, the scale of the bound. Tile rows past the
// grid's y limit (65535 tiles, M > 1,048,560) are taken by a grid-stride loop.
#include "common/cuda_check.hpp"
#include "compare/core/reference.hpp"

#include <algorithm>

namespace kl {
namespace {

constexpr int kTile = 16;
constexpr unsigned kMaxGridY = 65535;

template <class T>
__global__ void product_fp64(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                             std::size_t sb_k, std::size_t sb_j, int M, int N, int K, double* C,
                             double* absC) {
  __shared__ double as[kTile][kTile + 1];
  __shared__ double bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * kTile + tx;
  const int tile_rows = (M + kTile - 1) / kTile;
  for (int tile_row = blockIdx.y; tile_row < tile_rows; tile_row += gridDim.y) {
    const int row = tile_row * kTile + ty;
    double s = 0, c = 0, err = 0, abs_sum = 0;
    for (long long k0 = 0; k0 < K; k0 += kTile) {
      const long long ka = k0 + tx, kb = k0 + ty;
      as[ty][tx] = (row < M && ka < K) ? static_cast<double>(A[row * sa_i + ka * sa_k]) : 0.0;
      bs[ty][tx] = (kb < K && col < N) ? static_cast<double>(B[kb * sb_k + col * sb_j]) : 0.0;
      __syncthreads();
      for (int k = 0; k < kTile; ++k) {
        const double a = as[ty][k], b = bs[k][tx];
        // _rn intrinsics: never contracted into an FMA, which would break the compensation.
        const double p = __dmul_rn(a, b);
        err += fma(a, b, -p);  // the product's rounding error, exactly
        const double t = __dadd_rn(s, p);  // Neumaier's compensated add of p
        c += fabs(s) >= fabs(p) ? (s - t) + p : (p - t) + s;
        s = t;
        abs_sum += fabs(p);
      }
      __syncthreads();
    }
    if (row < M && col < N) {
      const std::size_t idx = static_cast<std::size_t>(row) * N + col;
      C[idx] = s + (c + err);
      absC[idx] = abs_sum;
    }
  }
}

}  // namespace

template <class T>
void reference_product_device(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                              std::size_t sb_k, std::size_t sb_j, int M, int N, int K, double* C,
                              double* absC, void* stream) {
  const dim3 block(kTile, kTile);
  const unsigned tile_rows = static_cast<unsigned>((static_cast<long long>(M) + kTile - 1) / kTile);
  const dim3 grid(static_cast<unsigned>((static_cast<long long>(N) + kTile - 1) / kTile), std::min(tile_rows, kMaxGridY));
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
