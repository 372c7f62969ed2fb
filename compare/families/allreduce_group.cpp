#include "compare/families/allreduce_group.hpp"

#include "common/nccl_check.hpp"
#include "compare/core/device_memory.hpp"
#include "compare/families/multi_gpu.hpp"

#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace kl {

namespace {

// Every group made in this process, destroyed at exit. Made on the first gpu_group() call, after
// the CUDA runtime has initialised, so it is destroyed before the runtime shuts down.
struct Registry {
  std::mutex mutex;
  std::map<std::pair<int, int>, std::unique_ptr<GpuGroup>> groups;
  std::map<const GpuGroup*, double> peer_gbps;
  ~Registry() {
    for (auto& [key, g] : groups) {
      // After a fault (a trapped barrier, an illegal address) the context is unusable and NCCL's
      // teardown could wait on kernels that will never finish: leave everything to the process's
      // end instead.
      bool dead = false;
      for (int r = 0; r < g->gpus; ++r)
        dead |= cudaSetDevice(g->device[r]) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess;
      if (dead) continue;
      for (int r = 0; r < g->gpus; ++r)
        if (g->comm[r]) (void)ncclCommDestroy(g->comm[r]);
      for (int r = 0; r < g->gpus; ++r) {
        (void)cudaSetDevice(g->device[r]);
        (void)cudaFree(g->flags[r]);
        (void)cudaFree(g->lines[r]);
        (void)cudaFree(g->epoch[r]);
        for (int w = 0; w < kEventBarriers; ++w) (void)cudaEventDestroy(g->mark[w][r]);
        (void)cudaEventDestroy(g->joined[r]);
        (void)cudaStreamDestroy(g->stream[r]);
        for (cudaEvent_t e : g->ring[r]) (void)cudaEventDestroy(e);
        (void)cudaStreamDestroy(g->copy_stream[r]);
      }
      (void)cudaEventDestroy(g->fork);
      delete g->generation;
    }
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::string gpu_group_unsupported(int gpus, int runner_device) {
  const int visible = visible_gpus();
  if (gpus < 2)
    return "needs at least 2 GPUs; this run drives " + std::to_string(gpus) + " (" + std::to_string(visible) +
           " visible; --gpus N picks devices 0..N-1)";
  if (gpus > visible) return "--gpus " + std::to_string(gpus) + " but only " + std::to_string(visible) + " GPUs are visible";
  if (gpus > kMaxGpus) return "drives at most " + std::to_string(kMaxGpus) + " GPUs";
  if (runner_device >= gpus)
    return "the runner's device (--device " + std::to_string(runner_device) + ") is not one of the " +
           std::to_string(gpus) + " GPUs (devices 0.." + std::to_string(gpus - 1) + ")";
  if (const char* b = std::getenv("CUDA_LAUNCH_BLOCKING"); b && std::strcmp(b, "1") == 0)
    return "CUDA_LAUNCH_BLOCKING=1 makes each launch wait for its kernel, which waits for its peers' kernels, "
           "never launched: unset it";
  for (int r = 0; r < gpus; ++r)
    for (int j = 0; j < gpus; ++j) {
      int ok = 0;
      if (j != r && (cudaDeviceCanAccessPeer(&ok, r, j) != cudaSuccess || !ok)) {
        cudaGetLastError();
        return "GPU " + std::to_string(r) + " cannot access GPU " + std::to_string(j) +
               "'s memory (no peer-to-peer between them): the ladder's peer steps need it";
      }
    }
  return {};
}

const GpuGroup& gpu_group(int gpus, int runner_device) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto& slot = reg.groups[{gpus, runner_device}];
  if (slot) return *slot;
  if (const std::string why = gpu_group_unsupported(gpus, runner_device); !why.empty()) throw std::runtime_error(why);

  auto g = std::make_unique<GpuGroup>();
  g->gpus = gpus;
  g->runner_rank = runner_device;
  g->generation = new std::uint64_t(0);
  DeviceScope dev;
  for (int r = 0; r < gpus; ++r) {
    g->device[r] = r;
    dev.to(r);
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&g->sms[r], cudaDevAttrMultiProcessorCount, r));
    KL_CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream[r], cudaStreamNonBlocking));
    KL_CUDA_CHECK(cudaEventCreateWithFlags(&g->joined[r], cudaEventDisableTiming));
    for (int w = 0; w < kEventBarriers; ++w) KL_CUDA_CHECK(cudaEventCreateWithFlags(&g->mark[w][r], cudaEventDisableTiming));
    KL_CUDA_CHECK(cudaStreamCreateWithFlags(&g->copy_stream[r], cudaStreamNonBlocking));
    for (cudaEvent_t& e : g->ring[r]) KL_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    void* flags = nullptr;
    KL_CUDA_CHECK(cudaMalloc(&flags, kFlagWords * sizeof(std::uint64_t)));
    g->flags[r] = static_cast<std::uint64_t*>(flags);
    KL_CUDA_CHECK(cudaMemset(flags, 0, kFlagWords * sizeof(std::uint64_t)));
    const std::size_t line_bytes = kLineRegions * line_region_bytes(gpus);
    KL_CUDA_CHECK(cudaMalloc(&g->lines[r], line_bytes));
    KL_CUDA_CHECK(cudaMemset(g->lines[r], 0, line_bytes));
    void* epoch = nullptr;
    KL_CUDA_CHECK(cudaMalloc(&epoch, 2 * sizeof(std::uint32_t)));
    g->epoch[r] = static_cast<std::uint32_t*>(epoch);
    KL_CUDA_CHECK(cudaMemset(epoch, 0, 2 * sizeof(std::uint32_t)));
    for (int j = 0; j < gpus; ++j) {
      if (j == r) continue;
      const cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else KL_CUDA_CHECK(e);
    }
    KL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  dev.to(runner_device);
  KL_CUDA_CHECK(cudaEventCreateWithFlags(&g->fork, cudaEventDisableTiming));
  g->native_peer_atomics = all_pairs_nvlink(gpus);

  keep_nvlink_multicast_off();  // before NCCL initialises (a no-op when compare's main did it)
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
  std::vector<int> devs(static_cast<std::size_t>(gpus));
  for (int r = 0; r < gpus; ++r) devs[static_cast<std::size_t>(r)] = r;
  KL_NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, devs.data()));
  for (int r = 0; r < gpus; ++r) g->comm[r] = comms[static_cast<std::size_t>(r)];
  slot = std::move(g);
  return *slot;
}

double peer_copy_gbps(const GpuGroup& g, Timer& timer, const StopRule& rule) {
  Registry& reg = registry();
  {
    std::lock_guard<std::mutex> lock(reg.mutex);
    if (auto it = reg.peer_gbps.find(&g); it != reg.peer_gbps.end()) return it->second;
  }
  // 256 MiB per copy: three orders of magnitude past the copies' start-up cost.
  const std::size_t bytes = std::size_t{256} << 20;
  std::vector<DeviceArray<char>> src, dst;
  {
    DeviceScope dev;
    for (int r = 0; r < g.gpus; ++r) {
      dev.to(g.device[r]);
      src.emplace_back(bytes);
      dst.emplace_back(bytes);
      KL_CUDA_CHECK(cudaMemset(src.back().get(), 1, bytes));
    }
  }
  const Timing t = timer.measure(
      [&](cudaStream_t s) {
        const OpStreams o = begin_op(g, s);
        DeviceScope dev;
        for (int r = 0; r < g.gpus; ++r) {
          const int to = (r + 1) % g.gpus;
          dev.to(g.device[r]);
          KL_CUDA_CHECK(cudaMemcpyPeerAsync(dst[static_cast<std::size_t>(to)].get(), g.device[to],
                                            src[static_cast<std::size_t>(r)].get(), g.device[r], bytes, o.s[r]));
        }
        end_op(g, o, s);
      },
      rule, 2);
  const double gbps = static_cast<double>(bytes) / (t.stats.median * 1e-3) / 1e9;
  std::lock_guard<std::mutex> lock(reg.mutex);
  reg.peer_gbps[&g] = gbps;
  return gbps;
}

std::string nccl_version_text() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "NCCL (version unknown)";
  // NCCL_VERSION(X, Y, Z) = X*10000 + Y*100 + Z since 2.9
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace kl
