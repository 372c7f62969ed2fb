// reduce9_pdl — beyond the documents (Hopper's Programmatic Dependent Launch, the CUDA
// programming guide's section 4.5, "Programmatic Dependent Launch and Synchronization").
//
// Lesson: reduce7 and reduce8 read at the copy bandwidth; what they still pay beyond the read
// is fixed per operation: reduce7's second launch (scheduled only once the first grid has
// drained and flushed), reduce8's memset node and the dependency on it. Here reduce7's two
// kernels stay, but the second is launched with cudaLaunchAttributeProgrammaticStreamSerialization
// (cudaLaunchKernelEx), so that on compute capability 9.0 and newer it may be scheduled while the
// first still runs, and it waits for the first on the GPU instead:
//   - the first pass (reduce7's: SMs × 8 blocks striding over the input with 16-byte loads) calls
//     cudaTriggerProgrammaticLaunchCompletion (griddepcontrol.launch_dependents) at its start.
//     The guide: the secondary may launch once every block of the primary has executed the
//     trigger or exited. So the one finishing block is launched once every first-pass block has
//     started, takes no slot a first-pass block needs, and sits on the first slot one frees;
//   - the finishing block calls cudaGridDependencySynchronize (griddepcontrol.wait) before it
//     touches memory. The guide: it "will block until all primary kernels the secondary kernel
//     depends on have completed and flushed results to global memory"; PTX ISA, griddepcontrol:
//     .wait waits "until all prerequisite grids in flight have completed and all the memory
//     operations from the prerequisite grids are performed and made visible to the current
//     grid"; the runtime header (cuda_device_runtime_api.h) on the trigger: it "only enables
//     scheduling of the secondary kernel. It provides no memory visibility guarantee itself".
//     So the wait is for the whole first grid, not for its triggers: the trigger may come before
//     the partial is written (here: before any load), and every partial is in place after the
//     wait. The guide also says the secondary "must always" verify the primary's results this
//     way, since its blocks may start before those writes are visible;
//   - the finishing block reads the partials at L2 (__ldcg, as reduce8's last block does): its
//     grid is alive while the first pass writes them, so they are not read-only for its lifetime,
//     which the read-only (non-coherent) load path assumes.
// Nothing waits for the overlap: the guide calls it opportunistic, never guaranteed; without it
// the finishing block simply starts after the first pass, as reduce7's does.
// Order of arithmetic: reduce7's exactly: each first-pass thread's accumulators and the block's
// shuffle tree, then one block over the partials in index order (deterministic), so the same
// rounding depth. No ticket, no memset, no atomics.
//
// Other GPUs: PDL needs compute capability 9.0; before it the trigger and the wait compile away
// (KL_ARCH_AT_LEAST(90); griddepcontrol is an sm_90 instruction) and the attribute is not set,
// so the two launches are plain stream order. The attribute is set only where the finishing
// kernel's loaded image has the wait (kernel_runs_here, asked once in prepare): a compute_75 PTX
// image JIT-compiled on a 9.0 GPU has no wait, and launched early it would read the partials
// before they exist.
//
// Graphs: the runner captures the launch into a graph. The guide (4.5.3): PDL "can be used in
// CUDA Graphs via stream capture or directly via edge data"; a captured launch with this
// attribute becomes a programmatic edge (cudaGraphDependencyTypeProgrammatic from
// cudaGraphKernelNodePortProgrammatic) between two kernel nodes (CUDA 12.3 and newer: "Graph edge
// data ... Programmatic Dependent Launch may now be described natively in CUDA Graphs").
//
// reduce9_pdl_even_share: the same two launches, but the first pass in CUB's even-share form
// (GridEvenShare, dispatch_reduce.cuh): each block sums one contiguous segment of whole tiles
// (a tile = one round of the block, kThreads × kUnroll 16-byte vectors), its threads striding
// within it, instead of the grid striding over the whole array. Same per-thread loop (kUnroll,
// the 32-register cap), so the pair shows what the distribution alone is worth.
#pragma once

#include "common/pdl.cuh"
#include "handwritten/reduce/reduce7_vectorized_shuffle.cuh"

namespace kl::reduce9 {

// reduce7's per-thread work and grid.
using reduce7::grid_for;
using reduce7::kBlocksPerSm;
using reduce7::kThreads;
using reduce7::kUnroll;
using reduce7::pass_depth;

// Device side of PDL (common/pdl.cuh); nothing on targets before 9.0.
using pdl::allow_dependent_launch;
using pdl::wait_for_primary_grid;

// The partials, read at L2 (see the header) through reduce7's fold.
template <class T>
struct L2Elements : reduce_detail::Elements<T> {
  using Loaded = typename reduce_detail::Elements<T>::Loaded;
  __device__ Loaded load(std::size_t head, std::size_t v) const {
    return __ldcg(reinterpret_cast<const Loaded*>(this->x + head) + v);
  }
  __device__ T element(std::size_t i) const { return __ldcg(this->x + i); }
};

// The first pass: reduce7's kernel, and the trigger.
template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    first_pass(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  using namespace reduce_detail;
  allow_dependent_launch();
  const T v = grid_block_sum<kThreads, kUnroll>(Elements<T>{in}, n);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// One round of a block: kThreads × kUnroll 16-byte vectors (elements).
template <class T>
constexpr std::size_t kTile = std::size_t{kThreads} * kUnroll * kVec<T>;

// The even-share first pass: block b sums in[b·segment, min((b + 1)·segment, n)), segment =
// `tiles` whole tiles, so every segment starts as far past a 16-byte boundary as `in` does, and
// the fold peels its head and tail as reduce7's does for the array. (The count of tiles, 32 bits,
// rather than a 64-bit segment: with the latter ptxas spilled under the 32-register cap.)
template <class T>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, kBlocksPerSm))
    first_pass_even_share(const T* __restrict__ in, T* __restrict__ out, std::size_t n, unsigned tiles) {
  using namespace reduce_detail;
  allow_dependent_launch();
  const std::size_t segment = std::size_t{tiles} * kTile<T>;
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * segment;
  const std::size_t len = n - begin < segment ? n - begin : segment;
  T v = thread_sum_vectorized<kUnroll>(in + begin, len, threadIdx.x, kThreads);
  v = block_sum_shuffle<kThreads>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// The finishing block: waits for the first pass, then reduce7's one-block pass over the partials.
template <class T>
__global__ void __launch_bounds__(kThreads) finish(const T* __restrict__ partials, T* __restrict__ out, std::size_t len) {
  using namespace reduce_detail;
  wait_for_primary_grid();
  T v = thread_fold_vectorized<kUnroll, Plus<T>>(L2Elements<T>{{partials}}, len, threadIdx.x, kThreads);
  v = block_sum_shuffle<kThreads>(v);
  if (threadIdx.x == 0) *out = v;
}

// Whether the finishing kernel may be launched programmatically here (common/pdl.cuh). Asked
// once; prepare asks first, outside any capture.
template <class T>
bool programmatic_here() {
  return pdl::programmatic_here<finish<T>>();
}

// One block of `finish` over `len` partials, programmatically dependent on the kernel before it
// in the stream where that is possible, in plain stream order elsewhere.
template <class T>
void launch_finish(const T* partials, T* out, unsigned len, cudaStream_t s) {
  pdl::launch<finish<T>>(true, dim3(1), dim3(kThreads), 0, s, partials, out, std::size_t{len});
}

template <class T>
ReduceVariant<T> variant() {
  using namespace reduce_launch;
  return {
      .info = {"reduce9_pdl", "beyond the documents",
               "reduce7's two launches, the second programmatically dependent (PDL): scheduled while the first drains"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        const unsigned grid = grid_for<T>(a.n);
        run_two_pass<T>(
            grid, a.out, a.workspace, [&](T* dst) { first_pass<T><<<grid, kThreads, 0, s>>>(a.in, dst, a.n); },
            [&](const T* partials, T* dst) { launch_finish<T>(partials, dst, grid, s); });
      },
      .workspace_bytes = [](std::size_t n) { return two_pass_workspace_bytes<T>(grid_for<T>(n)); },
      // reduce7's: the first pass, then the same fold and tree over the partials.
      .rounding_depth = [](std::size_t n) { return two_pass_depth(n, grid_for<T>(n), pass_depth<T>); },
      .prepare = [] { programmatic_here<T>(); },
  };
}

// The even-share split of n over at most grid_for(n) blocks: segments of `tiles` whole tiles
// (`segment` elements), the last one shorter.
struct EvenShare {
  unsigned blocks;
  unsigned tiles;
  std::size_t segment;
};
template <class T>
EvenShare even_share(std::size_t n) {
  const std::size_t tiles = ceil_div(ceil_div(n, std::size_t{grid_for<T>(n)}), kTile<T>);
  if (tiles > 0xffffffffu) throw std::invalid_argument("reduce9_pdl_even_share: more than 2^32 tiles per block");
  const std::size_t segment = tiles * kTile<T>;
  return {grid_blocks(ceil_div(n, segment)), static_cast<unsigned>(tiles), segment};
}

template <class T>
ReduceVariant<T> variant_even_share() {
  using namespace reduce_launch;
  return {
      .info = {"reduce9_pdl_even_share", "beyond the documents",
               "reduce9_pdl with CUB's even share: each block sums one contiguous segment of whole tiles"},
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        const EvenShare e = even_share<T>(a.n);
        run_two_pass<T>(
            e.blocks, a.out, a.workspace,
            [&](T* dst) { first_pass_even_share<T><<<e.blocks, kThreads, 0, s>>>(a.in, dst, a.n, e.tiles); },
            [&](const T* partials, T* dst) { launch_finish<T>(partials, dst, e.blocks, s); });
      },
      .workspace_bytes = [](std::size_t n) { return two_pass_workspace_bytes<T>(even_share<T>(n).blocks); },
      // Each block: kThreads threads over one segment (fold and tree), then the partials as above.
      .rounding_depth =
          [](std::size_t n) {
            const EvenShare e = even_share<T>(n);
            return two_pass_depth(n, e.blocks, [&](std::size_t, std::size_t) { return pass_depth<T>(e.segment, 1); },
                                  pass_depth<T>);
          },
      .prepare = [] { programmatic_here<T>(); },
  };
}

}  // namespace kl::reduce9
