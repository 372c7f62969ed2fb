// dot1_global_memory — document 000, lab variant 1 (dot product), the function "with global
// memory".
//
// Lesson: the lab asks for each variant twice, once with global memory only and once with shared
// memory, and for the time difference. Here every block writes its 256 products to its own slots
// of a scratch array in global memory and runs reduce3's tree (sequential addressing) there:
// each of the 8 levels reads two values and writes one through the memory hierarchy (L1 is
// write-through, so every write goes to L2), where dot2_shared_memory does the same tree in
// shared memory. Twice the DRAM traffic of the inputs (the products are written out once, and
// read back while they may still be in L2) plus 8 barriers around global accesses per block.
// The profiler should show L2 store traffic close to the load traffic, and the SM stalled on
// global-memory latency inside the tree.
//
// Written from the lab's text (the document has no listing for it): the tree is reduce3's, as
// in the document's reduction section; threads past n contribute 0 so any n >= 1 works; 64-bit
// indices; the block partials are summed by further passes of the same kernel on the GPU.
// __syncthreads() orders global as well as shared accesses among a block's threads, so the
// tree needs no volatile and no fence.
#pragma once

#include "handwritten/dot/dot_common.cuh"

namespace kl::dot1 {

constexpr unsigned kThreads = 256;

// kProducts: the first pass (x_i·y_i); later passes sum the previous partials (y unused).
template <class T, bool kProducts>
__global__ void dot_global_tree(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out,
                                std::size_t n, T* scratch) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + tid;
  T* g = scratch + static_cast<std::size_t>(blockIdx.x) * kThreads;  // this block's slots
  if constexpr (kProducts) g[tid] = dot_detail::product_or_zero(x, y, i, n);
  else g[tid] = i < n ? x[i] : T(0);
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s >>= 1) {
    if (tid < s) g[tid] += g[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = g[0];
}

// The scratch array: one slot per thread of the first pass (later passes have fewer blocks).
inline std::size_t scratch_elements(std::size_t n) { return ceil_div(n, std::size_t{kThreads}) * kThreads; }

template <class T>
DotVariant<T> variant() {
  return {
      .info = {"dot1_global_memory", "000 lab, variant 1: dot product, global memory",
               "products and reduce3's tree kept in a global scratch array: every tree level goes through L1/L2"},
      .launch = [](const DotArgs<T>& a, cudaStream_t s) {
        dot_detail::run_dot_multipass(
            a, kThreads, scratch_elements(a.n),
            [](const T* x, const T* y, T* dst, std::size_t n, unsigned blocks, T* scratch, cudaStream_t st) {
              dot_global_tree<T, true><<<blocks, kThreads, 0, st>>>(x, y, dst, n, scratch);
            },
            [](const T* src, T* dst, std::size_t len, unsigned blocks, T* scratch, cudaStream_t st) {
              dot_global_tree<T, false><<<blocks, kThreads, 0, st>>>(src, nullptr, dst, len, scratch);
            },
            s);
      },
      .workspace_bytes = [](std::size_t n) {
        return dot_detail::multipass_workspace_bytes<T>(n, kThreads, scratch_elements(n));
      },
      // Every pass: a tree of log2(256) levels.
      .rounding_depth = [](std::size_t n) { return dot_detail::multipass_depth(n, kThreads); },
  };
}

}  // namespace kl::dot1
