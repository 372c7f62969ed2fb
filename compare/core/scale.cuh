// Multiplying n elements by a factor on the device: how compare brings a submission's sampled
// output back to the loaded inputs' scale (device_fill.cu) and how the sandbox scales inputs
// between timed samples (compare/sandbox/child/sandbox.cu). With a signed power of two as the
// factor the product is exact (no overflow or underflow at the sizes the runner draws).
#pragma once

#include "common/cuda_check.hpp"

#include <algorithm>
#include <cstddef>

namespace kl {
namespace {

template <class T>
__global__ void scale_kernel(T* p, std::size_t n, double factor) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(static_cast<double>(p[i]) * factor);
}

// One copy per translation unit (anonymous), like the read flush of l2_flush.cuh.
template <class T>
void scale_on(T* p, std::size_t n, double factor, cudaStream_t s) {
  if (n == 0) return;
  const std::size_t blocks = std::min<std::size_t>((n + 255) / 256, 4096);
  scale_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, s>>>(p, n, factor);
  KL_CHECK_LAUNCH();
}

}  // namespace
}  // namespace kl
