// Host-side launch patterns of the sum-like families (reduce, dot, rows), said once for the
// hand-written ladder and the library baselines that share them:
//
//   multipass   the documents' kernels make one partial per block; pass k reduces len_k values
//               to ceil(len_k / per_block) partials until one is left, all on the GPU (the
//               documents stop after one pass and finish on the CPU, or leave it to the reader).
//               The passes ping-pong between two halves of the workspace.
//   two_pass    a grid sized to the GPU leaves `grid` partials; the same kernel with one block
//               sums them (reduce7, the CUB BlockReduce baseline, dot kernels).
//
// Each pattern comes with its workspace size and its rounding depth (the height of the
// summation tree the error bound needs; common/variant.hpp).
#pragma once

#include "common/device_helpers.cuh"
#include "common/args/reduce_args.hpp"
#include "common/args/rows_args.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace kl::reduce_launch {

// log2 of a power of two known at run time.
inline double log2_exact(std::size_t x) { return std::log2(static_cast<double>(x)); }

// Whether a chain of `depth` roundings in T is too long for any error bound: gamma(depth) >= 1
// (depth·u >= 1/2), which lets anything within sum|x| of the truth pass, so the runner fails such
// a check as meaningless (compare/core/tolerance.hpp: meaningful_factor). A variant whose depth (plus
// what its family adds: the product's rounding in dot, a square or a mean's scaling in rows)
// reaches it at some size cannot promise anything about its result there and declares the size
// unsupported instead: a serial kernel (004's atomics over millions of partials, the documents'
// thread per row over 2^24 elements) or a library that documents no summation order (cuBLAS: the
// only bound that holds for every order is the longest chain, n). Integers: never (exact).
template <class T>
bool unbounded_depth(double depth) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return depth * (std::numeric_limits<T>::epsilon() / 2) >= 0.5;
  }
}

// The same for a rows operation: its declared depth plus what the family adds for op
// (row_op_extra_roundings); max and min need no bound.
template <class T>
bool rows_unbounded_depth(RowOp op, double depth) {
  const int extra = row_op_extra_roundings(op);
  return extra >= 0 && unbounded_depth<T>(depth + extra);
}

// ---------------------------------------------------------------------------------------------
// multipass

// Two partial buffers of ceil(n / per_block) values each (every later pass is smaller).
template <class T>
std::size_t multipass_workspace_bytes(std::size_t n, std::size_t per_block) {
  const std::size_t partials = ceil_div(n, per_block);
  return partials > 1 ? 2 * partials * sizeof(T) : 0;
}

// Number of passes for n values.
inline int multipass_passes(std::size_t n, std::size_t per_block) {
  int passes = 1;
  for (std::size_t len = ceil_div(n, per_block); len > 1; len = ceil_div(len, per_block)) ++passes;
  return passes;
}

// Runs `pass(src, dst, len, blocks, stream)` until one value is left in *out. `per_block` is how
// many values one block folds into one partial; `workspace` holds multipass_workspace_bytes.
template <class T, class Pass>
void run_multipass(const T* in, std::size_t n, T* out, void* workspace, std::size_t per_block, Pass&& pass,
                   cudaStream_t stream) {
  const std::size_t first = ceil_div(n, per_block);
  T* bufs[2] = {static_cast<T*>(workspace), static_cast<T*>(workspace) + first};
  const T* src = in;
  std::size_t len = n;
  for (int which = 0;; which ^= 1) {
    const unsigned blocks = grid_blocks(ceil_div(len, per_block));
    T* dst = blocks == 1 ? out : bufs[which];
    pass(src, dst, len, blocks, stream);
    KL_CHECK_LAUNCH();
    if (blocks == 1) return;
    src = dst;
    len = blocks;
  }
}

// A reduce variant made of one documents' kernel, `Kernel(in, partials, len)` run with kThreads
// threads, each block folding kPerBlock values; every pass is a tree of log2(kPerBlock) levels
// (kPerBlock = 2·kThreads counts the add during the load as one more level).
template <class T, unsigned kThreads, std::size_t kPerBlock, void (*Kernel)(const T*, T*, std::size_t)>
ReduceVariant<T> multipass_variant(VariantInfo info) {
  return {
      .info = info,
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        run_multipass(a.in, a.n, a.out, a.workspace, kPerBlock,
                      [](const T* src, T* dst, std::size_t len, unsigned blocks, cudaStream_t st) {
                        Kernel<<<blocks, kThreads, 0, st>>>(src, dst, len);
                      },
                      s);
      },
      .workspace_bytes = [](std::size_t n) { return multipass_workspace_bytes<T>(n, kPerBlock); },
      .rounding_depth = [](std::size_t n) { return multipass_passes(n, kPerBlock) * log2_exact(kPerBlock); },
  };
}

// ---------------------------------------------------------------------------------------------
// two_pass

template <class T>
std::size_t two_pass_workspace_bytes(unsigned grid) {
  return grid > 1 ? grid * sizeof(T) : 0;
}

// `pass(out, len_grid_blocks...)`: launches the kernel over the input with `grid` blocks into
// `first_out` (the workspace when grid > 1), then, if grid > 1, `finish(partials, grid)` with one
// block into *out.
template <class T, class First, class Finish>
void run_two_pass(unsigned grid, T* out, void* workspace, First&& first, Finish&& finish) {
  if (grid == 1) {
    first(out);
    KL_CHECK_LAUNCH();
    return;
  }
  T* partials = static_cast<T*>(workspace);
  first(partials);
  KL_CHECK_LAUNCH();
  finish(static_cast<const T*>(partials), out);
  KL_CHECK_LAUNCH();
}

// Rounding depth of a two-pass run over n values: the first pass with `grid` blocks,
// `first_depth(n, grid)`, then (when grid > 1) the one-block pass over the partials,
// `finish_depth(grid, 1)`: another kernel's where the first pass folds other terms (dot3's
// products, then reduce7 over the partials).
template <class FirstDepth, class FinishDepth>
double two_pass_depth(std::size_t n, unsigned grid, FirstDepth&& first_depth, FinishDepth&& finish_depth) {
  double depth = first_depth(n, grid);
  if (grid > 1) depth += finish_depth(grid, 1);
  return depth;
}

// The same kernel for both passes, each described by `pass_depth(len, blocks)`.
template <class PassDepth>
double two_pass_depth(std::size_t n, unsigned grid, PassDepth&& pass_depth) {
  return two_pass_depth(n, grid, pass_depth, pass_depth);
}

}  // namespace kl::reduce_launch
