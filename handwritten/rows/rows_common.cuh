// Shared pieces of the rows ladder (document 000's lab, variants 2-6): the operations as functors,
// said once for every memory/layout strategy, and what several strategies share.
//
//   Sum, Mean, SumSq, Max, Min   the fold interface of handwritten/reduce/reduce_common.cuh
//                                (identity, term, combine) plus kMean: a mean is a sum divided by
//                                the count at the end (finish)
//   with_op                      calls a launcher with the functor of a run-time RowOp: each kernel
//                                file is one strategy, templated on the operation
//   combine_parts                the deterministic second pass of the split strategies: a warp per
//                                output folds that output's partials in index order
//   layout_aligned               whether every row may be read as 16-byte vectors
//   serial_chain_depth           the depth of the documents' kernels: one chain over a row (column)
//   no_error_bound               the `unsupported` hook of the documents' serial kernels, whose
//                                single chain over a row (column) of 2^23 floats bounds nothing
//
// Rounding depth: what each variant declares counts the combines of a sum; the family adds the
// rounding of each square (sum of squares) and the two of a mean (the count converted to T and the
// division), compare/families/family_rows.hpp. Max and min round nothing: they are checked for equality.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"
#include "common/args/rows_args.hpp"

#include <cuda/std/limits>

#include <stdexcept>

namespace kl::rows_detail {

using namespace reduce_detail;

template <class T>
struct Sum : Plus<T> {
  static constexpr bool kMean = false;
};

template <class T>
struct Mean : Plus<T> {
  static constexpr bool kMean = true;
};

template <class T>
struct SumSq : Plus<T> {
  static constexpr bool kMean = false;
  __device__ static T term(T x) { return x * x; }
};

template <class T>
struct Max {
  static constexpr bool kMean = false;
  __device__ static T identity() { return -::cuda::std::numeric_limits<T>::infinity(); }
  __device__ static T term(T x) { return x; }
  __device__ static T combine(T a, T b) {
    if constexpr (sizeof(T) == 4) return fmaxf(a, b);
    else return fmax(a, b);
  }
};

template <class T>
struct Min {
  static constexpr bool kMean = false;
  __device__ static T identity() { return ::cuda::std::numeric_limits<T>::infinity(); }
  __device__ static T term(T x) { return x; }
  __device__ static T combine(T a, T b) {
    if constexpr (sizeof(T) == 4) return fminf(a, b);
    else return fmin(a, b);
  }
};

// The output from the folded value of `count` elements.
template <class Op, class T>
__device__ __forceinline__ T finish(T folded, int count) {
  if constexpr (Op::kMean) return folded / static_cast<T>(count);
  else return folded;
}

// f(Op{}) for the functor of op; col_mean is a Mean over columns (the caller picks the kernel).
template <class T, class F>
void with_op(RowOp op, F&& f) {
  switch (op) {
    case RowOp::row_sum: return f(Sum<T>{});
    case RowOp::row_mean: return f(Mean<T>{});
    case RowOp::col_mean: return f(Mean<T>{});
    case RowOp::row_max: return f(Max<T>{});
    case RowOp::row_min: return f(Min<T>{});
    case RowOp::row_sumsq: return f(SumSq<T>{});
  }
  throw std::logic_error("unknown RowOp");
}

// The `unsupported` hooks of kernels that do one direction only.
inline const char* row_ops_only(RowsShape s) {
  return is_column_op(s.op) ? "a per-row kernel: col_mean is rows_cols_coalesced's and rows_cols_vec16's (and rows_global's, rows_shared's)"
                            : nullptr;
}
inline const char* column_ops_only(RowsShape s) {
  return is_column_op(s.op) ? nullptr : "a per-column kernel (col_mean only): the row operations are the other steps'";
}

// The depth of the documents' kernels (thread per row or column, one-warp tile fold): one serial
// chain over each output's whole row (column); the first combine, onto the identity, is exact.
inline double serial_chain_depth(RowsShape s) { return static_cast<double>(is_column_op(s.op) ? s.M : s.N); }

// The `unsupported` hook of a kernel whose declared depth, Depth(shape), is so long for op that
// no error bound holds (reduce_launch::rows_unbounded_depth: gamma >= 1, which the runner would fail
// as meaningless): the documents' thread per row (column) and one-warp tile fold run one serial
// chain over the whole row, 2^24 roundings at 1 × 2^24. Max and min are unaffected (exact).
template <class T, double (*Depth)(RowsShape)>
const char* no_error_bound(RowsShape s) {
  if (!reduce_launch::rows_unbounded_depth<T>(s.op, Depth(s))) return nullptr;
  return "one serial chain over each row (column) this long has no error bound in this type: gamma(depth) >= 1";
}

// Every row starts on a 16-byte boundary: the base is aligned and the pitch is a multiple of 16
// bytes (the pitched layout; the packed one when N·sizeof(T) happens to be).
template <class T>
bool layout_aligned(const T* A, std::size_t pitch) {
  return aligned16(A) && (pitch * sizeof(T)) % 16 == 0;
}

// ---------------------------------------------------------------------------------------------
// The second pass of a split: output o (of `outputs`) has `parts` partials at partials[o·parts,
// (o + 1)·parts) (contiguous, so a warp reads them coalesced); a warp per output folds them, lane
// l taking parts l, l + 32, ..., then a shuffle tree; `count` elements went into each output
// (the mean's divisor). Deterministic: the same order whatever the timing.
constexpr unsigned kCombineThreads = 256;

template <class T, class Op>
__global__ void __launch_bounds__(kCombineThreads)
    combine_parts(const T* __restrict__ partials, std::size_t outputs, unsigned parts, int count, T* __restrict__ out) {
  const std::size_t o = static_cast<std::size_t>(blockIdx.x) * (kCombineThreads / 32) + threadIdx.x / 32;
  if (o >= outputs) return;  // whole warps
  const unsigned lane = threadIdx.x % 32;
  const T* p = partials + o * parts;
  T v = Op::identity();
  for (unsigned k = lane; k < parts; k += 32) v = Op::combine(v, p[k]);
  v = warp_fold_shuffle<Op>(v);
  if (lane == 0) out[o] = finish<Op>(v, count);
}

template <class T, class Op>
void launch_combine_parts(const T* partials, std::size_t outputs, unsigned parts, int count, T* out, cudaStream_t s) {
  combine_parts<T, Op><<<grid_blocks(ceil_div(outputs, std::size_t{kCombineThreads / 32})), kCombineThreads, 0, s>>>(
      partials, outputs, parts, count, out);
  KL_CHECK_LAUNCH();
}

// Depth of combine_parts over `parts` partials: a serial chain of ceil(parts / 32) per lane, then
// 5 shuffle levels.
inline double combine_parts_depth(std::size_t parts) { return static_cast<double>(ceil_div(parts, std::size_t{32})) + 5; }

// The blocks a split aims for: two waves of 256-thread blocks at full occupancy.
inline std::size_t split_target_blocks() { return std::size_t{sm_count()} * 8 * 2; }

}  // namespace kl::rows_detail
