// fill_device: the poison of integer outputs (a value no element of the reference holds), which
// a byte-wise memset cannot express.
#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "compare/core/problem.hpp"

namespace kl {
namespace {

template <class T>
__global__ void fill_kernel(T* p, std::size_t n, T v) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

}  // namespace

template <class T>
void fill_device(T* p, std::size_t n, T v, cudaStream_t s) {
  if (n == 0) return;
  const std::size_t blocks = std::min<std::size_t>(ceil_div(n, std::size_t{256}), 4096);
  fill_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, s>>>(p, n, v);
  KL_CHECK_LAUNCH();
}

template void fill_device<int>(int*, std::size_t, int, cudaStream_t);
template void fill_device<float>(float*, std::size_t, float, cudaStream_t);
template void fill_device<double>(double*, std::size_t, double, cudaStream_t);

}  // namespace kl
