// What the report says about the machine, and the hardware ceilings derived from it.
#pragma once

#include <string>

namespace kl {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;      // peak (boost) clock the driver reports
  double mem_clock_mhz = 0;
  int mem_bus_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  std::size_t smem_per_sm = 0;
  int driver_version = 0, runtime_version = 0;
  std::string cublas_version, cccl_version;
  // Derived: theoretical DRAM bandwidth (double data rate) and FMA peaks from clocks × lanes.
  double dram_gbps_theoretical = 0;
  double fp32_tflops_peak = 0, fp64_tflops_peak = 0;
  int fp32_lanes_per_sm = 0, fp64_lanes_per_sm = 0;
};

// Number of CUDA devices, or a one-line reason why there are none (no driver, no device...).
int cuda_device_count(std::string* why_none);

DeviceInfo query_device(int index);

// FP32 / FP64 FMA lanes per SM for a compute capability (0 when unknown).
void fma_lanes_per_sm(int major, int minor, int* fp32, int* fp64);

}  // namespace kl
