// gemv4_warp_per_row — beyond document 003. y = A·x with one warp per row.
//
// Lesson: turn the access around so that a warp's load is contiguous. The 32 lanes of a warp
// share one row: lane l reads items l, l + 32, l + 64, ... where an item is a 16-byte vector
// (4 floats or 2 doubles) when rows are 16-byte aligned, so one warp instruction moves 512
// contiguous bytes of A (4 full 128-byte lines; 32 bytes used per 32-byte sector, against
// gemv1's 4), and a shuffle tree adds the 32 lane sums. U = 4 items per lane are loaded before
// any is multiplied, so a lane keeps 64 bytes of A in flight: with the SMs full of warps that
// is far more than DRAM's bandwidth-latency product, and the kernel should run at the memory's
// speed. M warps instead of M threads: 2500 rows are 2500 warps, 16384 rows 16384. x is read as
// 16-byte items too, from L1/L2: every warp reads all of it, so it stays cached.
// The profiler should show 32 bytes per sector for A's loads and DRAM throughput near the copy
// bandwidth at 16384².
//
// Rows not 16-byte aligned (N not a multiple of the vector width, or an unaligned A or x) take
// the element path: the same kernel reading one element per item, still contiguous across the
// warp (128 bytes per instruction). Any M, N.
//
// The kernel is written once for the steps beyond the document: a row is taken by an aligned
// group of G lanes (G = 32 here; gemv5 fits G to N), and blockIdx.y selects a segment of the
// row's items (here one segment, the whole row; gemv6 splits long rows over blocks and sums the
// segments' partials in a second pass).
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gemv4 {

using matvec::kThreads;

// How a launch covers A: the path, G lanes per row, S segments of `seg` items per row.
struct Plan {
  bool vector;
  int items;  // per row
  int G;
  int S;
  int seg;
};

inline Plan whole_rows(bool vector, int items, int G) { return {vector, items, G, 1, items}; }

// Lanes l of a group take items begin + l, + G, ... of their row's segment [begin, end); every
// lane keeps one FMA chain (ceil(seg / G) items of W elements), then the group's shuffle tree.
template <class T, int G, int U, bool kVector, bool kStream>
__global__ void __launch_bounds__(kThreads, matvec::kMinBlocksPerSm)
    gemv_group_per_row(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ out, int M, int N, int seg) {
  using V = matvec::item_t<T, kVector>;
  constexpr int kRowsPerBlock = kThreads / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  const int row = blockIdx.x * kRowsPerBlock + static_cast<int>(threadIdx.x / G);
  T acc = T(0);
  if (row < M) {
    const int2 span = matvec::segment(N / matvec::item_width<T, kVector>, seg, static_cast<int>(blockIdx.y));
    const V* a = reinterpret_cast<const V*>(A + static_cast<std::size_t>(row) * N);
    acc = matvec::row_segment_dot<G, U, kStream, T>(a, reinterpret_cast<const V*>(x), span.x, span.y, lane);
  }
  // Every lane reaches the shuffles (lanes of rows past M add zeros).
  acc = matvec::group_sum<G>(acc);
  if (row < M && lane == 0) out[static_cast<std::size_t>(blockIdx.y) * M + row] = acc;
}

template <class T, int G, int U, bool kStream>
void launch_g(const MatVecArgs<T>& a, const Plan& p, T* out, cudaStream_t s) {
  const dim3 grid(grid_blocks(ceil_div(a.M, kThreads / G)), static_cast<unsigned>(p.S));
  if (p.vector) gemv_group_per_row<T, G, U, true, kStream><<<grid, kThreads, 0, s>>>(a.A, a.x, out, a.M, a.N, p.seg);
  else gemv_group_per_row<T, G, U, false, kStream><<<grid, kThreads, 0, s>>>(a.A, a.x, out, a.M, a.N, p.seg);
  KL_CHECK_LAUNCH();
}

// Enqueues the kernel of plan p (G <= 32 lanes per row), writing one value per row and segment
// into `out`.
template <class T, int U, bool kStream>
void launch_rows(const MatVecArgs<T>& a, const Plan& p, T* out, cudaStream_t s) {
  with_pow2_width(p.G, [&](auto G) { launch_g<T, G, U, kStream>(a, p, out, s); });
}

// Runs plan p: the per-row kernel straight into y (S = 1), or the segments' partials into the
// workspace, then the second pass that sums them per row in a fixed order.
template <class T, int U, bool kStream>
void launch(const MatVecArgs<T>& a, const Plan& p, cudaStream_t s) {
  matvec::run_split(a, p.S, a.M, s, [&](T* out) { launch_rows<T, U, kStream>(a, p, out, s); });
}

// Rounding depth of plan p: each lane's chain, the group's shuffle tree, the second pass.
template <class T>
double depth(const Plan& p) {
  const int W = p.vector ? kVec<T> : 1;
  return static_cast<double>(ceil_div(p.seg, p.G)) * W + matvec::log2_pow2(p.G) + matvec::sum_partials_depth(p.S);
}

constexpr int kUnroll = 4;

template <class T>
Plan plan(MatrixShape s, bool vector) {
  return whole_rows(vector, matvec::row_items<T>(s.N, vector), 32);
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gemv4_warp_per_row", "beyond",
                   "a warp per row: coalesced 16-byte loads, 4 in flight per lane, shuffle tree"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            launch<T, kUnroll, false>(a, plan<T>({a.M, a.N}, matvec::vector_rows_ok(a, true)), s);
          },
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return depth<T>(plan<T>(s, v)); });
          }};
}

}  // namespace kl::gemv4
