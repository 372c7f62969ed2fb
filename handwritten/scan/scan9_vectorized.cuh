// scan9_vectorized — beyond the documents (the tile shapes of CUB's sm_90 scan tuning, CCCL 3.0
// cub/device/dispatch/tuning/tuning_scan.cuh, as a starting point).
//
// Lesson: scan8's algorithm with its memory accesses made whole and its tile tuned. scan8's
// threads each read their own run of consecutive elements, so one load instruction of a warp
// touches 32 runs 64 bytes apart: 32 sectors for 128 useful bytes, the rest of each sector left to
// the thread's next loads (through L1). Here the tile is laid out warp-striped in 16-byte vectors:
// a warp owns a contiguous run of the tile and lane l holds the vectors at positions k·32 + l of it,
// so every load and store instruction of a warp moves 512 contiguous bytes (ld.global.nc.v4 /
// st.global.v4: full sectors, a quarter of the instructions, no shared-memory transpose as CUB's
// BLOCK_LOAD_WARP_TRANSPOSE does). The scan follows the layout: each vector in order, each row of
// 32 vectors by shuffles, the rows chained (scan_common.cuh, StripedScan). The tile's shape is a
// template parameter: the threads per block and the bytes per thread (items = bytes / sizeof(T), a
// whole number of vectors), each configuration its own variant named from them
// (scan9_vectorized_128x96B: 128 threads of 96 bytes, 24 floats or 12 doubles a thread: CUB's
// sm_90 float tile). A small tile gives many blocks per SM, a large one fewer look-backs per byte;
// `compare -f scan -v 'scan9*'` measures them side by side. The look-back's waits are the tile's
// too, as CUB tunes them per tile: a tile that polls a predecessor that has only just started
// finds nothing, so a first wait before looking back (on grids large enough to queue behind each
// other) saves more than a shorter poll interval does (docs/scan.md, scan9). The partial last
// tile, and arrays that are not 16-byte aligned, load and store element by element in the same
// layout.
//
// Rounding: scan8's look-back (scan_plan::lookback_depth) over this block scan's depths
// (scan_plan::striped_scan_depths).
#pragma once

#include "common/config_name.hpp"
#include "handwritten/scan/scan8_decoupled_lookback.cuh"

#include <string>

namespace kl::scan9 {

// A tile shape: kThreads threads of kBytes bytes each (a multiple of 16); the look-back's waits
// (scan_common.cuh, pause): kSleepNs between polls of a status that is not ready, kFirstNs before
// the first.
template <int kThreads_, int kBytes_, unsigned kSleepNs_ = 32, unsigned kFirstNs_ = 0>
struct Tile {
  static constexpr int kThreads = kThreads_;
  static constexpr int kBytes = kBytes_;
  static constexpr unsigned kSleepNs = kSleepNs_;
  static constexpr unsigned kFirstNs = kFirstNs_;
  template <class T>
  static constexpr int kItems = kBytes / static_cast<int>(sizeof(T));
  static_assert(kBytes % 16 == 0 && kBytes >= 16, "a thread's items are whole 16-byte vectors");
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, one block");
  // "scan9_vectorized_128x96B"; a pause other than 32 ns adds "_p<ns>", a first wait "_w<ns>".
  static std::string name() {
    std::string s = "scan9_vectorized_" + std::to_string(kThreads) + "x" + std::to_string(kBytes) + "B";
    if (kSleepNs != 32) s += "_p" + std::to_string(kSleepNs);
    if (kFirstNs != 0) s += "_w" + std::to_string(kFirstNs);
    return s;
  }
};

// One tile per block, as scan8's, with the warp-striped layout; kAligned: in and out are 16-byte
// aligned (the host checks), so whole tiles move as vectors.
template <class T, class C, bool kAligned>
__global__ void __launch_bounds__(C::kThreads) striped_lookback(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                                              ScanForm form, unsigned* counter, scan_detail::TileStatus<T> st) {
  constexpr int ITEMS = C::template kItems<T>;
  using Scan = scan_detail::StripedScan<C::kThreads, ITEMS, T>;
  constexpr std::size_t kTile = std::size_t{C::kThreads} * ITEMS;
  __shared__ typename Scan::Storage storage;
  __shared__ unsigned tile_index;
  __shared__ T tile_prefix;
  if (threadIdx.x == 0) tile_index = scan_detail::take_tile(counter);
  __syncthreads();
  const std::size_t tile = tile_index;
  const std::size_t begin = scan_plan::tile_begin(tile, kTile), valid = scan_plan::tile_valid(n, tile, kTile);
  const bool whole = kAligned && valid == kTile;  // block-uniform
  T x[ITEMS];
  if (whole) Scan::load_vec(x, in, begin);
  else Scan::load(x, in, begin, valid);
  T t[Scan::kV];
  T aggregate;
  const T warp_prefix = Scan::run(x, t, storage, aggregate);
  scan_detail::find_tile_prefix<true, C::kSleepNs, C::kFirstNs>(st, tile, aggregate, &tile_prefix);
  __syncthreads();
  Scan::write(x, t, warp_prefix, tile_prefix, form == ScanForm::inclusive);
  if (whole) Scan::store_vec(x, out, begin);
  else Scan::store(x, out, begin, valid);
}

template <class C, class T>
constexpr std::size_t kTileOf = std::size_t{C::kThreads} * C::template kItems<T>;

template <class C, class T>
void launch(const ScanArgs<T>& a, cudaStream_t s) {
  const scan_plan::StatusLayout l = scan_detail::status_layout_for<T>(a.n, kTileOf<C, T>);
  scan_detail::clear_status(a.workspace, l, s);
  const unsigned grid = grid_blocks(scan_plan::tile_count(a.n, kTileOf<C, T>));
  const scan_detail::TileStatus<T> st(a.workspace, l);
  unsigned* counter = scan_detail::at_bytes<unsigned>(a.workspace, l.counter);
  if (aligned16(a.in) && aligned16(a.out))
    striped_lookback<T, C, true><<<grid, C::kThreads, 0, s>>>(a.in, a.out, a.n, a.form, counter, st);
  else
    striped_lookback<T, C, false><<<grid, C::kThreads, 0, s>>>(a.in, a.out, a.n, a.form, counter, st);
  KL_CHECK_LAUNCH();
}

template <class C, class T>
double depth(ScanShape sh) {
  return scan_plan::lookback_depth(scan_plan::tile_count(sh.n, kTileOf<C, T>),
                                   scan_plan::striped_scan_depths(C::template kItems<T>, kVec<T>, C::kThreads));
}

template <class C, class T>
ScanVariant<T> variant() {
  return {
      .info = {keep_name(C::name()), "beyond the documents: scan8 with whole 16-byte accesses and a tuned tile",
               "scan8 with the tile warp-striped in 16-byte vectors: every warp access 512 contiguous bytes"},
      .launch = launch<C, T>,
      .workspace_bytes = [](ScanShape sh) { return scan_detail::status_layout_for<T>(sh.n, kTileOf<C, T>).total; },
      .rounding_depth = depth<C, T>,
      .unsupported = [](ScanShape sh) -> const char* {
        return scan_plan::depth_too_long<T>(depth<C, T>(sh)) ? "its chain of roundings (one per tile) is too long for any error bound at this n"
                                                             : nullptr;
      },
  };
}

}  // namespace kl::scan9
