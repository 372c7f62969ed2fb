// The GPUs of a multi-GPU operation (the allreduce family), as its launchers see them, and the
// fork/join that fits such an operation into the runner's single-stream timing.
//
// One process drives every GPU. Rank r is device r (devices 0 .. G-1). What the ranks share for a
// whole run is made once, outside any timing (compare/families/allreduce_group.cpp): a stream per GPU,
// events, peer access between every pair, a zeroed area of flag words on every GPU that peers
// write to (the cross-GPU barriers of handwritten/allreduce/allreduce_common.cuh), and NCCL's
// communicators (ncclCommInitAll).
//
// Two orders, kept apart on purpose:
//   - Each variant is correct on its own in NCCL's per-GPU contract: rank r's part of the
//     operation is ordered after the work before it on rank r's stream, rank r's output is final
//     when rank r's part has finished, and rank r's input may be overwritten from then on. So a
//     rank never reads a peer's input before that peer has entered the operation, never finishes
//     while a peer may still read its input, and a second call cannot overtake the first. The
//     variants say how (flags or events); the GPU suite's race test runs them in exactly this
//     contract (ordered_by_runner = false: no fork, no join, inputs rewritten between calls).
//   - The runner times one stream (on the runner's GPU): begin_op records an event on it that
//     every rank's stream waits for (the fork), end_op makes it wait for an event on every rank's
//     stream (the join). The runner's start and stop events then measure the operation from the
//     first GPU's start to the last GPU's end. The runner's rank works on the runner's stream
//     itself (one fork edge and one join edge fewer to enqueue).
#pragma once

#include "common/cuda_check.hpp"
#include "common/args/allreduce_args.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

struct ncclComm;  // nccl.h: typedef struct ncclComm* ncclComm_t

namespace kl {

// Flag words on each GPU: kFlagSets sets (a barrier's use: start, end, two parities of a push),
// each with one word per (block, sending rank). Kernels that meet their peers block by block run
// at most kBarrierBlocks blocks.
inline constexpr int kBarrierBlocks = 1024;
inline constexpr int kFlagSets = 4;
inline constexpr std::size_t kFlagWords = std::size_t{kFlagSets} * kBarrierBlocks * kMaxGpus;
// Event barriers an operation may use (each a record on every rank and waits on every peer's).
inline constexpr int kEventBarriers = 2;
// The lines of the floor steps (handwritten/allreduce/allreduce8_one_shot_ll.cuh and
// allreduce10_one_shot_ll128.cuh), made once with the group and zeroed: on each GPU one region per
// line protocol, each two halves × (G-1) slots, one per peer, of kLineSlotBytes. An LL line is 16
// bytes carrying 8 bytes of a peer's data and two copies of the operation's epoch, so one slot
// holds a message of kLineMaxBytes per GPU; an LL128 line is 128 bytes carrying 120. The protocols
// never share a region: an LL reader checks epochs where an LL128 line has data.
inline constexpr std::size_t kLineMaxBytes = std::size_t{1} << 20;
inline constexpr std::size_t kLineSlotBytes = 2 * kLineMaxBytes;
inline constexpr std::size_t kLine128MaxBytes = kLineSlotBytes / 128 * 120;
inline constexpr int kLineRegions = 2;  // 0: LL, 1: LL128
inline constexpr std::size_t line_region_bytes(int gpus) {
  return 2 * static_cast<std::size_t>(gpus - 1) * kLineSlotBytes;
}

// The ring step's events (handwritten/allreduce/allreduce13_ring_copy_engines.cuh) on each rank:
// three kinds (a segment copied, added, gathered) × at most kMaxGpus - 1 ring steps × at most
// kRingSegments segments of a chunk.
inline constexpr int kRingSegments = 4;
inline constexpr int kRingEvents = 3 * (kMaxGpus - 1) * kRingSegments;

struct GpuGroup {
  int gpus = 0;
  int device[kMaxGpus] = {};  // CUDA ordinal of rank r (r itself: devices 0 .. G-1)
  int sms[kMaxGpus] = {};     // multiprocessors of rank r's GPU
  int runner_rank = 0;        // the rank whose GPU holds the runner's stream
  cudaStream_t stream[kMaxGpus] = {};  // rank r's stream (non-blocking), on device r
  // Rank r's second stream (non-blocking, device r): the ring step's copies run on it beside the
  // adds on the first. It joins an operation by waiting for an event of the rank's stream and is
  // waited for before the rank's part ends.
  cudaStream_t copy_stream[kMaxGpus] = {};
  cudaEvent_t ring[kMaxGpus][kRingEvents] = {};  // the ring step's events, on device r
  cudaEvent_t fork = nullptr;          // recorded on the runner's stream
  cudaEvent_t joined[kMaxGpus] = {};   // rank r's end of an operation
  cudaEvent_t mark[kEventBarriers][kMaxGpus] = {};
  std::uint64_t* flags[kMaxGpus] = {};  // rank r's kFlagWords flag words (device r), zeroed once
  // The last generation handed out (one counter, shared by every copy of the group): each
  // operation takes the next, so no flag value written by an earlier operation can satisfy a
  // later one's wait.
  std::uint64_t* generation = nullptr;
  // The floor steps' lines on rank r (device r; peers write into them), zeroed once:
  // kLineRegions regions of line_region_bytes(G).
  void* lines[kMaxGpus] = {};
  // Rank r's operation counter for the floor steps (word 0: the last epoch done; word 1: its
  // blocks' finishing count), on device r, zeroed once. Kept on the GPU, not drawn on the host,
  // so a captured graph of operations replays with new epochs.
  std::uint32_t* epoch[kMaxGpus] = {};
  // Whether every pair has native peer atomics (cudaDevP2PAttrNativeAtomicSupported): true over
  // NVLink, false over PCIe. The LL128 steps rely on NVLink's whole 128-byte stores and need it
  // (AllreduceSize::nvlink says the same to a variant's hooks).
  bool native_peer_atomics = false;
  ncclComm* comm[kMaxGpus] = {};
  // true: operations fork from and join back to the runner's stream (how they are timed).
  // false: each rank's part is ordered only on its own stream, as NCCL's (the race test).
  bool ordered_by_runner = true;
};

// Sets the current device for per-rank calls and puts the caller's back on exit (launchers are
// called on the runner's device and must leave it so). The exit always sets it: a library called
// inside the scope (NCCL) may have moved it without telling us.
class DeviceScope {
 public:
  DeviceScope() { KL_CUDA_CHECK(cudaGetDevice(&saved_)); current_ = saved_; }
  ~DeviceScope() { (void)cudaSetDevice(saved_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  void to(int device) {
    if (device != current_) KL_CUDA_CHECK(cudaSetDevice(device));
    current_ = device;
  }

 private:
  int saved_ = 0, current_ = 0;
};

// The stream each rank works on during one operation.
struct OpStreams {
  cudaStream_t s[kMaxGpus] = {};
};

// The fork: every rank's stream waits for the runner's stream (see the header comment).
inline OpStreams begin_op(const GpuGroup& g, cudaStream_t runner) {
  OpStreams o;
  for (int r = 0; r < g.gpus; ++r) o.s[r] = g.stream[r];
  if (!g.ordered_by_runner) return o;
  o.s[g.runner_rank] = runner;
  KL_CUDA_CHECK(cudaEventRecord(g.fork, runner));
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    if (r == g.runner_rank) continue;
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaStreamWaitEvent(o.s[r], g.fork, 0));
  }
  return o;
}

// The join: the runner's stream waits for every rank's stream.
inline void end_op(const GpuGroup& g, const OpStreams& o, cudaStream_t runner) {
  if (!g.ordered_by_runner) return;
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    if (r == g.runner_rank) continue;
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaEventRecord(g.joined[r], o.s[r]));
  }
  dev.to(g.device[g.runner_rank]);
  for (int r = 0; r < g.gpus; ++r)
    if (r != g.runner_rank) KL_CUDA_CHECK(cudaStreamWaitEvent(runner, g.joined[r], 0));
}

// Every rank's stream goes on only once every rank's stream has reached this point (the event
// form of a barrier: no kernel spins, the GPUs' front ends wait). `which` < kEventBarriers picks
// the events, so two barriers of one operation do not share them. Waits bind to the record made
// just before them on the host, so operations enqueued back to back never mix their barriers.
inline void event_barrier(const GpuGroup& g, const OpStreams& o, int which) {
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    dev.to(g.device[r]);
    KL_CUDA_CHECK(cudaEventRecord(g.mark[which][r], o.s[r]));
  }
  for (int r = 0; r < g.gpus; ++r) {
    dev.to(g.device[r]);
    for (int j = 0; j < g.gpus; ++j)
      if (j != r) KL_CUDA_CHECK(cudaStreamWaitEvent(o.s[r], g.mark[which][j], 0));
  }
}

// The generation of a new operation (never 0: the flags start at 0).
inline std::uint64_t next_generation(const GpuGroup& g) { return ++*g.generation; }

}  // namespace kl
