// Shared pieces of the matrix × vector ladders (gemv: y = A·x, gevm: y = x·A; document 003 and
// the steps beyond it), said once:
//
//   stage_chunk      document 003's copy of one block-sized chunk of the vector into shared
//                    memory, with the tail guard (any length)
//   item_t / load_item / fma_item / fma_lanes
//                    the 16-byte path and its element fallback: an "item" is one 16-byte vector
//                    (float4, double2) when every row is 16-byte aligned, one element otherwise
//   row_segment_dot  one lane's share of a row walked by a group of lanes (gemv4, gemv7)
//   group_sum        the shuffle tree over the lanes of a group (one row's lanes)
//   pow2_at_least    group widths fitted to a dimension
//   sum_partials     the second pass of the split steps: y[i] = Σ_s partial[s][i] in a fixed
//                    order (deterministic, no float atomics), with its rounding depth
//   run_split        a split step's run (its kernel into y, or into partials then the second
//                    pass) and its workspace
//
// A is row-major M × N (row r starts at r·N); offsets are 64-bit (r·N passes 2^31 for large
// matrices), indices within a row or column stay int (every dimension is at most 2^30).
#pragma once

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/args/matvec_args.hpp"
#include "handwritten/gemv/matvec_plan.hpp"

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace kl::matvec {

// Document 003's threads per block (its THREAD_PER_BLOCK, which is also the chunk length of the
// vector staged through shared memory). 128 rather than 256 or 1024 because the thread-per-row
// and thread-per-column steps have only M (or N) threads in all: 2500 rows are 20 blocks of 128,
// and bigger blocks would leave even more of the 132 SMs idle.
constexpr int kDocThreads = 128;

// kThreads, the threads per block of the steps beyond the document: matvec_plan.hpp.
constexpr int kWarps = kThreads / 32;
// The second __launch_bounds__ argument of those steps' main kernels. Any explicit minimum
// changes how ptxas (CUDA 13.0) schedules their loops: without one it sinks the U loads of a
// round towards their FMAs to save registers (2 of 4 items left in flight, checked in SASS);
// with one it keeps them batched as written, at about 48 registers for U = 4 (5 blocks of 256
// per SM) and 80 for U = 8 (3 blocks). 2 caps registers at 128, which neither reaches.
constexpr int kMinBlocksPerSm = 2;

// ---------------------------------------------------------------------------------------------
// Document 003's staging: thread t of the block copies v[base + t] into s[t] when it exists
// (the document's guard `p < M`). The block is the chunk: one element per thread. The callers
// bound the loop that reads s by the same length, the part the document forgot (its inner loop
// always ran to THREAD_PER_BLOCK, past the end of the vector and of the row).
template <class T>
__device__ __forceinline__ void stage_chunk(T* s, const T* __restrict__ v, int base, int len) {
  const int p = base + static_cast<int>(threadIdx.x);
  if (p < len) s[threadIdx.x] = v[p];
}

// ---------------------------------------------------------------------------------------------
// Items: the 16-byte path and the element path of the steps beyond the document.
template <class T, bool kVector>
using item_t = std::conditional_t<kVector, vec16_t<T>, T>;
template <class T, bool kVector>
inline constexpr int item_width = kVector ? kVec<T> : 1;

// Whether every row of A (and x, for gemv) may be read as 16-byte items: rows start on 16-byte
// boundaries only when N is a multiple of the vector width and A itself is aligned.
template <class T>
bool vector_rows_ok(const MatVecArgs<T>& a, bool need_x) {
  return a.N % kVec<T> == 0 && aligned16(a.A) && (!need_x || aligned16(a.x));
}

// Items per row: the launch plans are made from the shape alone (workspace_bytes and
// rounding_depth see no pointers), once for each path the shape allows.
template <class T>
int row_items(int N, bool vector) {
  return vector ? N / kVec<T> : N;
}

// The worst of f(vector) over the paths a shape allows: the element path always, the 16-byte
// path when N is a multiple of the vector width. The variants' hooks (workspace, rounding depth)
// see only the shape, so they declare the worst; the pointers pick the path at launch.
template <class T, class F>
auto worst_path(MatrixShape s, F f) {
  auto v = f(false);
  if (s.N % kVec<T> == 0) {
    const auto w = f(true);
    if (w > v) v = w;
  }
  return v;
}

// Items [begin, end) of segment `s` (of `seg` items each) of a row of `items` items; segments
// start inside the row, so begin < items, and end is computed in 64 bits (begin + seg may pass
// 2^31 when a row has nearly 2^30 items).
__device__ __forceinline__ int2 segment(int items, int seg, int s) {
  const int begin = s * seg;
  const long long end = static_cast<long long>(begin) + seg;
  return make_int2(begin, static_cast<int>(end < items ? end : items));
}

// A read once (the matrix): __ldcs marks it evict-first ("streaming"), so it does not push the
// vector, which every row reads again, out of L1; otherwise the read-only path (__ldg).
template <bool kStream, class V>
__device__ __forceinline__ V load_item(const V* p) {
  if constexpr (kStream) return __ldcs(p);
  else return __ldg(p);
}

// acc + Σ_e a[e]·x[e] over the lanes of an item, one FMA each, in lane order: one chain.
template <class T>
__device__ __forceinline__ T fma_item(T acc, T a, T x) {
  return fma(a, x, acc);
}
template <class T, class V, class = std::enable_if_t<!std::is_same_v<T, V>>>
__device__ __forceinline__ T fma_item(T acc, const V& a, const V& x) {
  const T* ea = reinterpret_cast<const T*>(&a);
  const T* ex = reinterpret_cast<const T*>(&x);
#pragma unroll
  for (int e = 0; e < static_cast<int>(sizeof(V) / sizeof(T)); ++e) acc = fma(ea[e], ex[e], acc);
  return acc;
}

// acc[e] += s·a[e] for the lanes of an item: one chain per column.
template <class T, int W>
__device__ __forceinline__ void fma_lanes(T (&acc)[W], T s, const T& a) {
  static_assert(W == 1);
  acc[0] = fma(s, a, acc[0]);
}
template <class T, int W, class V, class = std::enable_if_t<!std::is_same_v<T, V>>>
__device__ __forceinline__ void fma_lanes(T (&acc)[W], T s, const V& a) {
  static_assert(sizeof(V) == W * sizeof(T));
  const T* ea = reinterpret_cast<const T*>(&a);
#pragma unroll
  for (int e = 0; e < W; ++e) acc[e] = fma(s, ea[e], acc[e]);
}

// ---------------------------------------------------------------------------------------------
// One lane's share of a row segment: a group of G lanes walks items [begin, end) of row `a`
// (x's items at the same indices), lane `lane` taking begin + lane, + G, ... in one FMA chain
// (at most ceil((end - begin) / G) items of W elements). Whole rounds issue U items' loads
// before their FMAs; `unroll 1` keeps a round at U: left to itself the compiler unrolls the
// loop again and ptxas then spills or sinks loads towards their FMAs. The last, partial round
// is one batch too (one wait, not one per item), the missing items zeros: fma(0, 0, acc) is
// acc exactly, so they add no rounding.
template <int G, int U, bool kStream, class T, class V>
__device__ __forceinline__ T row_segment_dot(const V* __restrict__ a, const V* __restrict__ xv, int begin, int end,
                                             int lane) {
  T acc = T(0);
  int j = begin + lane;
#pragma unroll 1
  for (; j + (U - 1) * G < end; j += U * G) {
    V va[U], vx[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      va[u] = load_item<kStream>(a + j + u * G);
      vx[u] = __ldg(xv + j + u * G);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc = fma_item(acc, va[u], vx[u]);
  }
  if (j < end) {
    V va[U], vx[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool in = j + u * G < end;
      va[u] = in ? load_item<kStream>(a + j + u * G) : V{};
      vx[u] = in ? __ldg(xv + j + u * G) : V{};
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc = fma_item(acc, va[u], vx[u]);
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------
// Σ over the G lanes of an aligned group (lanes g·G .. g·G + G - 1), every lane of the warp
// calling it. A butterfly: lane l and lane l ^ off add the same two values, so every lane of
// the group ends with the same bits. log2(G) levels of rounding.
template <int G, class T>
__device__ __forceinline__ T group_sum(T v) {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0);
#pragma unroll
  for (int off = G / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

constexpr int log2_pow2(int g) {
  int l = 0;
  while ((1 << l) < g) ++l;
  return l;
}

// pow2_at_least (the smallest power of two >= n, capped): matvec_plan.hpp, host-checked.

// ---------------------------------------------------------------------------------------------
// The second pass of the split steps: partial holds S rows of `len` values (partial[s·len + i]),
// and y[i] is their sum in a fixed order, so the same inputs always give the same bits: no
// atomics, no dependence on which block finished first.
//
// Each output is summed by L lanes (an aligned group, L a power of two): lane l adds
// s = l, l + L, ... in order, in batches of 8 loads issued before their adds, then the group's
// shuffle tree. L is the smallest power of two that leaves each lane at most one batch (at most
// 32), so the pass waits for L2 about once whatever S is, and consecutive groups read
// consecutive outputs of a partial row (coalesced across the warp for small L).
constexpr int kPartialBatch = 8;

inline int partial_lanes(int S) { return pow2_at_least(ceil_div(S, kPartialBatch), 32); }

// Past S the loads are zeros; acc + 0 is acc exactly, so the padding adds no rounding.
template <class T, int L>
__global__ void __launch_bounds__(kThreads)
    sum_partials(const T* __restrict__ partial, int S, int len, T* __restrict__ y) {
  const int i = blockIdx.x * (kThreads / L) + static_cast<int>(threadIdx.x / L);
  const int lane = static_cast<int>(threadIdx.x % L);
  T acc = T(0);
  if (i < len) {
#pragma unroll 1
    for (int s = lane; s < S; s += kPartialBatch * L) {
      T p[kPartialBatch];
#pragma unroll
      for (int u = 0; u < kPartialBatch; ++u) {
        const int t = s + u * L;
        p[u] = t < S ? partial[static_cast<std::size_t>(t) * len + i] : T(0);
      }
#pragma unroll
      for (int u = 0; u < kPartialBatch; ++u) acc += p[u];
    }
  }
  acc = group_sum<L>(acc);  // every lane of the warp takes part
  if (i < len && lane == 0) y[i] = acc;
}

// Rounding depth of the second pass over S partials (0 when there is none): a lane's chain of
// ceil(S / L) adds, then the group's log2(L) levels.
inline double sum_partials_depth(int S) {
  if (S <= 1) return 0;
  const int L = partial_lanes(S);
  return static_cast<double>(ceil_div(S, L)) + log2_pow2(L);
}

template <class T, int L>
void launch_sum_partials_l(const T* partial, int S, int len, T* y, cudaStream_t stream) {
  sum_partials<T, L><<<grid_blocks(ceil_div(len, kThreads / L)), kThreads, 0, stream>>>(partial, S, len, y);
}

template <class T>
void launch_sum_partials(const T* partial, int S, int len, T* y, cudaStream_t stream) {
  with_pow2_width(partial_lanes(S), [&](auto L) { launch_sum_partials_l<T, L>(partial, S, len, y, stream); });
  KL_CHECK_LAUNCH();
}

// Runs a step split S ways over the `len` outputs of y: `first(out)` enqueues its kernel, writing
// straight into y (S = 1) or the S partial rows of `len` values into the workspace, which the
// second pass then sums per output in a fixed order.
template <class T, class First>
void run_split(const MatVecArgs<T>& a, int S, int len, cudaStream_t s, First&& first) {
  T* out = S > 1 ? static_cast<T*>(a.workspace) : a.y;
  first(out);
  if (S > 1) launch_sum_partials(static_cast<const T*>(out), S, len, a.y, s);
}

// The workspace of run_split: S partial rows of `len` values, none without a split.
template <class T>
std::size_t split_workspace(int S, int len) {
  return S > 1 ? static_cast<std::size_t>(S) * len * sizeof(T) : 0;
}

}  // namespace kl::matvec
