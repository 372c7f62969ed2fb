#include <map>
#include <mutex>
#include "compare/families/multi_gpu.hpp"

#include "compare/core/family.hpp"
#include "common/args/allreduce_args.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>

namespace kl {

int resolve_gpus(const RunOptions& opt, int visible) {
  if (const long long g = opt.setting("gpus", 0); g > 0) return static_cast<int>(g);
  return std::clamp(visible, 0, kMaxGpus);
}

int visible_gpus() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      n = 0;
    }
    return n;
  }();
  return count;
}

bool all_pairs_nvlink(int gpus) {
  static std::mutex mutex;
  static std::map<int, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(gpus); it != known.end()) return it->second;
  bool all = gpus >= 2 && gpus <= visible_gpus();
  for (int r = 0; all && r < gpus; ++r)
    for (int j = 0; all && j < gpus; ++j) {
      int atomics = 0;
      if (j == r) continue;
      if (cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, r, j) != cudaSuccess) {
        cudaGetLastError();
        atomics = 0;
      }
      all = atomics != 0;
    }
  known[gpus] = all;
  return all;
}

std::string keep_nvlink_multicast_off() {
  // setenv only when unset: overwriting would race with any thread reading the environment, and
  // a value the user chose is theirs.
  if (std::getenv("NCCL_NVLS_ENABLE") == nullptr) setenv("NCCL_NVLS_ENABLE", "0", 0);
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  return v ? v : "";
}

double allreduce_bus_factor(int gpus) { return gpus > 0 ? 2.0 * (gpus - 1) / gpus : 0.0; }

double allreduce_algbw_gbps(double bytes, double seconds) { return bytes / seconds / 1e9; }

double allreduce_busbw_gbps(double bytes, int gpus, double seconds) {
  return allreduce_algbw_gbps(bytes, seconds) * allreduce_bus_factor(gpus);
}

Metric allreduce_metric(double bytes_per_gpu, int gpus, double peer_gbps, std::string ceiling_label) {
  Metric m = Metric::bandwidth(bytes_per_gpu, peer_gbps);
  m.ceiling_label = std::move(ceiling_label);
  const double f = allreduce_bus_factor(gpus);
  if (f > 0) {
    // work is counted so that Metric::rate gives busbw: bytes · 2(G-1)/G per second.
    m.work = bytes_per_gpu * f;
    m.rate_name = "busbw";
    m.also_name = "algbw";
    m.also_factor = 1.0 / f;
  }
  return m;
}

}  // namespace kl
