// The allreduce family's launch arguments and its two lists.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <vector>

namespace kl {

// allreduce: G GPUs (one process drives them all) each hold n elements; afterwards every GPU holds
// the element-wise sum of all G. Rank r is the r-th GPU of the group
// (compare/families/family_allreduce.hpp). in[r], out[r] and workspace[r] live on rank r's GPU.
// `group` holds what the GPUs share for the whole run: streams, events, the cross-GPU flags, NCCL's
// communicators (common/gpu_group.hpp). A launcher is given the runner's stream: it forks from it to
// every GPU's stream and joins back (common/gpu_group.hpp), so the runner's events time the
// operation from the first GPU's start to the last GPU's end.
inline constexpr int kMaxGpus = 8;
struct AllreduceSize {
  std::size_t n;       // elements per GPU
  int gpus;            // G
  bool nvlink = false;  // every pair has native peer atomics (NVLink): the LL128 steps need it
};
struct GpuGroup;
template <class T>
struct AllreduceArgs {
  using Size = AllreduceSize;
  const GpuGroup* group;
  std::size_t n;
  const T* in[kMaxGpus];
  T* out[kMaxGpus];
  void* workspace[kMaxGpus];  // workspace_bytes({n, G}) bytes on each GPU; undefined on entry
  T* pinned[kMaxGpus];        // n elements of page-locked, mapped host memory per rank (the host path)
};

template <class T> using AllreduceVariant = Variant<AllreduceArgs<T>>;

template <class T> std::vector<AllreduceVariant<T>> allreduce_handwritten();  // int, float, double
template <class T> std::vector<AllreduceVariant<T>> allreduce_library();

}  // namespace kl
