// allreduce7_one_shot_push — beyond the documents: the one-shot with one synchronisation instead
// of two, by pushing data into peers' double-buffered staging instead of pulling it.
//
// Lesson: at small sizes the one-shot's time is its synchronisation, not its bytes: two barriers
// (each a flag store over NVLink and a wait for the peers') around a round trip of remote loads.
// Turn the traffic around: each rank stores its input into a staging slot on every peer (remote
// stores are posted: no round trip per request), then signals each peer once; when every peer's
// signal has arrived, it sums its own input and the G-1 staged copies from local memory. One
// flag wait per call, and the data arrives with (not after) the synchronisation. Expect the
// ladder's lowest latency at small sizes, at the cost of more local traffic at large ones (the
// staged copies are written and read back from HBM: ~(2G+1)·n·sizeof(T) of HBM per GPU against
// the pull's (G+1)·n), so the two-shot should pass it above the crossover.
//
// Why one wait is enough (NCCL's per-GPU contract, common/gpu_group.hpp): a rank reads only its own
// input and staging and writes only its own output, so no peer's entry into the operation needs
// awaiting (no start barrier), and no peer reads this rank's buffers afterwards (no end barrier).
// What remains is reuse of the staging: calls alternate between two halves by the parity of the
// generation (consecutive calls get consecutive generations), with flags per half. A peer writes
// half p again only in call k+2, which it starts after finishing call k+1, which needed this
// rank's push of call k+1, which this rank made after finishing call k, the last reader of half
// p. Flags are the generation again, so a stale one never matches.
//
// Which elements a block pushes and which it sums are the same set on every rank (sum_range's
// walk, same grid, same decision on vectors), so block b's wait for block b of each peer covers
// every element it then reads.
//
// Workspace: 2 halves × (G-1) slots of n elements (16-byte padded) on every GPU.
// Profiler: nvlink write bytes (G-1)·n·sizeof(T) per GPU and no nvlink reads; one kernel per GPU.
#pragma once

#include "handwritten/allreduce/allreduce_common.cuh"

namespace kl::allreduce7 {

using namespace kl::allreduce;

template <class T>
struct Staging {
  T* base[kMaxGpus];  // each rank's workspace
  std::size_t slot;   // elements per slot
  int parity;         // which half this call uses
  // Where rank `from`'s data sits in rank `to`'s staging for this call.
  __device__ T* at(int gpus, int to, int from) const {
    return base[to] + (static_cast<std::size_t>(parity) * (gpus - 1) + slot_of(from, to)) * slot;
  }
};

// Stores this rank's elements into its slot on every peer.
template <class T>
struct StoreToPeers {
  const Staging<T>& st;
  int gpus, rank;
  __device__ void vec(std::size_t i, const T (&v)[kVec<T>]) const {
    for (int j = 0; j < gpus; ++j)
      if (j != rank) store_vec(st.at(gpus, j, rank) + i, v);
  }
  __device__ void one(std::size_t i, T v) const {
    for (int j = 0; j < gpus; ++j)
      if (j != rank) st.at(gpus, j, rank)[i] = v;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) one_shot_push(RankView<T> v, Staging<T> st, bool vectors) {
  // The push: a "sum" over this rank alone is its input, stored into every peer's slot.
  const T* mine[1] = {v.in[v.rank]};
  sum_range<kUnrollOf<T>, true>(mine, 1, 0, v.n, vectors, StoreToPeers<T>{st, v.gpus, v.rank});
  meet_peers(v, kPushSet + st.parity);
  const T* src[kMaxGpus];
  for (int j = 0; j < v.gpus; ++j) src[j] = j == v.rank ? v.in[v.rank] : st.at(v.gpus, v.rank, j);
  sum_range<kUnrollOf<T>, true>(src, v.gpus, 0, v.n, vectors, StoreTo<T>{v.out[v.rank]});
}

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  Staging<T> st{};
  for (int r = 0; r < g.gpus; ++r) st.base[r] = static_cast<T*>(a.workspace[r]);
  st.slot = slot_elems<T>(a.n);
  const bool vectors = all_aligned16(a.in, g.gpus) && all_aligned16<T>(a.out, g.gpus) && all_aligned16<T>(st.base, g.gpus);
  const std::size_t items = vectors ? ceil_div(a.n, std::size_t{kVec<T>}) : a.n;
  const unsigned grid = barrier_grid(g, ceil_div(items, std::size_t{kUnrollOf<T>}));
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    st.parity = static_cast<int>(v.gen & 1);  // the operation's half of the staging, alike on every rank
    one_shot_push<T><<<grid, kThreads, 0, rank_stream>>>(v, st, vectors);
  });
}

template <class T>
void prepare() {
  require_resident(one_shot_push<T>, "one_shot_push");
}

template <class T>
std::size_t workspace_bytes(AllreduceSize s) {
  return 2 * peer_slots(s) * slot_elems<T>(s.n) * sizeof(T);
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce7_one_shot_push", "beyond",
               "push the input into every peer's double-buffered staging (NVLink stores), one flag wait, sum locally"},
      .launch = launch<T>,
      .workspace_bytes = workspace_bytes<T>,
      .prepare = prepare<T>,
  };
}

}  // namespace kl::allreduce7
