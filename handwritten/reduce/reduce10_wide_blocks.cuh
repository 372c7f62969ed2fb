// reduce10_wide_blocks — beyond the documents.
//
// Lesson: with the per-thread work and the launches settled (reduce9_pdl), what is left is how the
// resident threads are grouped. reduce7 to reduce9 fill an SM with 8 blocks of 256 threads; this
// step fills it with 2 blocks of 1024 (the same 2048 threads, the same grid-stride order of the
// vectors over the grid's threads), and gives each thread 4 16-byte loads a round instead of 2:
//   - the accumulators are one vector's width (4 floats), not one per load: vector u of a round
//     is added into the same 4 (thread_fold_vectorized's kGroups = 1), so the 4 loads and their
//     accumulators fit the 32 registers that 2048 resident threads leave each thread. Each
//     accumulator takes 4 terms a round instead of 1, a longer chain (rounding_depth says so);
//   - an SM's threads now own 2 runs of 16 KiB of every round's stretch of the array rather than
//     8 runs of 4 KiB, and the first pass leaves a quarter of the partials (2 per SM).
// The stand-alone sweep that picked this shape (threads per block 128 to 1024, 2 to 8 loads a
// round, 1 to 4 accumulator groups, grid-stride or CUB's even share, four load forms), each
// configuration timed interleaved with cub::DeviceReduce::Sum with L2 emptied before each sample,
// found the block size to be what mattered: at the same threads per SM and loads in flight, 512
// threads a block beat 256 and 1024 beat 512, while the load forms changed little and the even
// share made it slower (docs/rows-and-dot.md has the figures and their files).
//
// The finishing block is reduce9's (PDL on compute capability 9.0 and newer, plain stream order
// before it) over the 2 × SMs partials. Other GPUs: where an SM holds fewer than 2048 threads
// (7.5: 1024; 8.6, 8.9: 1536) KL_MIN_BLOCKS asks for what fits and the grid of 2 blocks per SM runs
// in more than one wave, which is correct, not tuned.
#pragma once

#include "handwritten/reduce/reduce9_pdl.cuh"

namespace kl::reduce10 {

constexpr unsigned kThreads = 1024;
constexpr unsigned kUnroll = 4;   // 16-byte loads per thread per round
constexpr unsigned kGroups = 1;   // accumulator groups: one vector's width
constexpr unsigned kBlocksPerSm = 2;

template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    first_pass(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  using namespace reduce_detail;
  pdl::allow_dependent_launch();
  const T v = grid_block_sum<kThreads, kUnroll, kGroups>(Elements<T>{in}, n);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <class T>
unsigned grid_for(std::size_t n) {
  return reduce_detail::vectorized_grid<T, kThreads, kUnroll, kBlocksPerSm>(n);
}

template <class T>
ReduceVariant<T> variant() {
  using namespace reduce_launch;
  return {
      .info = {"reduce10_wide_blocks", "beyond the documents",
               "reduce9_pdl with 2 blocks of 1024 threads per SM, 4 loads a round into one vector of accumulators"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        const unsigned grid = grid_for<T>(a.n);
        run_two_pass<T>(
            grid, a.out, a.workspace, [&](T* dst) { first_pass<T><<<grid, kThreads, 0, s>>>(a.in, dst, a.n); },
            [&](const T* partials, T* dst) { reduce9::launch_finish<T>(partials, dst, grid, s); });
      },
      .workspace_bytes = [](std::size_t n) { return two_pass_workspace_bytes<T>(grid_for<T>(n)); },
      // The first pass (4 terms a round per accumulator), then reduce9's finishing block.
      .rounding_depth =
          [](std::size_t n) {
            return two_pass_depth(n, grid_for<T>(n),
                                  reduce_detail::vectorized_pass_depth<T, kThreads, kUnroll, kGroups>,
                                  reduce9::pass_depth<T>);
          },
      .prepare = [] { reduce9::programmatic_here<T>(); },
  };
}

}  // namespace kl::reduce10
