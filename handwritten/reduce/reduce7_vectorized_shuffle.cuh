// reduce7_vectorized_shuffle — beyond the documents.
//
// Lesson: reduce1..6 tune the tree, but at large n the tree is not where the time goes: each
// thread loads one or two values, so the GPU runs millions of short blocks, each paying its
// scheduling, its barriers and a partial written and re-read by the next pass. This step turns the
// work around:
//   - a fixed grid, SMs × 8 blocks of 256 threads (a full SM's worth of threads on
//     Hopper), each thread striding over the whole array (grid-stride loop), so nearly all the
//     time is loads and adds, and one pass leaves only about a thousand partials;
//   - 16-byte loads (float4 / int4 / double2), 2 per thread issued before any add, into
//     independent accumulators (8 for 4-byte types, 4 for double): 64 KiB in flight per SM,
//     enough requests outstanding to cover DRAM latency at full bandwidth (Little's law),
//     and no add waits for the one before it;
//   - __shfl_down_sync trees inside each warp and over the warp sums: registers instead of
//     shared memory and barriers for all but one step.
// The profiler should show DRAM throughput near the copy bandwidth and LDG.E.128 loads.
// Measured (H100, 2^28 floats, the H100 default run): well ahead of reduce6 and close to
// CUB.
//
// Second pass: the same kernel, one block, over the partials in the workspace. Any alignment
// of `in` and any n work (see thread_fold_vectorized in reduce_common.cuh).
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce7 {

constexpr unsigned kThreads = 256;
// Measured on an H100 at 2^24 and 2^28 elements: 2 vectors per thread per round with all
// 2048 threads of an SM resident beat 4 or 8 vectors with fewer resident threads; the
// launch bound caps registers at 32 so that 8 blocks fit.
constexpr unsigned kUnroll = 2;
constexpr unsigned kBlocksPerSm = 8;

template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    reduce7(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  using namespace reduce_detail;
  const T v = grid_block_sum<kThreads, kUnroll>(Elements<T>{in}, n);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <class T>
unsigned grid_for(std::size_t n) {
  return reduce_detail::vectorized_grid<T, kThreads, kUnroll, kBlocksPerSm>(n);
}

// Depth of one pass over len values with `grid` blocks.
template <class T>
double pass_depth(std::size_t len, std::size_t grid) {
  return reduce_detail::vectorized_pass_depth<T, kThreads, kUnroll>(len, grid);
}

template <class T>
ReduceVariant<T> variant() {
  using namespace reduce_launch;
  return {
      .info = {"reduce7_vectorized_shuffle", "beyond the documents",
               "grid-stride over SMs x 8 blocks, 16-byte loads into independent accumulators, shuffles"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        const unsigned grid = grid_for<T>(a.n);
        run_two_pass<T>(
            grid, a.out, a.workspace, [&](T* dst) { reduce7<T><<<grid, kThreads, 0, s>>>(a.in, dst, a.n); },
            [&](const T* partials, T* dst) { reduce7<T><<<1, kThreads, 0, s>>>(partials, dst, grid); });
      },
      .workspace_bytes = [](std::size_t n) { return two_pass_workspace_bytes<T>(grid_for<T>(n)); },
      .rounding_depth = [](std::size_t n) { return two_pass_depth(n, grid_for<T>(n), pass_depth<T>); },
  };
}

}  // namespace kl::reduce7
