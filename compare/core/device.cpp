#include "compare/core/device.hpp"

#include "common/cuda_check.hpp"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <thrust/version.h>

namespace kl {

int cuda_device_count(std::string* why_none) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why_none) {
      int driver = 0;
      cudaDriverGetVersion(&driver);  // 0 when no driver is installed
      const std::string name = cudaGetErrorName(err);
      if (driver == 0 && (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice))
        *why_none = "no NVIDIA driver found (cudaGetDeviceCount: " + name +
                    "); install the NVIDIA driver for your GPU (it provides libcuda.so and nvidia-smi)";
      else if (err == cudaErrorInsufficientDriver)
        *why_none = "the NVIDIA driver supports CUDA " + std::to_string(driver / 1000) + "." +
                    std::to_string(driver % 1000 / 10) + ", older than this build's runtime (" + name +
                    "); update the NVIDIA driver";
      else
        *why_none = std::string("no CUDA device available (") + name + ": " + cudaGetErrorString(err) + ")";
    }
    cudaGetLastError();
    return 0;
  }
  if (count == 0 && why_none) *why_none = "no CUDA device available (cudaGetDeviceCount returned 0)";
  return count;
}

void fma_lanes_per_sm(int major, int minor, int* fp32, int* fp64) {
  // From the CUDA C++ Programming Guide's throughput table (results per clock per SM).
  int f32 = 0, f64 = 0;
  const int cc = major * 10 + minor;
  switch (cc) {
    case 70: case 72: f32 = 64; f64 = 32; break;
    case 75: f32 = 64; f64 = 2; break;
    case 80: f32 = 64; f64 = 32; break;
    case 86: case 87: case 89: f32 = 128; f64 = 2; break;
    case 90: f32 = 128; f64 = 64; break;
    case 100: case 103: f32 = 128; f64 = 64; break;
    case 120: case 121: f32 = 128; f64 = 2; break;
    default: break;
  }
  *fp32 = f32;
  *fp64 = f64;
}

DeviceInfo query_device(int index) {
  DeviceInfo d;
  d.index = index;
  KL_CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp p{};
  KL_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.mem_bus_bits = p.memoryBusWidth;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.global_mem_bytes = p.totalGlobalMem;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  int khz = 0;
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index));
  d.sm_clock_mhz = khz / 1e3;
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index));
  d.mem_clock_mhz = khz / 1e3;
  KL_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  KL_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  d.cublas_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  d.cccl_version = std::to_string(THRUST_MAJOR_VERSION) + "." + std::to_string(THRUST_MINOR_VERSION) +
                   "." + std::to_string(THRUST_SUBMINOR_VERSION);
  d.dram_gbps_theoretical = 2.0 * d.mem_clock_mhz * 1e6 * (d.mem_bus_bits / 8.0) / 1e9;
  fma_lanes_per_sm(d.cc_major, d.cc_minor, &d.fp32_lanes_per_sm, &d.fp64_lanes_per_sm);
  // An FMA is two floating-point operations.
  d.fp32_tflops_peak = 2.0 * d.fp32_lanes_per_sm * d.sm_count * d.sm_clock_mhz * 1e6 / 1e12;
  d.fp64_tflops_peak = 2.0 * d.fp64_lanes_per_sm * d.sm_count * d.sm_clock_mhz * 1e6 / 1e12;
  return d;
}

}  // namespace kl
