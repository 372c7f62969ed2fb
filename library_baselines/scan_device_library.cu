// Library baselines for the scan family, the device-wide calls (the list, with cub_block_scan, is
// library_baselines/scan_library.cu):
//
//   "cub_device_scan"   cub::DeviceScan::InclusiveSum or ExclusiveSum (by the form) into out, its
//                       temporary storage the workspace (sized by the usual query with a null
//                       pointer, host only). CUB's single-pass decoupled look-back: an init kernel
//                       that clears the tile states, then one block per tile.
//   "thrust_scan"       thrust::inclusive_scan or thrust::exclusive_scan (init 0) on the stream
//                       with par_nosync, so Thrust does not synchronise after the kernels (it would
//                       with par); its temporary storage comes from the workspace through a bump
//                       allocator, so no cudaMalloc/cudaFree runs inside the timed call. In CCCL
//                       3.0 it is cub::DispatchScan, as DeviceScan, with 32-bit offsets where n fits.
//
// This translation unit is compiled without ptxas's warnings (CMakeLists.txt): CCCL 3.0's
// DeviceScanKernel for int spills 4 bytes on sm_90, which the build's spill gate (meant for this
// project's own tiles and launch bounds) would turn into an error. Nothing of the project's own is
// compiled here: its kernels, cub_block_scan's included, keep the gate.
//
// Rounding depth: lib_detail::cub_lookback_depth, read from the CCCL 3.0 source. The number of
// tiles CUB launches is bounded from its own temporary-storage size: (tiles + 32) status words, 8
// bytes each for 4-byte values and 16 for 8-byte ones, rounded up to 256 bytes plus 255
// (cub/util_temporary_storage.cuh, AliasTemporaries), so tiles <= bytes / word whichever tuning
// policy ran. Items and warps: the largest of the sm_80, sm_90 and sm_100 tunings and the default
// policy (tuning_scan.cuh: 24 items of 4 bytes, 12 of 8; at most 640 threads), rounded up to 32 and 32.
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/cached_query.hpp"
#include "common/cuda_check.hpp"
#include "common/args/scan_args.hpp"
#include "library_baselines/library_common.cuh"

namespace kl {
namespace {

// n as CUB's NumItemsT: 32-bit where it fits (the offsets Thrust picks, and what a caller passing
// an int gets), 64-bit beyond.
template <class F>
cudaError_t with_count(std::size_t n, F&& f) {
  return n <= 0xffffffffu ? f(static_cast<std::uint32_t>(n)) : f(static_cast<std::uint64_t>(n));
}

template <class T>
std::size_t cub_bytes(ScanShape sh) {
  std::size_t bytes = 0;
  const T* in = nullptr;
  T* out = nullptr;
  KL_CUDA_CHECK(with_count(sh.n, [&](auto count) {
    return sh.form == ScanForm::inclusive ? cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, count)
                                          : cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, count);
  }));
  return bytes;
}

template <class T>
void cub_launch(const ScanArgs<T>& a, cudaStream_t s) {
  std::size_t bytes = remembered<cub_bytes<T>>(ScanShape{a.n, a.form});
  KL_CUDA_CHECK(with_count(a.n, [&](auto count) {
    return a.form == ScanForm::inclusive ? cub::DeviceScan::InclusiveSum(a.workspace, bytes, a.in, a.out, count, s)
                                         : cub::DeviceScan::ExclusiveSum(a.workspace, bytes, a.in, a.out, count, s);
  }));
}

// At most this many tiles ran: their status words fit `temp_bytes`.
template <class T>
double depth_for(std::size_t temp_bytes) {
  const std::size_t word = sizeof(T) == 4 ? 8 : 16;
  return lib_detail::cub_lookback_depth(temp_bytes / word, 32, 32);
}

template <class T>
const char* unsupported_for(std::size_t temp_bytes) {
  return lib_detail::scan_depth_too_long<T>(depth_for<T>(temp_bytes))
             ? "its chain of roundings (one per tile) is too long for any error bound at this n"
             : nullptr;
}

// Thrust makes one temporary allocation of the size CUB asks for. The workspace is twice
// DeviceScan's (a status word per tile: well under a thousandth of the data), so a Thrust that
// picked a smaller tile than DeviceScan still fits; one that asked for more would fail its row
// loudly (WorkspaceAllocator: std::bad_alloc). Its tile states fit its allocation, so its depth is
// bounded from that size.
template <class T>
std::size_t thrust_bytes(ScanShape sh) {
  return 2 * cub_bytes<T>(sh) + 512;
}

template <class T>
void thrust_launch(const ScanArgs<T>& a, cudaStream_t s) {
  lib_detail::WorkspaceAllocator alloc(a.workspace, remembered<thrust_bytes<T>>(ScanShape{a.n, a.form}));
  const auto policy = thrust::cuda::par_nosync(alloc).on(s);
  if (a.form == ScanForm::inclusive) thrust::inclusive_scan(policy, a.in, a.in + a.n, a.out);
  else thrust::exclusive_scan(policy, a.in, a.in + a.n, a.out);
  KL_CHECK_LAUNCH();
}

}  // namespace

template <class T>
std::vector<ScanVariant<T>> scan_device_library() {
  return {
      {
          .info = {"cub_device_scan", "CUB",
                   "cub::DeviceScan::InclusiveSum / ExclusiveSum: single-pass decoupled look-back, tuned tiles",
                   Source::library},
          .launch = cub_launch<T>,
          .workspace_bytes = cub_bytes<T>,
          .rounding_depth = [](ScanShape sh) { return depth_for<T>(cub_bytes<T>(sh)); },
          .unsupported = [](ScanShape sh) { return unsupported_for<T>(cub_bytes<T>(sh)); },
      },
      {
          .info = {"thrust_scan", "Thrust",
                   "thrust::inclusive_scan / exclusive_scan (par_nosync): CUB's dispatch behind Thrust's interface",
                   Source::library},
          .launch = thrust_launch<T>,
          .workspace_bytes = thrust_bytes<T>,
          .rounding_depth = [](ScanShape sh) { return depth_for<T>(thrust_bytes<T>(sh)); },
          .unsupported = [](ScanShape sh) { return unsupported_for<T>(thrust_bytes<T>(sh)); },
      },
  };
}

template std::vector<ScanVariant<int>> scan_device_library<int>();
template std::vector<ScanVariant<float>> scan_device_library<float>();
template std::vector<ScanVariant<double>> scan_device_library<double>();

}  // namespace kl
