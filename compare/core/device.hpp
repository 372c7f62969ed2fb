// Reading the machine the report describes (DeviceInfo: compare/report/row.hpp), and the hardware
// ceilings derived from it.
#pragma once

#include "compare/report/row.hpp"

#include <string>

namespace kl {

// Number of CUDA devices, or a one-line reason why there are none (no driver, no device...).
int cuda_device_count(std::string* why_none);

DeviceInfo query_device(int index);

// FP32 / FP64 FMA lanes per SM for a compute capability (0 when unknown).
void fma_lanes_per_sm(int major, int minor, int* fp32, int* fp64);

}  // namespace kl
