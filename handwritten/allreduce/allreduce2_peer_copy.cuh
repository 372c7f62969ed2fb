// allreduce2_peer_copy — beyond the documents: peer copies plus a local sum.
//
// Lesson: the same shape as step 1 (bring every peer's data here, then sum locally), with the
// host taken out of the path. A peer copy moves each peer's input straight into a staging slot on
// this GPU (a copy engine, over NVLink), then the same local_sum kernel adds the G arrays
// in rank order from device memory. The copy runs at peer-copy bandwidth, the ceiling the family
// is measured against, but the sum only starts once the copy has ended: t ≈ n·sizeof(T)·(G-1) /
// peer bandwidth + the sum (3·n·sizeof(T) of HBM traffic for G = 2) + two event barriers and the
// copies' own start-up (several microseconds). So it loses to NCCL at every size: NCCL overlaps
// moving and adding in chunks. What it teaches is how much of the gap to step 1 was PCIe.
//
// Synchronisation (events): a first barrier before the copies, so no GPU copies a peer's input
// before that peer's stream has reached the operation; a second one after, so no GPU leaves the
// operation (and lets its input be overwritten) while a peer's copy may still be reading it.
//
// The copy is cudaMemcpyAsync with cudaMemcpyDefault: with unified addressing and peer access
// enabled it is the same copy-engine peer copy as cudaMemcpyPeerAsync, and unlike that call it
// may be captured into a CUDA graph (--ops).
//
// Workspace: G-1 staging slots of n elements on each GPU, each slot padded to 16 bytes.
// Profiler: on each GPU G-1 peer copies (nvlink__ bytes at copy-engine rate), then local_sum.
#pragma once

#include "handwritten/allreduce/allreduce_common.cuh"

namespace kl::allreduce2 {

using namespace kl::allreduce;

template <class T>
T* slot(const AllreduceArgs<T>& a, int rank, int peer) {
  return static_cast<T*>(a.workspace[rank]) + static_cast<std::size_t>(slot_of(peer, rank)) * slot_elems<T>(a.n);
}

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const OpStreams o = begin_op(g, s);
  event_barrier(g, o, 0);
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    dev.to(g.device[r]);
    for (int j = 0; j < g.gpus; ++j)
      if (j != r)
        KL_CUDA_CHECK(cudaMemcpyAsync(slot(a, r, j), a.in[j], a.n * sizeof(T), cudaMemcpyDefault, o.s[r]));
  }
  event_barrier(g, o, 1);
  launch_local_sums(a, o, dev, [&](int r, int j) { return slot(a, r, j); });
  end_op(g, o, s);
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce2_peer_copy", "beyond",
               "a peer copy of every peer's input into local staging (copy engines, NVLink), then a local sum"},
      .launch = launch<T>,
      .workspace_bytes = [](AllreduceSize s) {
        return peer_slots(s) * slot_elems<T>(s.n) * sizeof(T);
      },
  };
}

}  // namespace kl::allreduce2
