// The CUDA side of compare/core/requirements.hpp: the current device's limits and the image of a
// kernel that loaded on it.
#include "compare/core/requirements.hpp"

#include <cuda_runtime_api.h>

#include <memory>

namespace kl {

const DeviceLimits* current_device_limits() {
  static const std::unique_ptr<DeviceLimits> limits = []() -> std::unique_ptr<DeviceLimits> {
    int dev = 0;
    cudaDeviceProp p{};
    int optin = 0, clusters = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
      cudaGetLastError();
      clusters = 0;
    }
    auto d = std::make_unique<DeviceLimits>(device_limits(p.name, 10 * p.major + p.minor, static_cast<std::size_t>(optin)));
    d->clusters = clusters != 0;
    return d;
  }();
  return limits.get();
}

int loaded_ptx_version(const void* kernel) {
  if (!kernel) return 0;
  cudaFuncAttributes a{};
  const cudaError_t err = cudaFuncGetAttributes(&a, kernel);
  if (err != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so the next call does not see it
    return err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction ? kNoImage : 0;
  }
  return a.ptxVersion;
}

std::string check_on_this_device(const Requirements& r) {
  const DeviceLimits* d = current_device_limits();
  if (!d) return {};
  std::string why = why_not_runnable(r, *d);  // the device first: no image to load where it cannot run
  if (why.empty() && r.kernel) why = why_not_runnable(r, *d, loaded_ptx_version(r.kernel));
  return why;
}

std::string slow_note_on_this_device(const Requirements& r) {
  const DeviceLimits* d = current_device_limits();
  return d ? slow_note(r, *d) : std::string();
}

}  // namespace kl
