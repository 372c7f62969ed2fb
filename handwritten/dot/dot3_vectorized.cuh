// dot3_vectorized — beyond the documents (the dot product's reduce7).
//
// Lesson: a dot product is a sum whose terms come from two arrays, so it is as memory-bound as
// reduce, with twice the bytes per term; what made reduce7 fast applies unchanged:
//   - a fixed grid of SMs × 8 blocks of 256 threads (a full SM's worth of threads on Hopper),
//     each thread striding over the whole arrays, so one pass leaves only about a thousand
//     partials instead of one per 64 or 256 products;
//   - 16-byte loads of both arrays (float4 / int4 / double2), one vector of each per round: 32
//     bytes in flight per thread, the 64 KiB per SM that reduce7 found enough to cover DRAM
//     latency; the products go into independent accumulators (4 for 4-byte types, 2 for double),
//     so no multiply-add waits for the previous one;
//   - shuffle trees inside each warp and over the warp sums.
// x and y need only be aligned to T: when they are the same distance past a 16-byte boundary the
// few elements before it are peeled off, otherwise every thread takes one element of each at a
// time (Products and thread_fold_vectorized in handwritten/reduce/reduce_common.cuh, the reduce
// ladder's fold generalised to two arrays).
// The profiler should show LDG.E.128 loads of both arrays and DRAM throughput near the copy
// bandwidth.
//
// Second pass: reduce7's kernel, one block, over the partials in the workspace (a sum of one
// array).
#pragma once

#include "handwritten/dot/dot_common.cuh"
#include "handwritten/reduce/reduce7_vectorized_shuffle.cuh"

namespace kl::dot3 {

constexpr unsigned kThreads = 256;
constexpr unsigned kUnroll = 1;  // vectors of each array per thread per round
constexpr unsigned kBlocksPerSm = 8;

template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    dot3(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out, std::size_t n) {
  using namespace reduce_detail;
  const T v = grid_block_sum<kThreads, kUnroll>(Products<T>{x, y}, n);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <class T>
unsigned grid_for(std::size_t n) {
  return reduce_detail::vectorized_grid<T, kThreads, kUnroll, kBlocksPerSm>(n);
}

template <class T>
DotVariant<T> variant() {
  using namespace reduce_launch;
  return {
      .info = {"dot3_vectorized", "beyond the documents",
               "grid-stride over SMs x 8 blocks, 16-byte loads of x and y, independent accumulators, shuffles; 2 passes"},
      .launch = [](const DotArgs<T>& a, cudaStream_t s) {
        const unsigned grid = grid_for<T>(a.n);
        run_two_pass<T>(
            grid, a.out, a.workspace, [&](T* dst) { dot3<T><<<grid, kThreads, 0, s>>>(a.x, a.y, dst, a.n); },
            [&](const T* partials, T* dst) { reduce7::reduce7<T><<<1, reduce7::kThreads, 0, s>>>(partials, dst, grid); });
      },
      .workspace_bytes = [](std::size_t n) { return two_pass_workspace_bytes<T>(grid_for<T>(n)); },
      .rounding_depth = [](std::size_t n) {
        return two_pass_depth(n, grid_for<T>(n), reduce_detail::vectorized_pass_depth<T, kThreads, kUnroll>,
                              reduce7::pass_depth<T>);
      },
  };
}

}  // namespace kl::dot3
