// reduce8_single_pass — beyond the documents (the "last block" pattern of the CUDA
// programming guide's threadFenceReduction sample).
//
// Lesson: reduce7's second launch costs a few microseconds of launch and drain, which is most
// of the time at small n and still visible at large n. Here the per-thread work is reduce7's,
// but the blocks finish the job themselves: each block writes its partial, makes it visible
// device-wide (__threadfence), and takes a ticket with atomicInc; the block that draws the last
// ticket knows every partial is in place and sums them. No block ever waits for another, so
// this needs no co-residency, and the final sum runs over the partials in index order whichever
// block is last: the result is deterministic, unlike 004's atomicAdd of floating-point partials.
// (The finish, last_block_sums in reduce_common.cuh, is shared with the dot family's single pass.)
//
// The ticket counter lives in the workspace, whose contents are undefined on entry: the
// launcher zeroes it on the stream, as part of the operation. (atomicInc with limit grid - 1
// also wraps it back to 0 at the last ticket, but the launcher does not rely on that.)
#pragma once

#include "handwritten/reduce/reduce7_vectorized_shuffle.cuh"

namespace kl::reduce8 {

// reduce7's per-thread work and grid, so the two differ only in how the partials are combined.
using reduce7::grid_for;
using reduce7::kThreads;
using reduce7::kUnroll;
using reduce7::kBlocksPerSm;

template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    reduce8(const T* __restrict__ in, T* __restrict__ out, std::size_t n, T* partials, unsigned* tickets) {
  using namespace reduce_detail;
  last_block_sums<kThreads>(grid_block_sum<kThreads, kUnroll>(Elements<T>{in}, n), partials, tickets, out);
}

template <class T>
ReduceVariant<T> variant() {
  using namespace reduce_detail;
  return {
      .info = {"reduce8_single_pass", "beyond the documents",
               "reduce7 in one launch: the last block to finish (atomic ticket) sums the partials"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        unsigned* tickets = single_pass_tickets(a.workspace);
        KL_CUDA_CHECK(cudaMemsetAsync(tickets, 0, sizeof(unsigned), s));
        reduce8<T><<<grid_for<T>(a.n), kThreads, 0, s>>>(a.in, a.out, a.n, single_pass_partials<T>(a.workspace), tickets);
        KL_CHECK_LAUNCH();
      },
      .workspace_bytes = [](std::size_t n) { return single_pass_workspace_bytes<T>(grid_for<T>(n)); },
      // reduce7's first pass, then the last block over the grid's partials.
      .rounding_depth = [](std::size_t n) {
        const unsigned grid = grid_for<T>(n);
        return vectorized_pass_depth<T, kThreads, kUnroll>(n, grid) + last_block_depth<kThreads>(grid);
      },
  };
}

}  // namespace kl::reduce8
