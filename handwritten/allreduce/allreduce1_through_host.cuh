// allreduce1_through_host — beyond the documents: the all-reduce ladder's first step, the GPUs
// meeting in host memory.
//
// Lesson: why peer-to-peer matters. Without it, GPUs exchange data through the host. Each GPU
// copies its n elements to its own page-locked host buffer (a device-to-host copy on its copy
// engine, over its PCIe link); when every copy has landed (an event barrier: each GPU's stream
// waits for the others' copy events), each GPU sums all G buffers in one kernel, reading the
// peers' buffers straight from host memory (mapped page-locked memory: loads over PCIe, no
// second copy) and its own input from device memory, in rank order. The CPU never touches the
// data: the host is only where the GPUs meet, so what this step measures is the path, not a CPU
// loop. Every byte crosses PCIe G times (out once, back once to each of G-1 peers), against
// NVLink's one crossing in the steps after: expect ~n·sizeof(T)·(1/PCIe + (G-1)/PCIe) seconds,
// an order of magnitude behind NCCL at large sizes, and at small sizes the cost of two event
// barriers (the GPUs' front ends waiting on each other's events, several microseconds each).
//
// Synchronisation (events, in NCCL's per-GPU contract of common/gpu_group.hpp): the first barrier
// orders every GPU's reads of a host buffer after its owner's copy into it; the second keeps
// every GPU in the operation until every peer has read its host buffer, so a next call's copy
// cannot overwrite it under a reader.
//
// Profiler: on each GPU a D2H copy, a gap (the barrier), then local_sum at PCIe speed
// (pcie__read_bytes on the host buffers); no NVLink traffic at all.
#pragma once

#include "handwritten/allreduce/allreduce_common.cuh"

namespace kl::allreduce1 {

using namespace kl::allreduce;

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const OpStreams o = begin_op(g, s);
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaMemcpyAsync(a.pinned[r], a.in[r], a.n * sizeof(T), cudaMemcpyDeviceToHost, o.s[r]));
  }
  event_barrier(g, o, 0);
  launch_local_sums(a, o, dev, [&](int, int j) { return a.pinned[j]; });
  event_barrier(g, o, 1);
  end_op(g, o, s);
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce1_through_host", "beyond",
               "D2H to pinned host buffers, event barrier, each GPU sums the peers' host buffers over PCIe"},
      .launch = launch<T>,
  };
}

}  // namespace kl::allreduce1
