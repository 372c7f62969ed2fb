// reduce_atomic_tree — document 004, kernel "sumOfArrayKernel_V2".
//
// Lesson: the same one-atomic-per-block combination as reduce_atomic_serial_block, but the
// block's 1024 values are summed by reduce3's tree (sequential addressing) instead of by
// thread 0 alone: 10 parallel steps instead of 1023 serial adds (004: 392.7 -> 79.4 ms).
// The document keeps each thread's running sum in a register (blockSum) and writes it back
// for the other threads, so a thread never re-reads its own slot.
//
// Changed from the document: templated on the element type; *out is zeroed by the launcher
// on the stream, as part of the operation (the runner poisons it before every run).
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce_atomic_tree {

constexpr unsigned kTPB = 1024;
static_assert(kTPB == 1u << 10, "the depth below counts log2(kTPB) = 10 tree levels");

template <class T>
__global__ void sumOfArrayKernel_V2(T* __restrict__ d_sum_total, const T* __restrict__ d_A, std::size_t n) {
  __shared__ T s_data[kTPB];
  const unsigned s_idx = threadIdx.x;
  const std::size_t idx = static_cast<std::size_t>(blockIdx.x) * blockDim.x + s_idx;
  T block_sum = reduce_detail::load_or_zero(d_A, idx, n);
  s_data[s_idx] = block_sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (s_idx < s) s_data[s_idx] = block_sum = block_sum + s_data[s_idx + s];
    __syncthreads();
  }
  if (s_idx == 0) atomicAdd(d_sum_total, block_sum);
}

template <class T>
ReduceVariant<T> variant() {
  // log2(1024) = 10 tree levels in the block, then the atomics.
  return reduce_detail::atomic_variant<T, kTPB, 10, sumOfArrayKernel_V2<T>>(
      {"reduce_atomic_tree", "004: sumOfArrayKernel_V2",
       "shared-memory tree per block, then one atomicAdd per block into *out"});
}

}  // namespace kl::reduce_atomic_tree
