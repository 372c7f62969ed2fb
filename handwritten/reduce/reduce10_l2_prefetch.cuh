// reduce10_l2_prefetch — beyond the documents (PTX ISA, ld: the .L2::256B prefetch size and the
// .L1::no_allocate eviction priority).
//
// Lesson: reduce9 reads at the copy bandwidth, which is still short of what DRAM can give. Each
// of its 16-byte loads that misses asks L2 for one 32-byte sector; the memory system sees many
// small requests and keeps DRAM less busy than a copy that streams. Here the loads say so: the
// .L2::256B qualifier lets L2 fetch the whole 256 bytes around a missing sector, so each miss
// brings the next 15 vectors of the warp's neighbours with it, and .L1::no_allocate keeps data
// read once out of L1. Nothing else changes: reduce9's launches (the finishing block
// programmatically dependent on the first pass), its fold, tree and order of arithmetic.
// Fewer vectors per round than reduce9 (1, not 2): with the prefetch, a thread's one load keeps
// enough bytes in flight; measured on an H100 against 2 and 4 per round (docs/rows-and-dot.md,
// "The sum at 2^28").
//
// Other GPUs: the prefetch size needs sm_80 (Turing's pass loads with the L1 hint alone); the
// hints are hints, and a GPU that ignores them reads as reduce9 does.
#pragma once

#include "handwritten/reduce/reduce9_pdl.cuh"

#include <cstring>

namespace kl::reduce10 {

using reduce9::kBlocksPerSm;
using reduce9::kThreads;
constexpr unsigned kUnroll = 1;

// x_i read through the non-coherent path as reduce7's Elements, with the prefetch and L1 hints.
template <class T>
struct PrefetchedElements : reduce_detail::Elements<T> {
  using Loaded = typename reduce_detail::Elements<T>::Loaded;
  __device__ Loaded load(std::size_t head, std::size_t v) const {
    const Loaded* p = reinterpret_cast<const Loaded*>(this->x + head) + v;
    uint4 u;
#if KL_ARCH_AT_LEAST(80)
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
        : "l"(p));
#else  // the prefetch size needs sm_80
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
#endif
    Loaded out;
    static_assert(sizeof(out) == sizeof(u));
    memcpy(&out, &u, sizeof(u));
    return out;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    first_pass(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  using namespace reduce_detail;
  pdl::allow_dependent_launch();
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  T v = thread_fold_vectorized<kUnroll, Plus<T>>(PrefetchedElements<T>{{in}}, n, thread,
                                                 static_cast<std::size_t>(gridDim.x) * kThreads);
  v = block_sum_shuffle<kThreads>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template <class T>
unsigned grid_for(std::size_t n) {
  return reduce_detail::vectorized_grid<T, kThreads, kUnroll, kBlocksPerSm>(n);
}
template <class T>
double pass_depth(std::size_t len, std::size_t grid) {
  return reduce_detail::vectorized_pass_depth<T, kThreads, kUnroll>(len, grid);
}

template <class T>
ReduceVariant<T> variant() {
  using namespace reduce_launch;
  return {
      .info = {"reduce10_l2_prefetch", "beyond the documents",
               "reduce9_pdl with loads that ask L2 for 256 bytes per miss and skip L1, one vector per round"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        const unsigned grid = grid_for<T>(a.n);
        run_two_pass<T>(
            grid, a.out, a.workspace, [&](T* dst) { first_pass<T><<<grid, kThreads, 0, s>>>(a.in, dst, a.n); },
            [&](const T* partials, T* dst) { reduce9::launch_finish<T>(partials, dst, grid, s); });
      },
      .workspace_bytes = [](std::size_t n) { return two_pass_workspace_bytes<T>(grid_for<T>(n)); },
      // The first pass at one vector per round, then reduce9's finishing block (reduce7's pass
      // depth at its kUnroll) over the partials.
      .rounding_depth = [](std::size_t n) { return two_pass_depth(n, grid_for<T>(n), pass_depth<T>, reduce9::pass_depth<T>); },
      .prepare = [] { reduce9::programmatic_here<T>(); },
  };
}

}  // namespace kl::reduce10
