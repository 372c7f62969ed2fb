// scan8_decoupled_lookback — beyond the documents (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVIDIA technical report NVR-2016-002, 2016: CUB's DeviceScan).
//
// Lesson: scan7's tiles, without the chain. As soon as a tile is scanned it publishes its aggregate
// (flag A) beside the inclusive prefix it does not know yet; then its first warp looks back over its
// predecessors 32 at a time (one lane each: scan_plan::window_predecessor), waits until every one
// of them has published something, and adds up the aggregates of the tiles after the nearest
// inclusive prefix (flag P) it sees, plus that prefix. If the window has no P, it adds all 32
// aggregates and looks 32 tiles further back. A tile no longer waits for its predecessor to know its
// own prefix, only to have scanned its own tile, and tiles scan in parallel: the wait is about one
// L2 round trip instead of a chain of them. When it has its exclusive prefix it publishes its
// inclusive one (P), so its successors' walks stop there. Everything else is scan7's: the
// tile index from the counter, the statuses zeroed by the launcher, 2n memory traffic.
//
// Rounding: the prefixes still chain (each inclusive prefix is an earlier one plus the aggregates
// between), one rounding per tile at most, plus a shuffle tree per window
// (scan_plan::lookback_depth); the order depends on which statuses a tile found, so the result
// may differ in the last bits from run to run, within the bound. Integers are exact.
#pragma once

#include "handwritten/scan/scan7_chained.cuh"

namespace kl::scan8 {

using scan7::kItems;
using scan7::kSleepNs;
using scan7::kThreads;
using scan7::kTile;

template <class T>
double depth(ScanShape sh) {
  return scan_plan::lookback_depth(scan_plan::tile_count(sh.n, kTile<T>), scan_plan::block_scan_depths(kItems<T>, kThreads));
}

template <class T>
ScanVariant<T> variant() {
  using namespace scan7;
  return {
      .info = {"scan8_decoupled_lookback", "beyond the documents: Merrill & Garland 2016 (decoupled look-back)",
               "scan7, but tiles publish their aggregates and look back over 32 predecessors at a time: no chain"},
      .launch = launch_single_pass<T, kThreads, kItems<T>, Wait::lookback, kSleepNs>,
      .workspace_bytes = single_pass_workspace_bytes<T, kThreads, kItems<T>>,
      .rounding_depth = depth<T>,
      .unsupported = [](ScanShape sh) -> const char* {
        return scan_plan::depth_too_long<T>(depth<T>(sh)) ? "its chain of roundings (one per tile) is too long for any error bound at this n"
                                                          : nullptr;
      },
  };
}

}  // namespace kl::scan8
