// reduce4_first_add_during_load — document 000, kernel "reduce4" (001 gives that name to the
// unrolled kernel, here reduce5).
//
// Lesson: in reduce3 half of the threads only load and then idle at the first step. Here each
// block takes 2·blockDim values and every thread adds its two while loading, so the first tree
// level costs no shared-memory round trip and half as many blocks (and partials) are needed
// for the same n. 000 table 3.3: 10.62 -> 9.10 ms.
//
// Changed from the document: its listing reads in[i + blockDim] without a bound, past the end
// of the array whenever n is not a multiple of 2·blockDim (and its driver loop is garbled);
// both loads are bounded here, threads past n contributing 0. Indices are 64-bit; the block
// partials are reduced by further passes of the same kernel on the GPU instead of on the CPU.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce4 {

constexpr unsigned kThreads = 256;
constexpr std::size_t kPerBlock = 2 * kThreads;

template <class T>
__global__ void reduce4(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  using reduce_detail::load_or_zero;
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = 2 * static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = load_or_zero(in, i, n) + load_or_zero(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) data[tid] += data[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class T>
ReduceVariant<T> variant() {
  return reduce_detail::multipass_variant<T, kThreads, kPerBlock, reduce4<T>>(
      {"reduce4_first_add_during_load", "000: reduce4",
       "each block folds 2x its threads, adding the first pair while loading: no idle first step"});
}

}  // namespace kl::reduce4
