// scan7_chained — beyond the documents (Yan, Long and Zhang, "StreamScan: Fast Scan Algorithms for
// GPUs without Global Barrier Synchronization", 2013: the chained scan).
//
// Lesson: one pass, 2n memory traffic. Every block scans one tile (scan5's block scan, 16 4-byte
// or 8 8-byte elements per thread of 512) and then needs only one number from the rest of the
// grid: the sum of everything before its tile. Tile k gets it from tile k - 1: it waits until
// tile k - 1 has published its inclusive prefix in the workspace, publishes its own (that plus its
// aggregate), and only then writes its outputs. No second pass and no second read: the input is
// read once and the output written once. But the prefixes travel down the tiles one at a time,
// each hop a store to L2 and a poll that sees it, so the whole scan waits on a chain of n / 8192
// hops (n / 4096 in double): correct, and latency-bound (decoupled look-back, scan8, breaks the
// chain).
//
// Two rules every single-pass step here keeps:
//   - a block takes its tile index from an atomic counter when it starts (take_tile), not from
//     blockIdx: the tiles a block waits for then belong to blocks that are already running,
//     whatever order the hardware starts blocks in, so the wait always ends;
//   - the status words live in the workspace, whose contents are undefined on entry: the launcher
//     zeroes the counter and the flags on the stream before the kernel (one memset).
// A tile's status is one 64-bit word for 4-byte types (the value's bits above the flag: one store
// publishes both), a flag beside the value for 8-byte types, written value first and flag with
// release semantics (scan_plan.hpp, scan_common.cuh: TileStatus).
//
// The chain is also the longest chain of roundings: one per tile (scan_plan::chained_depth).
#pragma once

#include "handwritten/scan/scan6_reduce_then_scan.cuh"

namespace kl::scan7 {

enum class Wait { chained, lookback };

// One tile per block: the tile index from the counter; the tile loaded, scanned (BlockScan), its
// exclusive prefix found by the chained wait or the decoupled look-back, the outputs written.
template <class T, int THREADS, int ITEMS, Wait kWait, unsigned kSleepNs>
__global__ void __launch_bounds__(THREADS) single_pass(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                                     ScanForm form, unsigned* counter, scan_detail::TileStatus<T> st) {
  using Scan = scan_detail::BlockScan<THREADS, ITEMS, T>;
  constexpr std::size_t kTile = std::size_t{THREADS} * ITEMS;
  __shared__ typename Scan::Storage storage;
  __shared__ unsigned tile_index;
  __shared__ T tile_prefix;
  if (threadIdx.x == 0) tile_index = scan_detail::take_tile(counter);
  __syncthreads();
  const std::size_t tile = tile_index;
  const std::size_t begin = scan_plan::tile_begin(tile, kTile), valid = scan_plan::tile_valid(n, tile, kTile);
  T x[ITEMS];
  scan_detail::load_items(x, in, begin, valid, threadIdx.x);
  T aggregate;
  const T prefix = Scan::run(x, storage, aggregate);
  scan_detail::find_tile_prefix<kWait == Wait::lookback, kSleepNs, 0>(st, tile, aggregate, &tile_prefix);
  __syncthreads();
  scan_detail::write_prefixes(x, tile_prefix + prefix, form == ScanForm::inclusive);
  scan_detail::store_items(x, out, begin, valid, threadIdx.x);
}

// The launcher of scan7 and scan8: the status cleared, one block per tile.
template <class T, int THREADS, int ITEMS, Wait kWait, unsigned kSleepNs>
void launch_single_pass(const ScanArgs<T>& a, cudaStream_t s) {
  constexpr std::size_t kTile = std::size_t{THREADS} * ITEMS;
  const scan_plan::StatusLayout l = scan_detail::status_layout_for<T>(a.n, kTile);
  scan_detail::clear_status(a.workspace, l, s);
  const unsigned grid = grid_blocks(scan_plan::tile_count(a.n, kTile));
  const scan_detail::TileStatus<T> st(a.workspace, l);
  unsigned* counter = scan_detail::at_bytes<unsigned>(a.workspace, l.counter);
  single_pass<T, THREADS, ITEMS, kWait, kSleepNs><<<grid, THREADS, 0, s>>>(a.in, a.out, a.n, a.form, counter, st);
  KL_CHECK_LAUNCH();
}

template <class T, int THREADS, int ITEMS>
std::size_t single_pass_workspace_bytes(ScanShape sh) {
  return scan_detail::status_layout_for<T>(sh.n, std::size_t{THREADS} * ITEMS).total;
}

constexpr int kThreads = 512;
template <class T>
constexpr int kItems = 64 / static_cast<int>(sizeof(T));  // 64 bytes per thread: 16 floats or ints, 8 doubles
template <class T>
constexpr std::size_t kTile = std::size_t{kThreads} * kItems<T>;
constexpr unsigned kSleepNs = 32;

template <class T>
double depth(ScanShape sh) {
  return scan_plan::chained_depth(scan_plan::tile_count(sh.n, kTile<T>), scan_plan::block_scan_depths(kItems<T>, kThreads));
}

template <class T>
ScanVariant<T> variant() {
  return {
      .info = {"scan7_chained", "beyond the documents: Yan et al. 2013 (StreamScan)",
               "one pass, 2n traffic: each tile waits for its predecessor's inclusive prefix, one hop per tile"},
      .launch = launch_single_pass<T, kThreads, kItems<T>, Wait::chained, kSleepNs>,
      .workspace_bytes = single_pass_workspace_bytes<T, kThreads, kItems<T>>,
      .rounding_depth = depth<T>,
      .unsupported = [](ScanShape sh) -> const char* {
        return scan_plan::depth_too_long<T>(depth<T>(sh)) ? "its chain of roundings (one per tile) is too long for any error bound at this n"
                                                          : nullptr;
      },
  };
}

}  // namespace kl::scan7
