// reduce1_interleaved_divergent — documents 000 and 001, kernel "reduce1".
//
// Lesson: the first tree reduction in shared memory. Each block loads 256 values and halves
// them log2(256) times; at step s the threads with tid % (2·s) == 0 add their neighbour s
// away. The active threads are scattered through every warp, so every warp stays busy (and
// divergent) until the last step, and the % is an integer division per thread per step:
// 000 table 3.3 and 001 put it last on the ladder.
//
// Changed from the documents: threads past n load 0 so any n >= 1 works (the documents assume
// n is a multiple of the block); indices are 64-bit; the block partials are reduced by further
// passes of the same kernel on the GPU instead of on the CPU.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce1 {

constexpr unsigned kThreads = 256;

template <class T>
__global__ void reduce1(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = reduce_detail::load_or_zero(in, i, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) data[tid] += data[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class T>
ReduceVariant<T> variant() {
  return reduce_detail::multipass_variant<T, kThreads, kThreads, reduce1<T>>(
      {"reduce1_interleaved_divergent", "000, 001: reduce1",
       "interleaved pairs picked by tid % (2s): divergent warps and a division per step"});
}

}  // namespace kl::reduce1
