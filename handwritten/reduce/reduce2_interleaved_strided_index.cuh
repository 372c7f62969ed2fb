// reduce2_interleaved_strided_index — documents 000 and 001, kernel "reduce2".
//
// Lesson: the same pairs as reduce1, but thread tid works on index = 2·s·tid, so the active
// threads are the first blockDim/(2s): whole warps retire together and the branch no longer
// diverges inside a warp. The price is in shared memory: at step s consecutive threads touch
// words 2·s apart, so with 32 banks of 4 bytes a warp hits only every (2s)-th bank, a 2s-way
// conflict (001's table) as long as that many threads are still active; 8-byte elements
// double the stride in bytes.
//
// Changed from the documents: 000 prints this kernel under the name reduce1 again, with
// `s <= 1` for `s <<= 1` (a loop that never ends); threads past n load 0 so any n >= 1 works;
// indices are 64-bit; the block partials are reduced by further passes of the same kernel on
// the GPU instead of on the CPU.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce2 {

constexpr unsigned kThreads = 256;

template <class T>
__global__ void reduce2(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = reduce_detail::load_or_zero(in, i, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) data[index] += data[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class T>
ReduceVariant<T> variant() {
  return reduce_detail::multipass_variant<T, kThreads, kThreads, reduce2<T>>(
      {"reduce2_interleaved_strided_index", "000, 001: reduce2",
       "index = 2s*tid: no divergence inside warps, but 2s-way shared-memory bank conflicts"});
}

}  // namespace kl::reduce2
