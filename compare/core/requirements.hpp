// Whether a variant can run on this GPU, decided before it runs (issue 21).
//
// A variant says what it needs in its descriptor (Requirements, common/variant.hpp): a minimum
// compute capability and why, the dynamic shared memory per block it asks for, whether it
// launches thread-block clusters, and one of its kernels. The runner compares that with the
// device (DeviceLimits) and with the image of that kernel the driver actually loaded: a build
// for compute_75 PTX running on an H100 loads code with ptxVersion 75, in which a body guarded
// for 8.0 or 9.0 is absent, so the check reads the loaded image's ptxVersion as CUB and nvbench
// do (cudaFuncGetAttributes). Where the variant cannot run, its row is `skipped` with one line:
// what it needs and what this GPU has. Never a launch failure.
//
// The decision is pure (this header and requirements.cpp, no CUDA): the host suite checks it
// against descriptions of real GPUs (tests/host/test_requirements.cpp). The CUDA side that reads
// the device and the loaded image is device_limits.cpp.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <string>

namespace kl {

struct DeviceLimits {
  std::string name;
  int compute_capability = 0;   // 10*major+minor
  std::size_t smem_optin = 0;   // cudaDevAttrMaxSharedMemoryPerBlockOptin, bytes
  bool clusters = false;        // thread-block clusters (9.0+)
  bool fp64_tensor_cores = false;
};

// The FP64 tensor cores (DMMA at full rate): 8.0 (A100), 9.0 (H100/H200), 10.0 (B200). Others
// (8.6, 8.7, 8.9, 12.x) execute the instruction at a small fraction of that rate.
bool has_fp64_tensor_cores(int cc);
// A device as CUDA reports it, the rest derived from its compute capability.
DeviceLimits device_limits(std::string name, int cc, std::size_t smem_optin);

// "8.6" for 86.
std::string cc_text(int cc);
// True when the variant needs anything beyond what every supported GPU has (so the runner asks).
bool has_requirements(const Requirements& r);

// What a variant needs, in a few words for --list and the docs ("" when nothing beyond 7.5):
// "needs 8.0 (cp.async), 97 KB of shared memory per block".
std::string needs_text(const Requirements& r);

// loaded_ptx_version: the ptxVersion of the needs.kernel image that loaded on this device (75
// for compute_75 code), 0 = unknown or no kernel named (not checked), kNoImage = the build has
// no code for this GPU at all.
inline constexpr int kNoImage = -1;
// "" when the variant runs here; otherwise the one-line reason, e.g.
// "needs compute capability 9.0 for thread-block clusters and distributed shared memory; this GPU is 8.6".
std::string why_not_runnable(const Requirements& r, const DeviceLimits& d, int loaded_ptx_version = 0);
// "" unless the variant runs here but on a slow path the row should say (DMMA without FP64
// tensor cores: the instruction runs, slowly). The runner adds it to the row's note and sets the
// row's slow_path (compare/report/row.hpp), which the reports read.
std::string slow_note(const Requirements& r, const DeviceLimits& d);

// The CUDA side (device_limits.cpp). The current device's limits, read once per process;
// nullptr when there is no device (then nothing is checked: the run has already stopped).
const DeviceLimits* current_device_limits();
// ptxVersion of `kernel`'s loaded image on the current device; kNoImage when the build has no
// code for it; 0 for a null kernel.
int loaded_ptx_version(const void* kernel);
// why_not_runnable on the current device with the kernel's loaded image ("" with no device).
std::string check_on_this_device(const Requirements& r);
// slow_note on the current device.
std::string slow_note_on_this_device(const Requirements& r);

}  // namespace kl
