// dot4_single_pass — beyond the documents (the dot product's reduce8).
//
// Lesson: dot3's second launch is a few microseconds of launch and drain: most of the time at the
// documents' n = 1000..1025, still visible at 2^28. Here the blocks finish the job themselves, as
// in reduce8 (last_block_sums in handwritten/reduce/reduce_common.cuh): each block writes its
// partial and takes a ticket; the block that draws the last ticket sums the partials in index
// order. Against 004's dotKernel_V2 this keeps one atomic per block but takes it on a ticket,
// not on the data: a few hundred atomics per launch instead of n/64, and the result is
// deterministic, since the partials are summed in one fixed order whichever block is last.
//
// Configurations (template parameter kUnroll, the variant name says it): vectors of each array
// per thread per round. _u1 keeps 32 bytes in flight per thread with all 2048 threads of an SM
// resident (dot3's); _u2 doubles the bytes in flight per thread and the accumulators, at the cost
// of registers: float needs 48 per thread without spilling (40, at 6 blocks per SM, spills), so
// _u2 runs 5 blocks of 256 per SM (1280 threads × 64 bytes: 80 KiB in flight per SM against
// _u1's 2048 × 32 bytes = 64 KiB, with fewer warps to hide the rest of the latency).
// Which wins at 2^28 is measured, not assumed.
//
// The ticket counter lives in the workspace (undefined on entry): the launcher zeroes it on the
// stream, as part of the operation.
#pragma once

#include "handwritten/dot/dot_common.cuh"

namespace kl::dot4 {

constexpr unsigned kThreads = 256;

template <unsigned kUnroll>
constexpr unsigned blocks_per_sm() {
  return kUnroll == 1 ? 8 : 5;
}

template <class T, unsigned kUnroll>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, blocks_per_sm<kUnroll>()))
    dot4(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out, std::size_t n, T* partials,
         unsigned* tickets) {
  using namespace reduce_detail;
  last_block_sums<kThreads>(grid_block_sum<kThreads, kUnroll>(Products<T>{x, y}, n), partials, tickets, out);
}

template <class T, unsigned kUnroll>
unsigned grid_for(std::size_t n) {
  return reduce_detail::vectorized_grid<T, kThreads, kUnroll, blocks_per_sm<kUnroll>()>(n);
}

template <class T, unsigned kUnroll>
DotVariant<T> variant(const char* name) {
  using namespace reduce_detail;
  return {
      .info = {name, "beyond the documents",
               kUnroll == 1 ? "dot3 in one launch: the last block to finish (atomic ticket) sums the partials"
                            : "dot4 with 2 vectors of x and of y per thread per round (5 blocks per SM)"},
      .launch = [](const DotArgs<T>& a, cudaStream_t s) {
        unsigned* tickets = single_pass_tickets(a.workspace);
        KL_CUDA_CHECK(cudaMemsetAsync(tickets, 0, sizeof(unsigned), s));
        dot4<T, kUnroll><<<grid_for<T, kUnroll>(a.n), kThreads, 0, s>>>(a.x, a.y, a.out, a.n,
                                                                         single_pass_partials<T>(a.workspace), tickets);
        KL_CHECK_LAUNCH();
      },
      .workspace_bytes = [](std::size_t n) { return single_pass_workspace_bytes<T>(grid_for<T, kUnroll>(n)); },
      .rounding_depth = [](std::size_t n) {
        const unsigned grid = grid_for<T, kUnroll>(n);
        return vectorized_pass_depth<T, kThreads, kUnroll>(n, grid) + last_block_depth<kThreads>(grid);
      },
  };
}

}  // namespace kl::dot4
