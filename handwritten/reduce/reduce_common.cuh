// Shared pieces of the reduction ladder: the device building blocks said once for several
// steps: the zero-padded load, the last-warp step of 002 (reduce5, reduce6), and the vectorised
// per-thread fold, shuffle trees, single-pass finish and SM-count grid sizing of the steps beyond
// the documents (reduce7, reduce8), which the dot and rows families reuse with their own terms
// and operations. The launch patterns (multi-pass, two-pass) and their rounding depths are in
// common/reduce_launch.cuh, shared with the library baselines and the dot family.
#pragma once

#include "common/device_helpers.cuh"
#include "common/reduce_launch.cuh"
#include "common/args/reduce_args.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace kl::reduce_detail {

using reduce_launch::log2_exact;
using reduce_launch::multipass_variant;

// Threads past n contribute 0 (exact in every type), so no n has to be a multiple of a block.
template <class T>
__device__ __forceinline__ T load_or_zero(const T* __restrict__ in, std::size_t i, std::size_t n) {
  return i < n ? in[i] : T(0);
}

// ---------------------------------------------------------------------------------------------
// The last warp of 000 reduce5 / 001 "reduce4" / 002 warpReduce, for reduce5 and reduce6.
// Called by the 32 threads of warp 0 once sdata[0, 64) holds the partials (so the block has at
// least 64 threads and a __syncthreads() has just passed).
//
// The documents rely on the warp executing in lockstep: with no barrier between the six lines,
// lane t reads sdata[t + s] while lane t + s writes it. Since Volta, independent thread
// scheduling lets the lanes of a warp interleave arbitrarily, so that read may see either value:
// a data race. Kept from the documents: volatile, so every access
// really goes to shared memory, and the six steps with all 32 lanes active (the upper lanes
// compute garbage nobody reads). Added: each step reads into a register, then __syncwarp(),
// then writes, then __syncwarp(), so all reads of a step happen before any write of it and all
// writes before the next step's reads: exactly the lockstep semantics the documents assumed.
template <class T>
__device__ __forceinline__ T warp_reduce_volatile(volatile T* sdata, unsigned tid) {
  T v = sdata[tid];
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    v += sdata[tid + s];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
  return v;  // lane 0: the block's sum
}

// Beyond the documents (reduce7, reduce8, and the dot and rows families, which fold other terms
// with other operations through the same code): 16-byte loads, independent accumulators,
// shuffles. A fold is described by two small types:
//
//   the operation  identity(), term(x) (what one input value contributes) and combine(a, b):
//                  Plus here (the sum); rows adds the sum of squares, max and min
//                  (handwritten/rows/rows_common.cuh)
//   the terms      where the values come from and how to read them as 16-byte vectors and one
//                  at a time: Elements (x_i: reduce, rows) or Products (x_i·y_i: dot)

template <class T>
struct Plus {
  __device__ static T identity() { return T(0); }
  __device__ static T term(T x) { return x; }
  __device__ static T combine(T a, T b) { return a + b; }
};

// x_i of one array. `vectors` false forbids 16-byte loads altogether (rows' warp-per-row step,
// which takes them only when every row is aligned); otherwise the fold itself peels the elements
// before x's first 16-byte boundary, so x need only be aligned to T.
template <class T>
struct Elements {
  using value_type = T;
  using Loaded = vec16_t<T>;
  const T* __restrict__ x;
  bool vectors = true;
  __device__ bool vectorizable() const { return vectors; }
  __device__ std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(x); }
  // Vector v of the body that starts at element `head` (16-byte aligned by construction).
  __device__ Loaded load(std::size_t head, std::size_t v) const {
    return __ldg(reinterpret_cast<const Loaded*>(x + head) + v);
  }
  __device__ static T lane(const Loaded& v, unsigned k) { return reinterpret_cast<const T*>(&v)[k]; }
  __device__ T element(std::size_t i) const { return x[i]; }
};

// x_i·y_i of two arrays. 16-byte loads need the same index to be 16-byte aligned in both, i.e. x
// and y the same distance past a 16-byte boundary; otherwise one element of each at a time.
template <class T>
struct Products {
  using value_type = T;
  struct Loaded {
    vec16_t<T> x, y;
  };
  const T* __restrict__ x;
  const T* __restrict__ y;
  __device__ bool vectorizable() const {
    return reinterpret_cast<std::uintptr_t>(x) % 16 == reinterpret_cast<std::uintptr_t>(y) % 16;
  }
  __device__ std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(x); }
  __device__ Loaded load(std::size_t head, std::size_t v) const {
    return {__ldg(reinterpret_cast<const vec16_t<T>*>(x + head) + v), __ldg(reinterpret_cast<const vec16_t<T>*>(y + head) + v)};
  }
  __device__ static T lane(const Loaded& v, unsigned k) {
    return reinterpret_cast<const T*>(&v.x)[k] * reinterpret_cast<const T*>(&v.y)[k];
  }
  __device__ T element(std::size_t i) const { return x[i] * y[i]; }
};

// One thread's fold of terms [0, n) when `threads` threads stride over them, `thread` being this
// one's index among them (a grid: reduce, dot; the lanes of a row's group: rows).
//
// Vector path: the body is read as 16-byte vectors, kUnroll of them per round at a distance of
// `threads` vectors, all loads issued before any combine: kUnroll·16 bytes in flight per thread
// and array. The accumulators are kGroups groups of one vector's width (L = kGroups·width), vector
// u of a round going to group u mod kGroups: with kGroups = kUnroll (the default) no combine waits
// for the previous one; fewer groups leave registers for more loads in flight (reduce10). The
// elements before the first 16-byte boundary (head) and after the last whole vector (tail), fewer
// than 2·width in all, are taken one each by the first threads (several each when there are fewer
// threads than that, as in a small group of lanes).
// Element path (the terms cannot be read as vectors): kUnroll·width elements per round at a
// distance of `threads`, element l to accumulator l mod L.
//
// Rounding: each accumulator folds kUnroll / kGroups terms in each of at most
// ceil(n / (threads·kUnroll·width)) rounds, accumulator 0 also ceil(2·(width - 1) / threads)
// head/tail elements, and the L accumulators are folded pairwise (log2(L) levels). See fold_depth.
template <unsigned kUnroll, class Op, unsigned kGroups = kUnroll, class Terms>
__device__ __forceinline__ typename Terms::value_type thread_fold_vectorized(const Terms& terms, std::size_t n,
                                                                             std::size_t thread, std::size_t threads) {
  using T = typename Terms::value_type;
  constexpr unsigned W = kVec<T>;
  constexpr unsigned L = kGroups * W;   // accumulators
  constexpr unsigned R = kUnroll * W;   // terms per thread per round
  static_assert((kUnroll & (kUnroll - 1)) == 0, "the fold is a pairwise tree");
  static_assert(kGroups >= 1 && kUnroll % kGroups == 0, "each group takes the same number of vectors a round");
  T acc[L];
#pragma unroll
  for (unsigned l = 0; l < L; ++l) acc[l] = Op::identity();

  if (terms.vectorizable()) {
    const std::size_t misalign = terms.address() % 16;
    const std::size_t to_boundary = misalign ? (16 - misalign) / sizeof(T) : 0;
    const std::size_t head = to_boundary < n ? to_boundary : n;
    const std::size_t nvec = (n - head) / W;
    const std::size_t body_end = head + nvec * W;
    std::size_t j = thread;
    for (; j + (kUnroll - 1) * threads < nvec; j += kUnroll * threads) {
      typename Terms::Loaded v[kUnroll];
#pragma unroll
      for (unsigned u = 0; u < kUnroll; ++u) v[u] = terms.load(head, j + u * threads);
#pragma unroll
      for (unsigned u = 0; u < kUnroll; ++u)
#pragma unroll
        for (unsigned k = 0; k < W; ++k)
          acc[(u % kGroups) * W + k] = Op::combine(acc[(u % kGroups) * W + k], Op::term(Terms::lane(v[u], k)));
    }
    // The last, partial round: at most kUnroll - 1 vectors left, vector u into group u mod kGroups.
#pragma unroll
    for (unsigned u = 0; u + 1 < kUnroll; ++u) {
      if (j + u * threads < nvec) {
        const typename Terms::Loaded v = terms.load(head, j + u * threads);
#pragma unroll
        for (unsigned k = 0; k < W; ++k)
          acc[(u % kGroups) * W + k] = Op::combine(acc[(u % kGroups) * W + k], Op::term(Terms::lane(v, k)));
      }
    }
    const std::size_t edges = head + (n - body_end);
    for (std::size_t e = thread; e < edges; e += threads)
      acc[0] = Op::combine(acc[0], Op::term(terms.element(e < head ? e : body_end + (e - head))));
  } else {
    std::size_t i = thread;
    for (; i + (R - 1) * threads < n; i += R * threads) {
      T v[R];
#pragma unroll
      for (unsigned l = 0; l < R; ++l) v[l] = terms.element(i + l * threads);
#pragma unroll
      for (unsigned l = 0; l < R; ++l) acc[l % L] = Op::combine(acc[l % L], Op::term(v[l]));
    }
#pragma unroll
    for (unsigned l = 0; l + 1 < R; ++l)
      if (i + l * threads < n) acc[l % L] = Op::combine(acc[l % L], Op::term(terms.element(i + l * threads)));
  }

  // The pairwise tree, level by level (half = L/2, L/4, ..., 1). Both loops have constant trip
  // counts so that every index is a constant after unrolling: written as `for (half = L / 2;
  // half > 0; half >>= 1)`, nvcc left the outer loop rolled at L = 16 (float, kUnroll = 4) and
  // put acc[] in local memory, which made that configuration much slower than kUnroll = 2
  // (docs/rows-and-dot.md, "The rows ladder (`compare -f rows`)", the first 4-deep trial).
  constexpr unsigned kLevels = L >= 16 ? 4 : L >= 8 ? 3 : L >= 4 ? 2 : L >= 2 ? 1 : 0;
  static_assert((1u << kLevels) == L, "L is a power of two up to 16");
#pragma unroll
  for (unsigned level = 1; level <= kLevels; ++level) {
    const unsigned half = L >> level;
#pragma unroll
    for (unsigned k = 0; k < L / 2; ++k)
      if (k < half) acc[k] = Op::combine(acc[k], acc[k + half]);
  }
  return acc[0];
}

// The sum of in[0, n) by one thread of `threads` (reduce9's even share, over its segment).
template <unsigned kUnroll, class T>
__device__ __forceinline__ T thread_sum_vectorized(const T* __restrict__ in, std::size_t n, std::size_t thread,
                                                   std::size_t threads) {
  return thread_fold_vectorized<kUnroll, Plus<T>>(Elements<T>{in}, n, thread, threads);
}

// Fold over the first `width` lanes of each segment of `width` lanes (a power of two <= 32) into
// the segment's first lane; all 32 lanes call it. log2(width) levels.
template <class Op, class T>
__device__ __forceinline__ T warp_fold_shuffle(T v, unsigned width = 32) {
  for (unsigned offset = width / 2; offset > 0; offset >>= 1)
    v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, offset, width));
  return v;
}

template <class T>
__device__ __forceinline__ T warp_sum_shuffle(T v, unsigned width = 32) {
  return warp_fold_shuffle<Plus<T>>(v, width);
}

// The block's fold, in thread 0: a shuffle tree in each warp (5 levels), the warp results through
// shared memory, a shuffle tree over them in warp 0 (log2(kThreads / 32) levels). A caller that
// uses it twice must __syncthreads() in between (the warp results' slots are reused).
template <unsigned kThreads, class Op, class T>
__device__ __forceinline__ T block_fold_shuffle(T v) {
  constexpr unsigned kWarps = kThreads / 32;
  static_assert(kThreads % 32 == 0 && (kWarps & (kWarps - 1)) == 0 && kWarps <= 32);
  __shared__ T warp_results[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_fold_shuffle<Op>(v);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_fold_shuffle<Op>(lane < kWarps ? warp_results[lane] : Op::identity(), kWarps);
  return v;
}

template <unsigned kThreads, class T>
__device__ __forceinline__ T block_sum_shuffle(T v) {
  return block_fold_shuffle<kThreads, Plus<T>>(v);
}

template <unsigned kThreads>
constexpr double block_sum_shuffle_levels() {
  unsigned levels = 5;
  for (unsigned w = kThreads / 32; w > 1; w >>= 1) ++levels;
  return levels;
}

// A block's share of a grid-stride fold, summed: each thread folds the terms the grid's threads
// stride over (thread_fold_vectorized), then the block's shuffle tree. The block's sum is in
// thread 0. The first pass of reduce7 to reduce10 (reduce9's even share aside), dot3 and dot4.
template <unsigned kThreads, unsigned kUnroll, unsigned kGroups = kUnroll, class Terms>
__device__ __forceinline__ typename Terms::value_type grid_block_sum(const Terms& terms, std::size_t n) {
  using T = typename Terms::value_type;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  const T v = thread_fold_vectorized<kUnroll, Plus<T>, kGroups>(terms, n, thread,
                                                               static_cast<std::size_t>(gridDim.x) * kThreads);
  return block_sum_shuffle<kThreads>(v);
}

// ---------------------------------------------------------------------------------------------
// The single-pass finish (reduce8, the dot family's single-pass step): the blocks combine their
// own partials, the "last block" pattern of the CUDA programming guide's threadFenceReduction
// sample. The workspace holds a ticket counter, then one partial per block (16 bytes keep them
// aligned for any T); the launcher zeroes the counter on the stream before the launch.
constexpr std::size_t kSinglePassPartialsOffset = 16;

template <class T>
std::size_t single_pass_workspace_bytes(unsigned grid) {
  return kSinglePassPartialsOffset + std::size_t{grid} * sizeof(T);
}
inline unsigned* single_pass_tickets(void* workspace) { return static_cast<unsigned*>(workspace); }
template <class T>
T* single_pass_partials(void* workspace) {
  return reinterpret_cast<T*>(static_cast<unsigned char*>(workspace) + kSinglePassPartialsOffset);
}

// Called by every thread of every block with the block's sum in thread 0 (after a
// block_sum_shuffle: this one's second use is behind the __syncthreads below). Each block writes
// its partial, makes it visible device-wide (__threadfence) and takes a ticket with atomicInc;
// the block that draws the last ticket knows every partial is in place and sums them in index
// order into *out, whichever block it is: deterministic, and no block ever waits for another, so
// no co-residency is needed.
template <unsigned kThreads, class T>
__device__ __forceinline__ void last_block_sums(T block_sum, T* partials, unsigned* tickets, T* out) {
  __shared__ bool am_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sum;
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

// Depth added by last_block_sums over `grid` partials: a serial chain of ceil(grid / kThreads)
// partials per thread and the two shuffle trees.
template <unsigned kThreads>
double last_block_depth(std::size_t grid) {
  return static_cast<double>(ceil_div(grid, std::size_t{kThreads})) + block_sum_shuffle_levels<kThreads>();
}

// ---------------------------------------------------------------------------------------------
// Host side: grids and rounding depths of the vectorised folds.

// Grid of a thread_fold_vectorized pass over n terms: enough blocks to keep every SM at
// kBlocksPerSm, fewer when n gives each thread less than one round.
template <class T, unsigned kThreads, unsigned kUnroll, unsigned kBlocksPerSm>
unsigned vectorized_grid(std::size_t n) {
  const std::size_t per_block_round = std::size_t{kThreads} * kUnroll * kVec<T>;
  const std::size_t full = std::size_t{sm_count()} * kBlocksPerSm;
  const std::size_t wanted = ceil_div(n, per_block_round);
  return grid_blocks(wanted < full ? wanted : full);
}

// Rounding depth of thread_fold_vectorized over n terms with `threads` threads: the rounds per
// accumulator, the head/tail elements of accumulator 0, the pairwise fold of the accumulators.
template <class T, unsigned kUnroll, unsigned kGroups = kUnroll>
double fold_depth(std::size_t n, std::size_t threads) {
  constexpr std::size_t per_round = std::size_t{kUnroll} * kVec<T>;
  const std::size_t rounds = ceil_div(n, threads * per_round);
  const std::size_t edges = ceil_div(2 * (std::size_t{kVec<T>} - 1), threads);
  return static_cast<double>(rounds * (kUnroll / kGroups) + edges) + log2_exact(std::size_t{kGroups} * kVec<T>);
}

// Rounding depth of one pass of thread_fold_vectorized + block_sum_shuffle over len values with
// `grid` blocks.
template <class T, unsigned kThreads, unsigned kUnroll, unsigned kGroups = kUnroll>
double vectorized_pass_depth(std::size_t len, std::size_t grid) {
  return fold_depth<T, kUnroll, kGroups>(len, grid * kThreads) + block_sum_shuffle_levels<kThreads>();
}

// ---------------------------------------------------------------------------------------------
// Document 004's pattern: `Kernel(out, in, n)` runs one block of kTPB threads per kTPB elements,
// and each block adds its partial into *out with atomicAdd. *out is zeroed on the stream first
// (the document's cudaMemset), as part of the operation. Rounding: the block's own levels
// (kBlockLevels), then one chain of atomics over all blocks in arrival order (the first landing
// on the zeroed *out exactly). The dot family's 004 kernels follow the same pattern
// (dot_detail::atomic_variant).
template <unsigned kTPB, unsigned kBlockLevels>
double atomic_depth(std::size_t n) {
  return double{kBlockLevels} + static_cast<double>(ceil_div(n, std::size_t{kTPB}) - 1);
}

template <class T, unsigned kTPB, unsigned kBlockLevels, void (*Kernel)(T*, const T*, std::size_t)>
ReduceVariant<T> atomic_variant(VariantInfo info) {
  return {
      .info = info,
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), s));
        Kernel<<<grid_blocks(ceil_div(a.n, kTPB)), kTPB, 0, s>>>(a.out, a.in, a.n);
        KL_CHECK_LAUNCH();
      },
      .rounding_depth = atomic_depth<kTPB, kBlockLevels>,
  };
}

}  // namespace kl::reduce_detail
