#include "compare/core/device_state.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <type_traits>

namespace kl {
namespace {

// The few NVML entry points used, declared by their stable C ABI (nvml.h is not part of the
// CUDA toolkit on every machine).
using nvmlDevice_t = void*;
using nvmlReturn_t = int;
constexpr unsigned kClockSm = 1, kClockMem = 2;
constexpr unsigned kTemperatureGpu = 0;

struct Nvml {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*app_clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*default_app_clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  bool ok = false;

  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto sym = [&](auto& f, const char* name) { f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name)); };
    sym(init, "nvmlInit_v2");
    sym(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    sym(clock, "nvmlDeviceGetClockInfo");
    sym(max_clock, "nvmlDeviceGetMaxClockInfo");
    sym(app_clock, "nvmlDeviceGetApplicationsClock");
    sym(default_app_clock, "nvmlDeviceGetDefaultApplicationsClock");
    sym(temperature, "nvmlDeviceGetTemperature");
    sym(power, "nvmlDeviceGetPowerUsage");
    sym(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons) sym(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    ok = init && by_pci && clock && init() == 0;
  }
};

Nvml& nvml() {
  static Nvml n;
  return n;
}

std::vector<std::string> decode(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {0x1, "gpu_idle"},           {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},        {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},  {0x100, "display_clock_setting"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : names)
    if (bits & bit) out.emplace_back(name);
  return out;
}

}  // namespace

DeviceState read_device_state(int cuda_index) {
  DeviceState s;
  Nvml& n = nvml();
  if (!n.lib) {
    s.why_unavailable = "NVML (libnvidia-ml.so.1) not found";
    return s;
  }
  if (!n.ok) {
    s.why_unavailable = "NVML did not initialise";
    return s;
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_index) != cudaSuccess) {
    cudaGetLastError();
    s.why_unavailable = "no PCI bus id for the CUDA device";
    return s;
  }
  nvmlDevice_t dev = nullptr;
  if (n.by_pci(bus, &dev) != 0) {
    s.why_unavailable = std::string("NVML does not know the device at ") + bus;
    return s;
  }
  s.available = true;
  n.clock(dev, kClockSm, &s.sm_clock_mhz);
  n.clock(dev, kClockMem, &s.mem_clock_mhz);
  if (n.max_clock) n.max_clock(dev, kClockSm, &s.max_sm_clock_mhz);
  if (n.app_clock && n.default_app_clock && n.app_clock(dev, kClockSm, &s.app_sm_clock_mhz) == 0 &&
      n.default_app_clock(dev, kClockSm, &s.default_app_sm_clock_mhz) == 0)
    s.app_clocks_changed = s.app_sm_clock_mhz != s.default_app_sm_clock_mhz;
  if (n.temperature) n.temperature(dev, kTemperatureGpu, &s.temperature_c);
  unsigned mw = 0;
  if (n.power && n.power(dev, &mw) == 0) s.power_w = mw / 1000.0;
  if (n.reasons && n.reasons(dev, &s.clock_event_reasons) == 0) s.reasons = decode(s.clock_event_reasons);
  return s;
}

}  // namespace kl
