// dot_atomic_tree — document 004, kernel "dotKernel_V2".
//
// Lesson: the same one-atomic-per-block combination as dot_atomic_serial_block, but the block's
// 64 products are summed by reduce3's tree (sequential addressing) instead of by thread 0 alone:
// 6 parallel steps instead of 63 serial adds. The document keeps each thread's running sum in a
// register (blockSum) and writes it back for the others, so a thread never re-reads its own slot.
// What the tree cannot remove is the atomics: still one per 64 products, all on one address, so
// at large n this step is bound by the L2's same-address atomic throughput, not by DRAM
// (compare dot4_single_pass: one partial per block of a fixed, SM-sized grid, no atomics on data).
//
// What the document gets wrong at N = 1025: as in dotKernel, `if (idx >= n) return;` before the
// barriers, so in the last block 63 threads are gone when the others reach __syncthreads() (six
// more times, inside the tree: undefined by the programming model), and the tree reads their
// never-written s_prod slots (s_prod[s_idx + s]) into the sum. Also `printf` in the kernel.
//
// Changed from the document: threads past n store 0 and stay for the barriers, so any n >= 1
// works; templated on the element type; 64-bit indices; *d_res is zeroed by the launcher on the
// stream, as part of the operation.
#pragma once

#include "handwritten/dot/dot_common.cuh"

namespace kl::dot_atomic_tree {

constexpr unsigned kTPB = 64;
static_assert(kTPB == 1u << 6, "the depth below counts log2(kTPB) = 6 tree levels");

template <class T>
__global__ void dotKernel_V2(T* __restrict__ d_res, const T* __restrict__ d_a, const T* __restrict__ d_b,
                             std::size_t n) {
  const std::size_t idx = threadIdx.x + static_cast<std::size_t>(blockDim.x) * blockIdx.x;
  const unsigned s_idx = threadIdx.x;
  __shared__ T s_prod[kTPB];
  T blockSum = dot_detail::product_or_zero(d_a, d_b, idx, n);
  s_prod[s_idx] = blockSum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (s_idx < s) s_prod[s_idx] = blockSum = blockSum + s_prod[s_idx + s];
    __syncthreads();
  }
  if (s_idx == 0) atomicAdd(d_res, blockSum);
}

template <class T>
DotVariant<T> variant() {
  // log2(64) = 6 tree levels in the block, then one chain of atomics over all blocks (the first
  // landing on the zeroed *d_res exactly).
  return dot_detail::atomic_variant<T, kTPB, 6, dotKernel_V2<T>>(
      {"dot_atomic_tree", "004: dotKernel_V2 (TPB 64)",
       "shared-memory tree per block of 64, then one atomicAdd per block into *d_res"});
}

}  // namespace kl::dot_atomic_tree
