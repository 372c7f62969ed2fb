// Shared pieces of the dot ladder. The device building blocks (Products terms, the vectorised
// fold, shuffle trees, the single-pass finish) are the reduce ladder's, in
// handwritten/reduce/reduce_common.cuh; here only what is the dot family's own:
//
//   run_dot_multipass   document 000's lab kernels make one partial per block of products; the
//                       partials are then summed by further passes of the same kernel (as a sum
//                       of one array) until one value is left, all on the GPU
//   no_error_bound      the reason a float variant cannot run a size whose summation chain is so
//                       long that gamma(depth) >= 1 (004's atomics over millions of partials)
//
// Every variant's rounding depth counts the additions only: the family adds the one rounding of
// each product (compare/families/family_dot.hpp), so the bound is gamma(depth + 1)·sum |x_i·y_i|.
#pragma once

#include "common/args/dot_args.hpp"
#include "handwritten/reduce/reduce_common.cuh"

#include <limits>
#include <type_traits>

namespace kl::dot_detail {

using namespace reduce_detail;
using reduce_launch::log2_exact;

// x_i·y_i, or 0 past the end (exact in every type), so no n has to be a multiple of a block.
template <class T>
__device__ __forceinline__ T product_or_zero(const T* __restrict__ x, const T* __restrict__ y, std::size_t i,
                                             std::size_t n) {
  return i < n ? x[i] * y[i] : T(0);
}

// Workspace of run_dot_multipass: `scratch` elements the kernel itself needs (dot1's global
// tree), the first pass's partials, the later passes' ping-pong buffers.
template <class T>
std::size_t multipass_workspace_bytes(std::size_t n, std::size_t per_block, std::size_t scratch) {
  const std::size_t first = ceil_div(n, per_block);
  if (first == 1) return scratch * sizeof(T);
  return (scratch + first) * sizeof(T) + reduce_launch::multipass_workspace_bytes<T>(first, per_block);
}

// The first pass folds products of x and y into one partial per block of `per_block` values,
// `first(x, y, partials, n, blocks, scratch, stream)`; every later pass sums the partials,
// `later(partials, dst, len, blocks, scratch, stream)`, until one value is left in *out.
// Depth: every pass is a tree of log2(per_block) levels (see multipass_depth).
template <class T, class First, class Later>
void run_dot_multipass(const DotArgs<T>& a, std::size_t per_block, std::size_t scratch, First&& first, Later&& later,
                       cudaStream_t s) {
  T* ws = static_cast<T*>(a.workspace);
  T* scratch_ptr = scratch ? ws : nullptr;
  const unsigned blocks = grid_blocks(ceil_div(a.n, per_block));
  T* partials = blocks == 1 ? a.out : ws + scratch;
  first(a.x, a.y, partials, a.n, blocks, scratch_ptr, s);
  KL_CHECK_LAUNCH();
  if (blocks == 1) return;
  reduce_launch::run_multipass(
      static_cast<const T*>(partials), blocks, a.out, ws + scratch + blocks, per_block,
      [&](const T* src, T* dst, std::size_t len, unsigned b, cudaStream_t st) { later(src, dst, len, b, scratch_ptr, st); },
      s);
}

inline double multipass_depth(std::size_t n, std::size_t per_block) {
  return reduce_launch::multipass_passes(n, per_block) * log2_exact(per_block);
}

// A float or double chain of roundings so long that gamma(depth + 1) >= 1 (the + 1: the family's
// rounding of each product) bounds nothing: the runner would fail the variant on a meaningless
// bound (reduce_launch::unbounded_depth). Such a variant (004's atomics accumulate one partial per
// 64 values into one float, serially) cannot promise anything about its result at that size, so it
// declares the size unsupported instead.
template <class T>
const char* no_error_bound(double depth) {
  if (!reduce_launch::unbounded_depth<T>(depth + 1)) return nullptr;
  return std::is_same_v<T, float>
             ? "a serial float chain this long (one atomicAdd per block into one value) has no error bound: gamma(depth) >= 1"
             : "a serial double chain this long has no error bound: gamma(depth) >= 1";
}

// Document 004's dot kernels: `Kernel(out, x, y, n)` runs one block of kTPB threads per kTPB
// products, and each block adds its partial into *out with atomicAdd; *out is zeroed on the
// stream first (the document's cudaMemset), as part of the operation. Rounding: the block's own
// kBlockLevels, then one chain of atomics over all blocks (reduce_detail::atomic_depth, as the
// reduce family's 004 kernels); a size where that chain bounds nothing is unsupported.
template <class T, unsigned kTPB, unsigned kBlockLevels, void (*Kernel)(T*, const T*, const T*, std::size_t)>
DotVariant<T> atomic_variant(VariantInfo info) {
  return {
      .info = info,
      .launch = [](const DotArgs<T>& a, cudaStream_t s) {
        KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), s));
        Kernel<<<grid_blocks(ceil_div(a.n, kTPB)), kTPB, 0, s>>>(a.out, a.x, a.y, a.n);
        KL_CHECK_LAUNCH();
      },
      .rounding_depth = atomic_depth<kTPB, kBlockLevels>,
      .unsupported = [](std::size_t n) { return no_error_bound<T>(atomic_depth<kTPB, kBlockLevels>(n)); },
  };
}

}  // namespace kl::dot_detail
