// Shared pieces of the reduction ladder: the device building blocks said once for several
// steps: the zero-padded load, the last-warp step of 002 (reduce5, reduce6), and the vectorised
// per-thread sum, shuffle trees and SM-count grid sizing of the steps beyond the documents
// (reduce7, reduce8). The launch patterns (multi-pass, two-pass) and their rounding depths are in
// common/reduce_launch.cuh, shared with the library baselines and the dot family.
#pragma once

#include "common/device_helpers.cuh"
#include "common/reduce_launch.cuh"
#include "common/variant.hpp"

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

// ---------------------------------------------------------------------------------------------
// Beyond the documents (reduce7, reduce8): 16-byte loads, independent accumulators, shuffles.

// acc[0, width) += the lanes of one 16-byte vector.
template <class T>
__device__ __forceinline__ void add_lanes(T (&acc)[kVec<T>], const vec16_t<T>& v) {
  const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
  for (int i = 0; i < kVec<T>; ++i) acc[i] += e[i];
}

// One thread's share of in[0, n) when `threads` threads stride over it, `thread` being this
// one's index among them.
//
// The body is read as 16-byte vectors, kUnroll of them per round at a distance of `threads`
// vectors, all loads issued before any add: kUnroll·16 bytes in flight per thread, and
// kUnroll·width independent accumulators so no add waits for the previous one. `in` need only be
// aligned to T: the elements before the first 16-byte boundary (head) and after the last whole
// vector (tail), fewer than 2·width in all, are taken one each by the first threads.
//
// Rounding: each accumulator gets at most ceil(n / (threads·kUnroll·width)) vectors' lanes,
// plus one head/tail element, and the kUnroll·width accumulators are folded pairwise
// (log2(kUnroll·width) levels). See vectorized_pass_depth.
template <unsigned kUnroll, class T>
__device__ __forceinline__ T thread_sum_vectorized(const T* __restrict__ in, std::size_t n,
                                                   std::size_t thread, std::size_t threads) {
  constexpr unsigned W = kVec<T>;
  static_assert((kUnroll & (kUnroll - 1)) == 0, "the fold is a pairwise tree");
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::size_t to_boundary = misalign ? (16 - misalign) / sizeof(T) : 0;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t nvec = (n - head) / W;
  const std::size_t body_end = head + nvec * W;
  const auto* vin = reinterpret_cast<const vec16_t<T>*>(in + head);

  T acc[kUnroll][W] = {};
  std::size_t j = thread;
  for (; j + (kUnroll - 1) * threads < nvec; j += kUnroll * threads) {
    vec16_t<T> v[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) v[u] = __ldg(vin + j + u * threads);
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) add_lanes<T>(acc[u], v[u]);
  }
  // The last, partial round: at most kUnroll - 1 vectors left, one per accumulator.
#pragma unroll
  for (unsigned u = 0; u < kUnroll - 1; ++u)
    if (j + u * threads < nvec) add_lanes<T>(acc[u], __ldg(vin + j + u * threads));

  const std::size_t edges = head + (n - body_end);
  if (thread < edges) acc[0][0] += in[thread < head ? thread : body_end + (thread - head)];

#pragma unroll
  for (unsigned half = kUnroll * W / 2; half > 0; half >>= 1) {
#pragma unroll
    for (unsigned k = 0; k < half; ++k) acc[k / W][k % W] += acc[(k + half) / W][(k + half) % W];
  }
  return acc[0][0];
}

// Sum over the first `width` lanes (a power of two <= 32) into lane 0; all 32 lanes call it.
template <class T>
__device__ __forceinline__ T warp_sum_shuffle(T v, unsigned width = 32) {
  for (unsigned offset = width / 2; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The block's sum, in thread 0: a shuffle tree in each warp (5 levels), the warp sums through
// shared memory, a shuffle tree over them in warp 0 (log2(kThreads / 32) levels). A caller that
// uses it twice must __syncthreads() in between (the warp sums' slots are reused).
template <unsigned kThreads, class T>
__device__ __forceinline__ T block_sum_shuffle(T v) {
  constexpr unsigned kWarps = kThreads / 32;
  static_assert(kThreads % 32 == 0 && (kWarps & (kWarps - 1)) == 0 && kWarps <= 32);
  __shared__ T warp_sums[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum_shuffle(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum_shuffle(lane < kWarps ? warp_sums[lane] : T(0), kWarps);
  return v;
}

template <unsigned kThreads>
constexpr double block_sum_shuffle_levels() {
  unsigned levels = 5;
  for (unsigned w = kThreads / 32; w > 1; w >>= 1) ++levels;
  return levels;
}

// Grid of a thread_sum_vectorized pass: enough blocks to keep every SM at kBlocksPerSm, fewer
// when n gives each thread less than one round.
template <class T, unsigned kThreads, unsigned kUnroll, unsigned kBlocksPerSm>
unsigned vectorized_grid(std::size_t n) {
  const std::size_t per_block_round = std::size_t{kThreads} * kUnroll * kVec<T>;
  const std::size_t full = std::size_t{sm_count()} * kBlocksPerSm;
  const std::size_t wanted = ceil_div(n, per_block_round);
  return grid_blocks(wanted < full ? wanted : full);
}

// Rounding depth of one pass of thread_sum_vectorized + block_sum_shuffle over len values with
// `grid` blocks: the serial rounds per accumulator, +1 for a head/tail element, the pairwise
// fold of the accumulators, the two shuffle trees.
template <class T, unsigned kThreads, unsigned kUnroll>
double vectorized_pass_depth(std::size_t len, std::size_t grid) {
  constexpr std::size_t lanes = std::size_t{kUnroll} * kVec<T>;
  const std::size_t rounds = ceil_div(len, grid * kThreads * lanes);
  return static_cast<double>(rounds) + 1 + log2_exact(lanes) + block_sum_shuffle_levels<kThreads>();
}

// ---------------------------------------------------------------------------------------------
// Document 004's pattern: `Kernel(out, in, n)` runs one block of kTPB threads per kTPB elements,
// and each block adds its partial into *out with atomicAdd. *out is zeroed on the stream first
// (the document's cudaMemset), as part of the operation. Rounding: the block's own levels
// (kBlockLevels), then one chain of atomics over all blocks in arrival order (the first landing
// on the zeroed *out exactly).
template <class T, unsigned kTPB, unsigned kBlockLevels, void (*Kernel)(T*, const T*, std::size_t)>
ReduceVariant<T> atomic_variant(VariantInfo info) {
  return {
      .info = info,
      .launch = [](const ReduceArgs<T>& a, cudaStream_t s) {
        KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), s));
        Kernel<<<grid_blocks(ceil_div(a.n, kTPB)), kTPB, 0, s>>>(a.out, a.in, a.n);
        KL_CHECK_LAUNCH();
      },
      .rounding_depth = [](std::size_t n) { return double{kBlockLevels} + static_cast<double>(ceil_div(n, kTPB) - 1); },
  };
}

}  // namespace kl::reduce_detail
