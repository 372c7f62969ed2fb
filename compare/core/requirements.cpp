#include "compare/core/requirements.hpp"

#include <cstdio>

namespace kl {

bool has_fp64_tensor_cores(int cc) { return cc == 80 || cc == 90 || cc == 100; }

DeviceLimits device_limits(std::string name, int cc, std::size_t smem_optin) {
  return {std::move(name), cc, smem_optin, cc >= 90, has_fp64_tensor_cores(cc)};
}

std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

bool has_requirements(const Requirements& r) {
  return r.compute_capability > 0 || r.shared_bytes > 0 || r.clusters || r.kernel != nullptr;
}

namespace {
// 101376 -> "99 KB", 149504 -> "146 KB", 50176 -> "49 KB" (KB = 1024 bytes, as CUDA's tables).
std::string kb(std::size_t bytes) {
  char buf[32];
  if (bytes % 1024 == 0) std::snprintf(buf, sizeof buf, "%zu KB", bytes / 1024);
  else std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1024.0);
  return buf;
}
std::string for_what(const Requirements& r) {
  return r.feature.empty() ? std::string() : " for " + std::string(r.feature);
}
}  // namespace

std::string needs_text(const Requirements& r) {
  std::string out;
  if (r.compute_capability > 0) {
    out = "needs " + cc_text(r.compute_capability);
    if (!r.feature.empty()) out += " (" + std::string(r.feature) + ")";
  }
  if (r.clusters && r.compute_capability < 90) out += std::string(out.empty() ? "needs" : ",") + " clusters";
  if (r.shared_bytes > 0) out += std::string(out.empty() ? "needs " : ", ") + kb(r.shared_bytes) + " of shared memory per block";
  return out;
}

std::string why_not_runnable(const Requirements& r, const DeviceLimits& d, int loaded_ptx_version) {
  const std::string gpu = cc_text(d.compute_capability);
  if (r.compute_capability > d.compute_capability)
    return "needs compute capability " + cc_text(r.compute_capability) + for_what(r) + "; this GPU is " + gpu;
  if (r.clusters && !d.clusters)
    return "needs thread-block clusters (compute capability 9.0)" + std::string("; this GPU is ") + gpu;
  if (r.shared_bytes > d.smem_optin)
    return "needs " + kb(r.shared_bytes) + " of shared memory per block; this GPU (" + gpu + ") allows " +
           kb(d.smem_optin);
  if (loaded_ptx_version == kNoImage)
    return "this build has no code for this GPU (" + gpu + "): build with -DCMAKE_CUDA_ARCHITECTURES=" +
           std::to_string(d.compute_capability);
  if (loaded_ptx_version > 0 && r.compute_capability > loaded_ptx_version)
    return "needs compute capability " + cc_text(r.compute_capability) + for_what(r) +
           "; the code loaded on this GPU (" + gpu + ") was built for compute_" + std::to_string(loaded_ptx_version) +
           ", without it: build with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(d.compute_capability);
  return {};
}

std::string slow_note(const Requirements& r, const DeviceLimits& d) {
  if (r.feature == kFeatureFp64Mma && !d.fp64_tensor_cores && d.compute_capability >= r.compute_capability)
    return "slow here: this GPU (" + cc_text(d.compute_capability) +
           ") has no FP64 tensor cores, so its DMMA instructions run at a small fraction of the rate of 8.0, 9.0 "
           "and 10.0 (run anyway, not hidden)";
  return {};
}

}  // namespace kl
