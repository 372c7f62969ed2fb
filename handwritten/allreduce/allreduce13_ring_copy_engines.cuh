// allreduce13_ring_copy_engines — beyond the documents: NCCL's ring, with the copy engines moving
// every byte and the SMs only adding.
//
// Lesson: steps 4-9 move data with the SMs, loading from peers or storing into them, all peers at
// once. Past a few MiB that is a bandwidth contest, and the fabric has a ceiling for each way of
// filling it: SM loads from every peer, SM stores into every peer, copy engines pushing into every
// peer, and a copy engine pushing into one peer only. On NVSwitch machines the last is the
// highest of the four (docs/allreduce.md, "The bandwidth steps"), and it is the ring's pattern:
// each GPU sends only to the next. So take NCCL's ring and give its moving to the copy engines:
//   reduce-scatter, G-1 steps: at step k rank r copies chunk (r-k) mod G of its running sum (its
//     input at step 0) into a staging slot on rank r+1, which adds its own input's chunk to it, in
//     its output. After G-1 steps rank r holds the full sum of chunk (r+1) mod G.
//   all-gather, G-1 steps: at step k rank r copies chunk (r+1-k) mod G of its output into the same
//     place on rank r+1.
// Each GPU sends 2(G-1)/G·n elements, the least an all-reduce must (busbw's count), all of it one
// copy at a time to one peer. The chunks are cut into at most kRingSegments segments and each
// segment goes round on its own, so a GPU copies segment s+1 while its neighbour adds segment s.
//
// Sum order: chunk q is summed around the ring from rank q, ((x_q + x_q+1) + ...) + x_q-1, not in
// rank order as the other steps do (NCCL's ring does the same). The sum is computed once and
// copied, so every rank still ends with bit-identical results, within the family's gamma(G-1)
// bound.
//
// Synchronisation (events, no spinning kernel): rank r's copy stream joins the operation once r and
// r+1 have both reached it (r+1's staging and output are free); each copy of a segment waits for
// the add that made it (or, in the all-gather, for the copy that brought it); each add waits for
// the copy that brought its segment; rank r's part ends once its copy stream is done (its input
// and output are no longer read) and the last copy into it has landed. Every event wait binds to
// the record made just before it on the host, so operations back to back never mix their events.
// The host enqueues 9(G-1) calls per segment and rank (six per reduce-scatter step: a wait, the
// copy, a record, a wait, the add, a record; three per all-gather step): a cold sample of a small
// message is the host's time, so the step is for large messages (allreduce_auto,
// allreduce_plan.hpp).
//
// Workspace: G-1 staging slots of one chunk (16-byte padded) on every GPU, one per step, so a
// segment copied in at step k+1 never lands on one still being added from step k.
// Profiler: on each GPU 2(G-1)·S copies (nvlink bytes at copy-engine rate) and (G-1)·S local_sum
// kernels reading two segments and writing one.
#pragma once

#include "handwritten/allreduce/allreduce4_two_shot.cuh"

#include <algorithm>

namespace kl::allreduce13 {

using namespace kl::allreduce;

// A segment of at least this many bytes: fewer copies and events to enqueue per operation where
// the chunks are small, as many segments as the group has events for where they are large.
inline constexpr std::size_t kSegmentMinBytes = std::size_t{16} << 20;

template <class T>
int segments(std::size_t chunk) {
  const std::size_t s = ceil_div(chunk * sizeof(T), kSegmentMinBytes);
  return static_cast<int>(std::clamp<std::size_t>(s, 1, kRingSegments));
}

// GpuGroup::ring's events on each rank: kind (0 copied, 1 added, 2 gathered), step, segment.
constexpr int event_index(int kind, int step, int segment) {
  return (kind * (kMaxGpus - 1) + step) * kRingSegments + segment;
}
enum : int { kCopied = 0, kAdded = 1, kGathered = 2 };
static_assert(event_index(kGathered, kMaxGpus - 2, kRingSegments - 1) == kRingEvents - 1,
              "GpuGroup::ring holds one event per kind, ring step and segment");

template <class T>
struct Ring {
  const AllreduceArgs<T>& a;
  const GpuGroup& g;
  std::size_t chunk, seg, slot;

  // Elements [lo, hi) of segment s of chunk q (empty past n), and where chunk q starts.
  allreduce4::ChunkRange range(int q, int s) const {
    const allreduce4::ChunkRange c = allreduce4::chunk_range(a.n, chunk, q);
    const std::size_t lo = std::min(c.lo + static_cast<std::size_t>(s) * seg, c.hi);
    return {lo, std::min(lo + seg, c.hi)};
  }
  std::size_t chunk_lo(int q) const { return allreduce4::chunk_range(a.n, chunk, q).lo; }
  T* stage(int rank, int step) const { return static_cast<T*>(a.workspace[rank]) + static_cast<std::size_t>(step) * slot; }
  int next(int r) const { return (r + 1) % g.gpus; }
  int prev(int r) const { return (r + g.gpus - 1) % g.gpus; }
  cudaEvent_t event(int rank, int kind, int step, int s) const { return g.ring[rank][event_index(kind, step, s)]; }
};

template <class T>
void copy(T* dst, const T* src, const allreduce4::ChunkRange& e, cudaStream_t stream) {
  if (e.hi > e.lo) KL_CUDA_CHECK(cudaMemcpyAsync(dst, src, (e.hi - e.lo) * sizeof(T), cudaMemcpyDefault, stream));
}

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const int G = g.gpus;
  const std::size_t chunk = allreduce4::chunk_elems<T>(a.n, G);
  const int S = segments<T>(chunk);
  const Ring<T> ring{a, g, chunk, ceil_div(ceil_div(chunk, static_cast<std::size_t>(S)), std::size_t{kVec<T>}) * kVec<T>,
                     slot_elems<T>(chunk)};
  const OpStreams o = begin_op(g, s);
  DeviceScope dev;
  // Entry: rank r's copies write into r+1, so they wait for both to have reached the operation.
  for (int r = 0; r < G; ++r) {
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaEventRecord(g.mark[0][r], o.s[r]));
  }
  for (int r = 0; r < G; ++r) {
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaStreamWaitEvent(g.copy_stream[r], g.mark[0][r], 0));
    KL_CUDA_CHECK(cudaStreamWaitEvent(g.copy_stream[r], g.mark[0][ring.next(r)], 0));
  }
  // Reduce-scatter: rank r sends chunk (r-k) mod G, rank r+1 adds its own input to it.
  for (int k = 0; k < G - 1; ++k)
    for (int r = 0; r < G; ++r) {
      const int to = ring.next(r), q = (r - k + G) % G;
      const T* from = k == 0 ? a.in[r] : a.out[r];
      for (int sg = 0; sg < S; ++sg) {
        const allreduce4::ChunkRange e = ring.range(q, sg);
        T* staged = ring.stage(to, k) + (e.lo - ring.chunk_lo(q));
        dev.to(g.device[r]);
        if (k > 0) KL_CUDA_CHECK(cudaStreamWaitEvent(g.copy_stream[r], ring.event(r, kAdded, k - 1, sg), 0));
        copy(staged, from + e.lo, e, g.copy_stream[r]);
        KL_CUDA_CHECK(cudaEventRecord(ring.event(r, kCopied, k, sg), g.copy_stream[r]));
        dev.to(g.device[to]);
        KL_CUDA_CHECK(cudaStreamWaitEvent(o.s[to], ring.event(r, kCopied, k, sg), 0));
        if (e.hi > e.lo) {
          LocalSources<T> src{};
          src.src[0] = staged;  // the running sum first: chunk q in ring order from rank q
          src.src[1] = a.in[to] + e.lo;
          launch_local_sum(src, 2, a.out[to] + e.lo, e.hi - e.lo, g.sms[to], o.s[to]);
        }
        KL_CUDA_CHECK(cudaEventRecord(ring.event(to, kAdded, k, sg), o.s[to]));
      }
    }
  // All-gather: rank r sends chunk (r+1-k) mod G of its output to the same place on rank r+1.
  for (int k = 0; k < G - 1; ++k)
    for (int r = 0; r < G; ++r) {
      const int to = ring.next(r), q = (r + 1 - k + G) % G;
      dev.to(g.device[r]);
      for (int sg = 0; sg < S; ++sg) {
        const allreduce4::ChunkRange e = ring.range(q, sg);
        const cudaEvent_t ready = k == 0 ? ring.event(r, kAdded, G - 2, sg) : ring.event(ring.prev(r), kGathered, k - 1, sg);
        KL_CUDA_CHECK(cudaStreamWaitEvent(g.copy_stream[r], ready, 0));
        copy(a.out[to] + e.lo, a.out[r] + e.lo, e, g.copy_stream[r]);
        KL_CUDA_CHECK(cudaEventRecord(ring.event(r, kGathered, k, sg), g.copy_stream[r]));
      }
    }
  // Exit: rank r's part ends when its own copies are done and the last copy into it has landed
  // (copies on one stream land in order).
  for (int r = 0; r < G; ++r) {
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaStreamWaitEvent(o.s[r], ring.event(r, kGathered, G - 2, S - 1), 0));
    KL_CUDA_CHECK(cudaStreamWaitEvent(o.s[r], ring.event(ring.prev(r), kGathered, G - 2, S - 1), 0));
  }
  end_op(g, o, s);
}

template <class T>
std::size_t workspace_bytes(AllreduceSize s) {
  const int gpus = s.gpus > 0 ? s.gpus : 1;
  return peer_slots(s) * slot_elems<T>(allreduce4::chunk_elems<T>(s.n, gpus)) * sizeof(T);
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce13_ring_copy_engines", "beyond",
               "NCCL's ring with the copy engines moving every byte, one peer at a time, and the SMs only adding; "
               "chunks cut into segments that go round the ring on their own"},
      .launch = launch<T>,
      .workspace_bytes = workspace_bytes<T>,
  };
}

}  // namespace kl::allreduce13
