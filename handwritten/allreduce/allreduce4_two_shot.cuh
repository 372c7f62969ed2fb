// allreduce4_two_shot — beyond the documents: reduce-scatter then all-gather, with peer loads and
// stores, in one kernel per GPU.
//
// Lesson: in the one-shot every GPU sums all n elements and reads (G-1)·n of them over NVLink.
// Split the work instead, as NCCL's ring does and as the documents split a reduction over blocks:
// rank r owns chunk r (n/G elements), sums it from every rank's input (G-1 remote loads per
// element: the reduce-scatter) and stores the result into every rank's output (G-1 remote
// stores: the all-gather). Each GPU now moves (G-1)/G·n elements each way over its links, the
// least any all-reduce must (nccl-tests' busbw counts exactly these bytes), and half of that
// traffic is stores, which NVLink posts without a round trip. For G = 2 the link bytes per
// direction equal the one-shot's (n/2 loaded + n/2 stored against n loaded) but only half are
// loads and each GPU adds n/2 elements, not n. At small sizes it is the one-shot's cost (two
// barriers, one launch) plus the peer stores' completion before the end barrier: the one-shot
// should win below the crossover, the two-shot above it.
//
// Synchronisation: the one-shot's two barriers (allreduce3_one_shot.cuh), which here also order
// the peers' stores into this rank's output: the end barrier's release (after a system-scope
// fence) makes every block's remote stores visible before its peers pass, so when a rank's kernel
// ends, every chunk of its output has been written.
//
// Chunks start at multiples of 16 bytes (step 6's vectors stay aligned); for n < G·kVec some are
// empty, and their blocks still take part in both barriers.
//
// Profiler: nvlink read and write bytes ≈ (G-1)/G·n·sizeof(T) each per GPU.
#pragma once

#include "handwritten/allreduce/allreduce_common.cuh"

namespace kl::allreduce4 {

using namespace kl::allreduce;

// Chunk r of n elements split over G ranks: [r·c, (r+1)·c) ∩ [0, n), c a multiple of 16 bytes.
template <class T>
std::size_t chunk_elems(std::size_t n, int gpus) {
  return ceil_div(ceil_div(n, static_cast<std::size_t>(gpus)), std::size_t{kVec<T>}) * kVec<T>;
}

// Elements [lo, hi) of chunk c: [c·chunk, (c+1)·chunk) ∩ [0, n) (empty for a chunk past n).
struct ChunkRange {
  std::size_t lo, hi;
};
__host__ __device__ inline ChunkRange chunk_range(std::size_t n, std::size_t chunk, int c) {
  const std::size_t start = static_cast<std::size_t>(c) * chunk;
  const std::size_t lo = start < n ? start : n;
  return {lo, n - lo > chunk ? lo + chunk : n};
}

// Stores a sum into every rank's output (the all-gather).
template <class T>
struct StoreToAll {
  T* const* out;
  int gpus;
  __device__ void vec(std::size_t i, const T (&v)[kVec<T>]) const {
    for (int j = 0; j < gpus; ++j) store_vec(out[j] + i, v);
  }
  __device__ void one(std::size_t i, T v) const {
    for (int j = 0; j < gpus; ++j) out[j][i] = v;
  }
};

// kVectors: step 6. kStaggered: step 14 (each rank takes the ranks from its next one round).
template <class T, bool kVectors, bool kStaggered = false>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) two_shot(RankView<T> v, std::size_t chunk, bool vectors) {
  meet_peers(v, kStartSet);
  const ChunkRange c = chunk_range(v.n, chunk, v.rank);
  if constexpr (kStaggered) {
    const T* in[kMaxGpus];
    T* out[kMaxGpus];
    for (int j = 0; j < v.gpus; ++j) {
      const int from = (v.rank + 1 + j) % v.gpus;
      in[j] = v.in[from];
      out[j] = v.out[from];
    }
    sum_range<kUnrollOf<T>, kVectors>(in, v.gpus, c.lo, c.hi, vectors, StoreToAll<T>{out, v.gpus});
  } else {
    sum_range<kUnrollOf<T>, kVectors>(v.in, v.gpus, c.lo, c.hi, vectors, StoreToAll<T>{v.out, v.gpus});
  }
  meet_peers(v, kEndSet);
}

template <class T, bool kVectors, bool kStaggered = false>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const bool vectors = kVectors && all_aligned16(a.in, g.gpus) && all_aligned16<T>(a.out, g.gpus);
  const std::size_t chunk = chunk_elems<T>(a.n, g.gpus);
  const std::size_t items = vectors ? chunk / kVec<T> : chunk;
  const unsigned grid = barrier_grid(g, ceil_div(items, std::size_t{kUnrollOf<T>}));
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    two_shot<T, kVectors, kStaggered><<<grid, kThreads, 0, rank_stream>>>(v, chunk, vectors);
  });
}

template <class T, bool kVectors, bool kStaggered = false>
void prepare() {
  require_resident(two_shot<T, kVectors, kStaggered>, "two_shot");
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce4_two_shot", "beyond",
               "reduce-scatter (rank r sums chunk r from every peer) then all-gather (peer stores), one kernel per GPU"},
      .launch = launch<T, false>,
      .prepare = prepare<T, false>,
  };
}

}  // namespace kl::allreduce4
