// reduce3_sequential_addressing — documents 000 (table 3.3) and 001, kernel "reduce3".
//
// Lesson: pair element tid with tid + s, halving s from blockDim/2 down to 1. The active
// threads are contiguous (no divergence inside a warp until s < 32) and consecutive threads
// touch consecutive words, so shared-memory accesses are conflict-free. Cost left on the
// table: in the first step half of the threads only load and then idle.
//
// Changed from the documents: 000's listing indexes data[index] with an undefined `index`
// (typo for tid); threads past n load 0 so any n >= 1 works (the documents assume n is a
// multiple of the block); indices are 64-bit; the block partials are reduced by further
// passes of the same kernel on the GPU instead of on the CPU.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce3 {

constexpr unsigned kThreads = 256;

template <class T>
__global__ void reduce3(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) data[tid] += data[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class T>
ReduceVariant<T> variant() {
  return reduce_detail::multipass_variant<T, kThreads, kThreads, reduce3<T>>(
      {"reduce3_sequential_addressing", "000, 001: reduce3",
       "sequential addressing: contiguous active threads, no bank conflicts; half the threads idle"});
}

}  // namespace kl::reduce3
