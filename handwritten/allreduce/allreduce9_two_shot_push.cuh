// allreduce9_two_shot_push — beyond the documents: the two-shot with every byte crossing NVLink
// as a store.
//
// Lesson: step 4's reduce-scatter *loads* chunk r from every peer, and a remote load is a request
// and a response with a round trip between; a remote store is posted, one packet, no reply to
// wait for. NCCL's ring only ever stores into its peers. Do the same: each rank stores chunk j of
// its input into its slot in rank j's staging (the reduce-scatter, pushed), meets its peers once,
// sums chunk r from its own input and the G-1 staged copies in local memory, and stores the sum
// into every rank's output (the all-gather, as in step 4). The link bytes are step 4's, (G-1)/G·n
// each way, all stores now; the price is (G-1)/G·n more HBM written and read back on each GPU,
// cheap beside NVLink at large sizes. Expect it to pass step 4 where many GPUs load from each
// other at once (four GPUs and more), and to lose at small sizes, where its extra meeting costs.
//
// Synchronisation: block b pushes exactly the elements that block b of the receiving rank then
// sums (the same walk over the same chunk with the same grid, sum_range), so the push meeting
// (set kPushSet + parity, step 7's) is per block; the end meeting (step 4's) orders the
// all-gather's stores before any rank's kernel ends. Staging halves alternate by the generation's
// parity: a peer writes half p again only in call k+2, which starts after its call k+1 has
// finished, which ended with every block meeting this rank's blocks after their last reads of
// half p in call k.
//
// Workspace: 2 halves × (G-1) slots of one chunk (16-byte padded) on every GPU.
// Profiler: nvlink write bytes ≈ 2·(G-1)/G·n·sizeof(T) per GPU, nvlink reads near zero.
#pragma once

#include "handwritten/allreduce/allreduce4_two_shot.cuh"
#include "handwritten/allreduce/allreduce7_one_shot_push.cuh"

namespace kl::allreduce9 {

using namespace kl::allreduce;

// Stores element i of a chunk starting at `lo` into a slot that holds the chunk from its start.
template <class T>
struct StoreToSlot {
  T* slot;
  std::size_t lo;
  __device__ void vec(std::size_t i, const T (&v)[kVec<T>]) const { store_vec(slot + (i - lo), v); }
  __device__ void one(std::size_t i, T v) const { slot[i - lo] = v; }
};

// Two vectors in flight per thread and rank, not step 4's four: the staging pointers and the G
// sources would spill the 64 registers a thread may use with two 512-thread blocks per SM, and
// stores, unlike loads, need no round trip's worth in flight.
inline constexpr int kUnroll = 2;

template <class T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    two_shot_push(RankView<T> v, allreduce7::Staging<T> st, std::size_t chunk, bool vectors) {
  // The reduce-scatter, pushed: chunk j of this rank's input into its slot on rank j.
  const T* mine[1] = {v.in[v.rank]};
  for (int j = 0; j < v.gpus; ++j) {
    if (j == v.rank) continue;
    const allreduce4::ChunkRange c = allreduce4::chunk_range(v.n, chunk, j);
    // An empty chunk (n < G·kVec) has nothing to push.
    if (c.hi > c.lo)
      sum_range<kUnroll, true>(mine, 1, c.lo, c.hi, vectors, StoreToSlot<T>{st.at(v.gpus, j, v.rank), c.lo});
  }
  meet_peers(v, kPushSet + st.parity);
  // Chunk r from local memory, in rank order, into every rank's output. A slot holds the chunk
  // from its first element: the sources are shifted so that element i of the array is at [i].
  const allreduce4::ChunkRange c = allreduce4::chunk_range(v.n, chunk, v.rank);
  const T* src[kMaxGpus];
  for (int j = 0; j < v.gpus; ++j) src[j] = j == v.rank ? v.in[v.rank] : st.at(v.gpus, v.rank, j) - c.lo;
  if (c.hi > c.lo)
    sum_range<kUnroll, true>(src, v.gpus, c.lo, c.hi, vectors, allreduce4::StoreToAll<T>{v.out, v.gpus});
  meet_peers(v, kEndSet);
}

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const std::size_t chunk = allreduce4::chunk_elems<T>(a.n, g.gpus);
  allreduce7::Staging<T> st{};
  for (int r = 0; r < g.gpus; ++r) st.base[r] = static_cast<T*>(a.workspace[r]);
  st.slot = slot_elems<T>(chunk);
  const bool vectors = all_aligned16(a.in, g.gpus) && all_aligned16<T>(a.out, g.gpus) && all_aligned16<T>(st.base, g.gpus);
  const std::size_t items = vectors ? chunk / kVec<T> : chunk;
  const unsigned grid = barrier_grid(g, ceil_div(items, std::size_t{kUnroll}));
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    st.parity = static_cast<int>(v.gen & 1);
    two_shot_push<T><<<grid, kThreads, 0, rank_stream>>>(v, st, chunk, vectors);
  });
}

template <class T>
void prepare() {
  require_resident(two_shot_push<T>, "two_shot_push");
}

template <class T>
std::size_t workspace_bytes(AllreduceSize s) {
  const int gpus = s.gpus > 0 ? s.gpus : 1;
  return 2 * peer_slots(s) * slot_elems<T>(allreduce4::chunk_elems<T>(s.n, gpus)) * sizeof(T);
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce9_two_shot_push", "beyond",
               "the two-shot with the reduce-scatter pushed into the peers' staging: every NVLink byte a store"},
      .launch = launch<T>,
      .workspace_bytes = workspace_bytes<T>,
      .prepare = prepare<T>,
  };
}

}  // namespace kl::allreduce9
