// What the runner says once for families that drive several GPUs (allreduce), kept free of NCCL
// so the host suite tests it on any machine: how many GPUs a run drives, the NCCL environment the
// runner insists on, and nccl-tests' all-reduce metrics.
#pragma once

#include "compare/report/row.hpp"

#include <string>

namespace kl {

struct RunOptions;

// GPUs a multi-GPU problem drives: --gpus N, else every visible device (at most kMaxGpus).
// `visible`: the device count (compare passes cudaGetDeviceCount's).
int resolve_gpus(const RunOptions& opt, int visible);
// The visible device count (0 when there is no usable device), asked once per process.
int visible_gpus();

// Whether devices 0 .. gpus-1 have native peer atomics between every pair
// (cudaDevP2PAttrNativeAtomicSupported: NVLink, not PCIe); false where that cannot be asked (no
// GPU, fewer than `gpus`). Asked once per count.
bool all_pairs_nvlink(int gpus);

// NVLink multicast (NCCL's NVLS algorithms, which call cuMulticastCreate) stays off: sets
// NCCL_NVLS_ENABLE=0 when the environment does not set it, and returns the value in effect.
// Call it before NCCL initialises (compare's main does, and so does the code that makes the
// communicators, before ncclCommInitAll); a value the user set is left as it is.
std::string keep_nvlink_multicast_off();

// nccl-tests' all-reduce bandwidths (doc/PERFORMANCE.md there): for `bytes` per GPU reduced over
// `gpus` GPUs in `seconds`, algbw = bytes / seconds and busbw = algbw · 2(G-1)/G, the figure that
// does not depend on G and compares with a link's bandwidth.
double allreduce_bus_factor(int gpus);  // 2(G-1)/G
double allreduce_algbw_gbps(double bytes, double seconds);
double allreduce_busbw_gbps(double bytes, int gpus, double seconds);

// The family's Metric: the rate is busbw (GB/s), algbw is shown beside it; the ceiling is the
// peer copy bandwidth measured in the same run (0: not measured), described by `ceiling_label`.
Metric allreduce_metric(double bytes_per_gpu, int gpus, double peer_gbps, std::string ceiling_label);

}  // namespace kl
