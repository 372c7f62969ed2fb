// Programmatic dependent launch (PDL; the CUDA programming guide, "Programmatic Dependent Launch
// and Synchronization"), said once for every kernel that uses it (reduce9, the all-reduce's LL128
// steps).
//
// A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may be scheduled
// before the kernel ahead of it in its stream has finished: as soon as every block of that kernel
// has called cudaTriggerProgrammaticLaunchCompletion (or exited). It must then call
// cudaGridDependencySynchronize before it touches anything the earlier kernel writes: that call
// returns once the earlier kernel has completed and its memory is visible. In a CUDA graph the
// captured attribute becomes a programmatic edge between two kernel nodes (CUDA 12.3 and newer).
//
// PDL needs compute capability 9.0. Before it the device calls compile away (KL_ARCH_AT_LEAST(90);
// griddepcontrol is an sm_90 instruction) and the attribute is never set, so launches are plain
// stream order. The attribute is set only where the loaded image of the kernel has the wait
// (programmatic_here): a compute_75 PTX image JIT-compiled on a 9.0 GPU has none, and launched
// early it would read what the earlier kernel has not yet written.
#pragma once

#include "common/device_helpers.cuh"

namespace kl::pdl {

// Lets the next kernel in the stream be scheduled now (it still waits for this one to finish).
__device__ __forceinline__ void allow_dependent_launch() {
#if KL_ARCH_AT_LEAST(90)
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Returns once the kernel before this one in the stream has completed and flushed its memory.
__device__ __forceinline__ void wait_for_primary_grid() {
#if KL_ARCH_AT_LEAST(90)
  cudaGridDependencySynchronize();
#endif
}

// Whether kKernel may be launched programmatically on the current device: compute capability 9.0
// and a loaded image built for 9.0 or newer (its wait is there). Asked once per kernel; call it
// first from prepare, outside any stream capture.
template <auto kKernel>
bool programmatic_here() {
  static const bool ok = kernel_runs_here(reinterpret_cast<const void*>(kKernel), 90);
  return ok;
}

// Launches kKernel<<<grid, block, smem, stream>>>(args...), programmatically dependent on the
// kernel before it in `stream` where `programmatic` asks and programmatic_here allows, in plain
// stream order elsewhere. Checked.
template <auto kKernel, class... Args>
void launch(bool programmatic, dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, Args... args) {
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = programmatic && programmatic_here<kKernel>() ? 1 : 0;
  KL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kKernel, args...));
}

}  // namespace kl::pdl
