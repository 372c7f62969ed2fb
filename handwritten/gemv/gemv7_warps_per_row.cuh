// gemv7_warps_per_row — beyond document 003. y = A·x with long rows shared by several warps of
// one block (up to the whole block), their sums added in shared memory: one kernel.
//
// Lesson: the unit of work should be small next to the whole job. With a warp per row
// (gemv4-6), a 16384-float row is 64 KB walked by one warp: at 16384² the GPU holds about 5000
// such warps at once, so the job runs in about 3.1 "waves" of rows that start and end together,
// and in the last, partial wave a few hundred warps cannot keep DRAM busy (too few bytes in
// flight) for the time of a whole row. Here the lanes per row grow with the row's length: G is
// the smallest power of two that leaves each lane about 4 rounds of U loads, at least gemv5's
// fitted group, at most the 256 threads of a block. 16384² floats: a block per row, 4 rounds
// per thread, 16384 short-lived blocks; 4097 × 1023: 2 warps per row; 2500 × 2000 floats:
// still a warp per row. Each warp's shuffle tree, then its rows' warp sums added in shared
// memory in warp order: no second kernel, no workspace. Few rows (1 × 100003) are still split
// into segments over blocks as in gemv6, now of whole-block rounds.
//
// The configurations measured side by side (the best choice depends on the GPU):
//   _u4, _u8   U items in flight per lane: 64 or 128 bytes on the 16-byte path; more covers
//              latency with fewer warps (and halves G for a given row), fewer leaves
//              registers for more resident warps (48 against 80 registers);
//   _cs        A loaded with __ldcs (evict-first): A is read once, x by every row, so x
//              should keep its place in L1 while A streams through.
// The profiler should show DRAM throughput near the copy bandwidth at 16384² for every
// configuration, and no bank conflicts on the warp sums (one word per warp).
#pragma once

#include "handwritten/gemv/gemv6_row_segments.cuh"

namespace kl::gemv7 {

using matvec::kThreads;
using matvec::kWarps;

// Rounds of U loads per lane a row should leave, when it is long enough to share.
constexpr int kRoundsPerLane = 4;

// G / 32 warps share a row; a block holds 256 / G rows. Lane `lane` of a row's G takes items
// lane, lane + G, ... of its segment (matvec::row_segment_dot), then each warp's shuffle tree,
// then thread r < rows per block adds its row's warp sums in order.
template <class T, int G, int U, bool kVector, bool kStream>
__global__ void __launch_bounds__(kThreads, matvec::kMinBlocksPerSm)
    gemv_warps_per_row(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ out, int M, int N, int seg) {
  static_assert(G > 32 && G <= kThreads && G % 32 == 0);
  using V = matvec::item_t<T, kVector>;
  constexpr int kWarpsPerRow = G / 32, kRowsPerBlock = kThreads / G;
  __shared__ T warp_sums[kWarps];
  const int lane = static_cast<int>(threadIdx.x % G);
  const int row = blockIdx.x * kRowsPerBlock + static_cast<int>(threadIdx.x / G);
  T acc = T(0);
  if (row < M) {
    const int2 span = matvec::segment(N / matvec::item_width<T, kVector>, seg, static_cast<int>(blockIdx.y));
    const V* a = reinterpret_cast<const V*>(A + static_cast<std::size_t>(row) * N);
    acc = matvec::row_segment_dot<G, U, kStream, T>(a, reinterpret_cast<const V*>(x), span.x, span.y, lane);
  }
  acc = matvec::group_sum<32>(acc);  // rows are whole warps: every lane of a warp shares its row
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < kRowsPerBlock) {
    const int r = blockIdx.x * kRowsPerBlock + static_cast<int>(threadIdx.x);
    if (r < M) {
      T sum = warp_sums[threadIdx.x * kWarpsPerRow];
#pragma unroll
      for (int w = 1; w < kWarpsPerRow; ++w) sum += warp_sums[threadIdx.x * kWarpsPerRow + w];
      out[static_cast<std::size_t>(blockIdx.y) * M + r] = sum;
    }
  }
}

template <class T, int G, int U, bool kStream>
void launch_warps(const MatVecArgs<T>& a, const gemv4::Plan& p, T* out, cudaStream_t s) {
  const dim3 grid(grid_blocks(ceil_div(a.M, kThreads / G)), static_cast<unsigned>(p.S));
  if (p.vector) gemv_warps_per_row<T, G, U, true, kStream><<<grid, kThreads, 0, s>>>(a.A, a.x, out, a.M, a.N, p.seg);
  else gemv_warps_per_row<T, G, U, false, kStream><<<grid, kThreads, 0, s>>>(a.A, a.x, out, a.M, a.N, p.seg);
  KL_CHECK_LAUNCH();
}

template <class T, int U, bool kStream>
void launch_plan(const MatVecArgs<T>& a, const gemv4::Plan& p, cudaStream_t s) {
  matvec::run_split(a, p.S, a.M, s, [&](T* out) {
    switch (p.G) {
      case 64: launch_warps<T, 64, U, kStream>(a, p, out, s); break;
      case 128: launch_warps<T, 128, U, kStream>(a, p, out, s); break;
      case 256: launch_warps<T, 256, U, kStream>(a, p, out, s); break;
      default: gemv4::launch_rows<T, U, kStream>(a, p, out, s); break;  // G <= 32: gemv4's kernel
    }
  });
}

// The lanes per row: gemv5's fitted group (one item per lane for short rows), or for long rows
// enough lanes to leave each about kRoundsPerLane rounds, at most a block; then gemv6's split
// where the rows are too few.
template <class T, int U>
gemv4::Plan plan(MatrixShape s, bool vector) {
  gemv4::Plan p = gemv5::plan<T>(s, vector);
  const int shared = matvec::pow2_at_least(ceil_div(static_cast<long long>(p.items), static_cast<long long>(U) * kRoundsPerLane), kThreads);
  if (shared > p.G) p.G = shared;
  return gemv6::split_rows<U>(p, s.M);
}

// Rounding depth: each lane's chain, the warp's shuffle tree, the G / 32 warp sums added in
// order, the second pass (gemv4's depth where G <= 32).
template <class T>
double plan_depth(const gemv4::Plan& p) {
  if (p.G <= 32) return gemv4::depth<T>(p);
  const int W = p.vector ? kVec<T> : 1;
  return static_cast<double>(ceil_div(p.seg, p.G)) * W + matvec::log2_pow2(32) + p.G / 32 +
         matvec::sum_partials_depth(p.S);
}

template <class T, int U, bool kStream>
MatVecVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond", "lanes per row grow with its length, up to a block; warp sums added in shared memory"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            launch_plan<T, U, kStream>(a, plan<T, U>({a.M, a.N}, matvec::vector_rows_ok(a, true)), s);
          },
          .workspace_bytes = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return matvec::split_workspace<T>(plan<T, U>(s, v).S, s.M); });
          },
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return plan_depth<T>(plan<T, U>(s, v)); });
          }};
}

}  // namespace kl::gemv7
