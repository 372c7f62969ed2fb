// scan5_warp_shuffle — beyond the documents (the warp-synchronous scan of Sengupta, Harris and
// Garland, "Efficient Parallel Scan Algorithms for GPUs", 2008, with Kepler's shuffles in place
// of its shared-memory warp scan; CUB's BLOCK_SCAN_WARP_SCANS).
//
// Lesson: scan4's tile (1024 elements, 2 per thread of 512) scanned in registers. Each thread adds
// its two elements; a warp scans its 32 thread totals with __shfl_up_sync, five steps with no
// shared memory and no barrier (the lanes of a warp exchange registers directly); lane 31 leaves
// the warp's total in shared memory, one warp scans the 16 warp totals the same way, and every
// thread adds its warp's prefix. Two barriers per tile instead of scan3's twenty-two, and shared
// memory holds 16 values instead of the whole tile, so bank conflicts no longer arise. The rest
// is scan2's (the tiles' totals scanned the same way, then added back: still 4n memory traffic).
//
// The block scan (scan_common.cuh, BlockScan) is the one every later step uses, with more items
// per thread.
#pragma once

#include "handwritten/scan/scan4_conflict_free.cuh"

namespace kl::scan5 {

constexpr int kThreads = 512;
constexpr int kItems = 2;
constexpr std::size_t kTile = std::size_t{kThreads} * kItems;

template <class T>
__global__ void __launch_bounds__(kThreads) shuffle_tiles(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                                        ScanForm form, T* __restrict__ totals) {
  using Scan = scan_detail::BlockScan<kThreads, kItems, T>;
  __shared__ typename Scan::Storage storage;
  const std::size_t begin = scan_plan::tile_begin(blockIdx.x, kTile);
  const std::size_t valid = scan_plan::tile_valid(n, blockIdx.x, kTile);
  T x[kItems];
  scan_detail::load_items(x, in, begin, valid, threadIdx.x);
  T aggregate;
  const T prefix = Scan::run(x, storage, aggregate);
  scan_detail::write_prefixes(x, prefix, form == ScanForm::inclusive);
  scan_detail::store_items(x, out, begin, valid, threadIdx.x);
  if (totals && threadIdx.x == 0) totals[blockIdx.x] = aggregate;
}

template <class T>
void launch(const ScanArgs<T>& a, cudaStream_t s) {
  scan_detail::run_multilevel(a, kTile, [](const T* src, T* dst, std::size_t len, ScanForm form, T* totals, cudaStream_t st) {
    shuffle_tiles<T><<<grid_blocks(scan_plan::tile_count(len, kTile)), kThreads, 0, st>>>(src, dst, len, form, totals);
  }, s);
}

template <class T>
ScanVariant<T> variant() {
  return {
      .info = {"scan5_warp_shuffle", "beyond the documents: Sengupta, Harris, Garland 2008; warp shuffles",
               "tiles scanned in registers: __shfl_up_sync within warps, one warp over the warps' totals"},
      .launch = launch<T>,
      .workspace_bytes = [](ScanShape sh) { return scan_detail::multilevel_workspace_bytes<T>(sh.n, kTile); },
      .rounding_depth = [](ScanShape sh) {
        return scan_plan::multilevel_depth(sh.n, kTile, scan_plan::block_scan_depths(kItems, kThreads),
                                           sh.form == ScanForm::inclusive);
      },
  };
}

}  // namespace kl::scan5
