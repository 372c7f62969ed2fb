// The runner's side of the allreduce family's GPUs: whether a group can run here, the group itself
// (made once per process, outside any timing), and the ceiling measured on it. Built only with
// NCCL (CMakeLists.txt); common/gpu_group.hpp is what the kernels see of it.
#pragma once

#include "common/gpu_group.hpp"
#include "compare/core/stats.hpp"
#include "compare/core/timing.hpp"

#include <string>

namespace kl {

// Why `gpus` GPUs (devices 0 .. gpus-1, the runner's stream on `runner_device`) cannot run an
// all-reduce here, in one line; empty when they can. Checks the count, that the runner's device is
// one of them, peer access between every pair, and that launches are asynchronous.
std::string gpu_group_unsupported(int gpus, int runner_device);

// The group for (gpus, runner_device), made on first use: a non-blocking stream and events per
// GPU, peer access between every pair, kFlagWords zeroed flag words per GPU, the floor step's
// zeroed lines and epoch counter, NCCL communicators (ncclCommInitAll, with NVLink multicast kept
// off). Kept to the end of the process, then destroyed (unless a fault left the CUDA context
// unusable).
const GpuGroup& gpu_group(int gpus, int runner_device);

// The ceiling: GB/s each GPU sends (and receives) when every rank copies `bytes` to the next
// rank at once with cudaMemcpyPeerAsync (for two GPUs: both directions of the link at once),
// timed by `timer` like the operation. Measured once per group and process.
double peer_copy_gbps(const GpuGroup& g, Timer& timer, const StopRule& rule);

// "NCCL 2.28.9" (the library loaded at run time).
std::string nccl_version_text();

}  // namespace kl
