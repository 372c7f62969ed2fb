// dot_atomic_serial_block — document 004, kernel "dotKernel" (from Storti & Yurtoglu, "CUDA for
// engineers", ch. 6), N = 1024 and "Probar con 1025".
//
// Lesson: blocks of TPB = 64 threads each store their products in shared memory, thread 0 adds
// the 64 of them one after another, and one atomicAdd per block folds the block sums into *d_res.
// The atomic is what makes it right (the document's ATOMIC 0 branch, `*d_res += blockSum`, loses
// updates when blocks collide); the serial loop and the atomics are what make it slow: 63 of 64
// threads wait while thread 0 walks the block, and n/64 atomics on one address are serialised at
// the L2 slice that owns it. For float and double the order in which the atomics land changes
// from run to run, hence so does the rounding (the declared depth covers any order).
//
// What the document gets wrong at N = 1025 (and any n that is not a multiple of 64): the kernel
// starts with `if (idx >= n) return;`, so in the last block (17 blocks for 1025) only thread 0
// survives; it then (1) reaches __syncthreads() with 63 threads of its block gone, which the
// programming model leaves undefined (a barrier must be reached by the whole block), and (2) sums
// s_prod[0..63], of which 63 were never written by this block: whatever an earlier block left in
// that shared memory goes into the result (with the document's inputs a = 2, b = 1 it typically
// reads 63 stale 2s: 2176 instead of 2050). At N = 1024 every block is full and the result is
// right. Also fixed: `global` for `__global__`, `>>` for `>>>` in the launch, the
// printf in the kernel (it serialises and floods the output) removed.
//
// Changed from the document: threads past n store 0 (exact in every type) and stay for the
// barrier, so any n >= 1 works; templated on the element type (004 has int; atomicAdd exists for
// int, float and double on sm_60+); 64-bit indices; *d_res is zeroed by the launcher on the
// stream (the document's cudaMemset), as part of the operation, because the runner poisons it
// before every run. The grid keeps the document's (n + TPB - 1) / TPB blocks.
#pragma once

#include "handwritten/dot/dot_common.cuh"

namespace kl::dot_atomic_serial {

constexpr unsigned kTPB = 64;

template <class T>
__global__ void dotKernel(T* __restrict__ d_res, const T* __restrict__ d_a, const T* __restrict__ d_b, std::size_t n) {
  const std::size_t idx = threadIdx.x + static_cast<std::size_t>(blockDim.x) * blockIdx.x;
  const unsigned s_idx = threadIdx.x;
  __shared__ T s_prod[kTPB];
  s_prod[s_idx] = dot_detail::product_or_zero(d_a, d_b, idx, n);
  __syncthreads();
  if (s_idx == 0) {
    T blockSum = T(0);
    for (unsigned j = 0; j < blockDim.x; ++j) blockSum += s_prod[j];
    atomicAdd(d_res, blockSum);
  }
}

template <class T>
DotVariant<T> variant() {
  // A serial chain of 63 adds in the block (0 + s[0] is exact), then the atomics: one chain over
  // all blocks in arrival order, the first landing on the zeroed *d_res exactly.
  return dot_detail::atomic_variant<T, kTPB, kTPB - 1, dotKernel<T>>(
      {"dot_atomic_serial_block", "004: dotKernel (TPB 64)",
       "thread 0 adds its block's 64 products serially, one atomicAdd per block into *d_res"});
}

}  // namespace kl::dot_atomic_serial
