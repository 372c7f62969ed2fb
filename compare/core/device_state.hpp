// The GPU's state around a run, for comparing runs honestly: SM and memory clocks, temperature,
// power, the reasons the driver gives for holding clocks down, and whether application clocks
// differ from their defaults (a locked or pinned clock). Read through NVML, which ships with the
// driver: loaded at run time (dlopen), so the tools still start on machines without a driver
// (CI) and the report says why the state is missing. DeviceState itself, what the report records,
// is compare/report/row.hpp's.
#pragma once

#include "compare/report/row.hpp"

namespace kl {

// Reads the state of the CUDA device `cuda_index` (matched to NVML by PCI bus id).
DeviceState read_device_state(int cuda_index);

}  // namespace kl
