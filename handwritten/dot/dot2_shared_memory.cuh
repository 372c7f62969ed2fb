// dot2_shared_memory — document 000, lab variant 1 (dot product), the function "with shared
// memory".
//
// Lesson: the same reduce3 tree as dot1_global_memory, on the block's 256 products staged in
// shared memory: the inputs are read once from DRAM, coalesced, and the 8 tree levels cost
// shared-memory accesses (conflict-free: consecutive threads touch consecutive words) instead of
// L1/L2 round trips and global writes. What is left is reduce3's: half the threads idle after the
// first level, one partial per 256 products, and a pass per factor of 256.
// The profiler should show no global stores but the partials, and DRAM reads of 2·n values.
//
// Written from the lab's text and the document's reduce3 (the lab has no listing for it): the
// product x_i·y_i is taken during the load; threads past n contribute 0 so any n >= 1 works;
// 64-bit indices; the block partials are summed by further passes of the same kernel on the GPU.
#pragma once

#include "handwritten/dot/dot_common.cuh"

namespace kl::dot2 {

constexpr unsigned kThreads = 256;

// kProducts: the first pass (x_i·y_i); later passes sum the previous partials (y unused).
template <class T, bool kProducts>
__global__ void dot_shared_tree(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out, std::size_t n) {
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + tid;
  if constexpr (kProducts) data[tid] = dot_detail::product_or_zero(x, y, i, n);
  else data[tid] = i < n ? x[i] : T(0);
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s >>= 1) {
    if (tid < s) data[tid] += data[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class T>
DotVariant<T> variant() {
  return {
      .info = {"dot2_shared_memory", "000 lab, variant 1: dot product, shared memory",
               "products staged in shared memory, reduce3's tree there: inputs read once, no global scratch"},
      .launch = [](const DotArgs<T>& a, cudaStream_t s) {
        dot_detail::run_dot_multipass(
            a, kThreads, 0,
            [](const T* x, const T* y, T* dst, std::size_t n, unsigned blocks, T*, cudaStream_t st) {
              dot_shared_tree<T, true><<<blocks, kThreads, 0, st>>>(x, y, dst, n);
            },
            [](const T* src, T* dst, std::size_t len, unsigned blocks, T*, cudaStream_t st) {
              dot_shared_tree<T, false><<<blocks, kThreads, 0, st>>>(src, nullptr, dst, len);
            },
            s);
      },
      .workspace_bytes = [](std::size_t n) { return dot_detail::multipass_workspace_bytes<T>(n, kThreads, 0); },
      // Every pass: a tree of log2(256) levels.
      .rounding_depth = [](std::size_t n) { return dot_detail::multipass_depth(n, kThreads); },
  };
}

}  // namespace kl::dot2
