// reduce6_complete_unroll — document 002, "Reduction #6: Completely Unrolled".
//
// Lesson: with the block size a template parameter, every `if (blockSize >= ...)` and the
// loop bounds are known at compile time: the tree becomes straight-line code, with no loop
// counter, no shift and no compare on s left at run time. Only the `tid < s` tests and the
// barriers remain.
//
// Changed from the document: the block size is fixed at 256 here (the document picks the
// instance with a switch on the run-time block size); blockSize must be a power of two from
// 64 to 1024 (static_assert), which makes the document's `blockSize >= 64 ... >= 2` tests in
// the warp part always true, so that part is the shared warp_reduce_volatile with the race
// fixed (see reduce5). The load is reduce4's (2·blockSize values per block, both bounded,
// 64-bit indices); the block partials are reduced by further passes on the GPU.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce6 {

constexpr unsigned kThreads = 256;
constexpr std::size_t kPerBlock = 2 * kThreads;

template <unsigned blockSize, class T>
__global__ void __launch_bounds__(blockSize) reduce6(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  static_assert(blockSize >= 64 && blockSize <= 1024 && (blockSize & (blockSize - 1)) == 0);
  using reduce_detail::load_or_zero;
  __shared__ T sdata[blockSize];
  const unsigned tid = threadIdx.x;
  const std::size_t i = 2 * static_cast<std::size_t>(blockIdx.x) * blockSize + tid;
  sdata[tid] = load_or_zero(in, i, n) + load_or_zero(in, i + blockSize, n);
  __syncthreads();
  if (blockSize >= 1024) {
    if (tid < 512) sdata[tid] += sdata[tid + 512];
    __syncthreads();
  }
  if (blockSize >= 512) {
    if (tid < 256) sdata[tid] += sdata[tid + 256];
    __syncthreads();
  }
  if (blockSize >= 256) {
    if (tid < 128) sdata[tid] += sdata[tid + 128];
    __syncthreads();
  }
  if (blockSize >= 128) {
    if (tid < 64) sdata[tid] += sdata[tid + 64];
    __syncthreads();
  }
  if (tid < 32) {
    const T sum = reduce_detail::warp_reduce_volatile<T>(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sum;
  }
}

template <class T>
ReduceVariant<T> variant() {
  return reduce_detail::multipass_variant<T, kThreads, kPerBlock, reduce6<kThreads, T>>(
      {"reduce6_complete_unroll", "002: #6 completely unrolled",
       "block size as a template parameter: the whole tree unrolled at compile time"});
}

}  // namespace kl::reduce6
