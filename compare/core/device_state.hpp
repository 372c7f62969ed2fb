// The GPU's state around a run, for comparing runs honestly: SM and memory clocks, temperature,
// power, the reasons the driver gives for holding clocks down, and whether application clocks
// differ from their defaults (a locked or pinned clock). Read through NVML, which ships with the
// driver: loaded at run time (dlopen), so the tools still start on machines without a driver
// (CI) and the report says why the state is missing.
#pragma once

#include <string>
#include <vector>

namespace kl {

struct DeviceState {
  bool available = false;
  std::string why_unavailable;       // when !available
  unsigned sm_clock_mhz = 0, mem_clock_mhz = 0;
  unsigned max_sm_clock_mhz = 0;
  unsigned app_sm_clock_mhz = 0, default_app_sm_clock_mhz = 0;
  unsigned temperature_c = 0;
  double power_w = 0;
  unsigned long long clock_event_reasons = 0;  // NVML clocks event (throttle) reason bits
  std::vector<std::string> reasons;            // decoded, e.g. "sw_power_cap"
  bool app_clocks_changed = false;             // application clocks differ from the default
};

// Reads the state of the CUDA device `cuda_index` (matched to NVML by PCI bus id).
DeviceState read_device_state(int cuda_index);

}  // namespace kl
