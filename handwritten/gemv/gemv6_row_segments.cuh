// gemv6_row_segments — beyond document 003. y = A·x with long rows split over several blocks
// when there are too few rows to fill the GPU, the segments' sums added in a second pass.
//
// Lesson: parallelism has to come from somewhere. gemv4/5 give a row to one group of lanes, so
// a short, wide matrix (1 × 100003, or 64 rows of 2^20) runs a handful of warps, each walking a
// long row alone: a few SMs busy, the rest idle, each warp waiting on DRAM once per round of U
// loads. Here, when the rows would give fewer than 16 warps per SM and a row takes at least 8
// rounds, each row is cut into S segments of whole rounds (blockIdx.y = segment), S chosen to
// reach that many warps while leaving every segment >= 2 rounds (1 × 100003 floats: 391
// segments of 256 elements). Each (row, segment) writes its partial into the workspace,
// partial[s][row]; a second kernel adds them per row in a fixed order (matvec::sum_partials), so
// the result is deterministic: no float atomics, whose order, and therefore whose rounding,
// would change from run to run (the GPU suite runs every variant twice and compares the bits).
// Where the rows alone keep the memory busy (16384², 2500 × 2000, 4097 × 1023) S = 1 and this
// is gemv5: one kernel, no workspace.
// The profiler should show, at 1 × 100003, the first kernel spread over all SMs.
#pragma once

#include "handwritten/gemv/gemv5_rows_per_warp.cuh"

#include <algorithm>

namespace kl::gemv6 {

// Warps per SM worth having: a quarter of an SM's 64. With U = 4 16-byte loads in flight per
// lane that is 32 KB per SM, about DRAM's bandwidth × latency on an H100 (its nominal rate ×
// about a microsecond, over 132 SMs); more rows than that and the rows alone keep the memory busy.
constexpr int kTargetWarpsPerSm = 16;
// Rounds (of U loads per lane) a row must take before splitting it pays for the second pass.
constexpr int kMinRoundsToSplit = 8;
constexpr int kMinRoundsPerSegment = 2;

// Plan p with its rows cut into segments where the rows are too few (p.G lanes per row).
template <int U>
gemv4::Plan split_rows(gemv4::Plan p, int M) {
  const long long warps = ceil_div(static_cast<long long>(M) * p.G, 32LL);
  const long long target = static_cast<long long>(sm_count()) * kTargetWarpsPerSm;
  const long long round = static_cast<long long>(p.G) * U;  // items per round of a group
  const long long rounds = ceil_div(static_cast<long long>(p.items), round);
  if (warps >= target || rounds < kMinRoundsToSplit) return p;
  const long long S = std::min(ceil_div(target, warps), rounds / kMinRoundsPerSegment);
  const long long seg = ceil_div(rounds, S) * round;
  p.seg = static_cast<int>(seg);
  p.S = static_cast<int>(ceil_div(static_cast<long long>(p.items), seg));
  return p;
}

template <class T>
gemv4::Plan plan(MatrixShape s, bool vector) {
  return split_rows<gemv4::kUnroll>(gemv5::plan<T>(s, vector), s.M);
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gemv6_row_segments", "beyond",
                   "few long rows split over blocks; partials summed in a fixed-order 2nd pass (deterministic)"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gemv4::launch<T, gemv4::kUnroll, false>(a, plan<T>({a.M, a.N}, matvec::vector_rows_ok(a, true)), s);
          },
          .workspace_bytes = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return matvec::split_workspace<T>(plan<T>(s, v).S, s.M); });
          },
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return gemv4::depth<T>(plan<T>(s, v)); });
          }};
}

}  // namespace kl::gemv6
