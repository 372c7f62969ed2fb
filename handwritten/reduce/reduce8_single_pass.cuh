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
// Workspace: the ticket counter, then the partials (16 bytes keep them aligned for any T).
constexpr std::size_t kPartialsOffset = 16;

template <class T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    reduce8(const T* __restrict__ in, T* __restrict__ out, std::size_t n, T* partials, unsigned* tickets) {
  using namespace reduce_detail;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  T v = thread_sum_vectorized<kUnroll>(in, n, thread, static_cast<std::size_t>(gridDim.x) * kThreads);
  v = block_sum_shuffle<kThreads>(v);

  __shared__ bool am_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();  // the partial is visible to every block before our ticket is
    am_last = atomicInc(tickets, gridDim.x - 1) == gridDim.x - 1;
    __threadfence();  // and the last block's reads below are ordered after its ticket
  }
  __syncthreads();
  if (!am_last) return;

  // __ldcg: read at L2, where the other blocks' partials are; this SM's L1 is not coherent.
  T s = T(0);
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kThreads) s += __ldcg(partials + i);
  s = block_sum_shuffle<kThreads>(s);
  if (threadIdx.x == 0) *out = s;
}

template <class T>
ReduceVariant<T> variant() {
  using namespace reduce_detail;
  return {
      .info = {"reduce8_single_pass", "beyond the documents",
               "reduce7 in one launch: the last block to finish (atomic ticket) sums the partials"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        auto* base = static_cast<unsigned char*>(a.workspace);
        auto* tickets = reinterpret_cast<unsigned*>(base);
        auto* partials = reinterpret_cast<T*>(base + kPartialsOffset);
        KL_CUDA_CHECK(cudaMemsetAsync(tickets, 0, sizeof(unsigned), s));
        reduce8<T><<<grid_for<T>(a.n), kThreads, 0, s>>>(a.in, a.out, a.n, partials, tickets);
        KL_CHECK_LAUNCH();
      },
      .workspace_bytes = [](std::size_t n) -> std::size_t { return kPartialsOffset + grid_for<T>(n) * sizeof(T); },
      // reduce7's first pass, then the last block: a serial chain of ceil(grid / 256) partials
      // per thread and the two shuffle trees.
      .rounding_depth = [](std::size_t n) {
        const unsigned grid = grid_for<T>(n);
        return vectorized_pass_depth<T, kThreads, kUnroll>(n, grid) +
               static_cast<double>(ceil_div(grid, kThreads)) + block_sum_shuffle_levels<kThreads>();
      },
  };
}

}  // namespace kl::reduce8
