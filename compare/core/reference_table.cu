// The table family's fp64 reference, on the host and on the GPU (see reference_table.hpp).
// Deliberately plain and in double throughout: it shares nothing with the float kernels it
// judges but the formula.
#include "common/cuda_check.hpp"
#include "compare/core/reference_table.hpp"

#include <algorithm>
#include <cmath>

namespace kl {
namespace {

__global__ void table_fp64(double step, std::size_t n, double* ref, double* x) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double xi = sqrt(step * static_cast<double>(i));
    x[i] = xi;
    ref[i] = sin(xi);
  }
}

}  // namespace

void reference_table_host(double step, std::size_t n, double* ref, double* x) {
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::sqrt(step * static_cast<double>(i));
    ref[i] = std::sin(x[i]);
  }
}

void reference_table_device(double step, std::size_t n, double* d_ref, double* d_x) {
  const std::size_t blocks = std::min<std::size_t>((n + 255) / 256, 65536);
  table_fp64<<<static_cast<unsigned>(blocks), 256, 0, cudaStreamLegacy>>>(step, n, d_ref, d_x);
  KL_CHECK_LAUNCH();
  KL_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace kl
