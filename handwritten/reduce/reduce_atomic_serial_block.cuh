// reduce_atomic_serial_block — document 004, kernel "sumOfArrayKernel".
//
// Lesson: the simplest way to combine blocks without a second pass. Each block stages its
// TPB = 1024 values in shared memory and thread 0 adds them one after another; then one
// atomicAdd per block into *out. The atomic is what makes it right (004's ATOMIC 0 branch,
// `*d_sum_total += blockSum`, loses updates when blocks collide); the serial loop is what makes
// it slow: 1023 of 1024 threads wait while one walks the block, and the sum's order (hence its
// rounding) depends on which block's atomic lands first.
//
// Changed from the document: templated on the element type (004 has double; atomicAdd exists
// for int, float and double on sm_60+); 64-bit indices as in the document; *out is zeroed by
// the launcher on the stream (the document's cudaMemset), as part of the operation, because
// the runner poisons it before every run.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce_atomic_serial {

constexpr unsigned kTPB = 1024;

template <class T>
__global__ void sumOfArrayKernel(T* __restrict__ d_sum_total, const T* __restrict__ d_A, std::size_t n) {
  __shared__ T s_data[kTPB];
  const unsigned s_idx = threadIdx.x;
  const std::size_t idx = static_cast<std::size_t>(blockIdx.x) * blockDim.x + s_idx;
  s_data[s_idx] = reduce_detail::load_or_zero(d_A, idx, n);
  __syncthreads();
  if (s_idx == 0) {
    T block_sum = T(0);
    for (unsigned j = 0; j < blockDim.x; ++j) block_sum += s_data[j];
    atomicAdd(d_sum_total, block_sum);
  }
}

template <class T>
ReduceVariant<T> variant() {
  // A serial chain of 1023 adds in the block (0 + s[0] is exact), then the atomics.
  return reduce_detail::atomic_variant<T, kTPB, kTPB - 1, sumOfArrayKernel<T>>(
      {"reduce_atomic_serial_block", "004: sumOfArrayKernel",
       "thread 0 adds its block's 1024 values serially, one atomicAdd per block into *out"});
}

}  // namespace kl::reduce_atomic_serial
