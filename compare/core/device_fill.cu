// fill_device: the poison of integer outputs (a value no element of the reference holds), which
// a byte-wise memset cannot express.
#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "compare/core/problem.hpp"

#include <cstdint>

namespace kl {
namespace {

template <class T>
__global__ void fill_kernel(T* p, std::size_t n, T v) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

// Counts differing bytes: 16 bytes at a time where both pointers allow it, then the tail.
__global__ void count_differences_kernel(const unsigned char* a, const unsigned char* b, std::size_t bytes,
                                         unsigned long long* count) {
  unsigned long long local = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const bool vec = (reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b)) % 16 == 0;
  std::size_t done = 0;
  if (vec) {
    const std::size_t words = bytes / 16;
    const uint4* va = reinterpret_cast<const uint4*>(a);
    const uint4* vb = reinterpret_cast<const uint4*>(b);
    for (std::size_t i = first; i < words; i += stride) {
      const uint4 x = va[i], y = vb[i];
      if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w)
        for (int k = 0; k < 16; ++k) local += a[i * 16 + k] != b[i * 16 + k];
    }
    done = words * 16;
  }
  for (std::size_t i = done + first; i < bytes; i += stride) local += a[i] != b[i];
  if (local) atomicAdd(count, local);
}

}  // namespace

std::size_t count_differences(const void* a, const void* b, std::size_t bytes) {
  if (bytes == 0) return 0;
  unsigned long long* d = nullptr;
  KL_CUDA_CHECK(cudaMalloc(&d, sizeof *d));
  KL_CUDA_CHECK(cudaMemset(d, 0, sizeof *d));
  const std::size_t blocks = std::min<std::size_t>(ceil_div(bytes, std::size_t{4096}), 2048);
  count_differences_kernel<<<static_cast<unsigned>(std::max<std::size_t>(blocks, 1)), 256, 0, cudaStream_t{}>>>(
      static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b), bytes, d);
  const cudaError_t launched = cudaGetLastError();
  unsigned long long h = 0;
  const cudaError_t copied = launched == cudaSuccess ? cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) : launched;
  cudaFree(d);
  KL_CUDA_CHECK(copied);
  return static_cast<std::size_t>(h);
}

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
