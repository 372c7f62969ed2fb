// Shared pieces of the scan ladder, said once for the steps that use them:
//
//   tile loads and stores   a tile's elements, ITEMS consecutive ones per thread ("blocked"),
//                           zeros past n
//   warp_inclusive_scan     Kogge-Stone over a warp with __shfl_up_sync (5 levels)
//   BlockScan               scan5's block scan onwards: each thread's items in order, the warp's
//                           thread totals by shuffles, the warps' totals by one warp
//   StripedScan             scan9's: the tile warp-striped in 16-byte vectors, scanned row by row
//   write_prefixes          a thread's outputs from its local prefixes and its prefix, in either form
//   run_multilevel          scan-then-propagate's driver (scan2 to scan5): scan the tiles, scan
//                           their totals the same way, add them back, level by level
//   TileStatus, lookback    the single-pass steps' tile status (scan_plan.hpp's words) and the
//                           walks over it: the chained wait (scan7) and the decoupled look-back
//                           (scan8, scan9), find_tile_prefix choosing between them
//
// The arithmetic (tiles, status words, the window, workspace layouts, depths) is in scan_plan.hpp,
// checked on the host.
#pragma once

#include "common/args/scan_args.hpp"
#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "handwritten/scan/scan_plan.hpp"

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kl::scan_detail {

using scan_plan::kAggregate;
using scan_plan::kInclusive;
using scan_plan::kInvalid;

inline bool is_inclusive(ScanForm f) { return f == ScanForm::inclusive; }

template <class T>
T* at_bytes(void* base, std::size_t offset) {
  return reinterpret_cast<T*>(static_cast<unsigned char*>(base) + offset);
}

// ---- a thread's items -------------------------------------------------------------------------

// Thread `tid`'s ITEMS consecutive elements of the tile starting at `begin`, `valid` of whose
// elements exist (0 past them: exact in every type, and the sum of a partial tile is unchanged).
template <int ITEMS, class T>
__device__ __forceinline__ void load_items(T (&x)[ITEMS], const T* __restrict__ in, std::size_t begin, std::size_t valid,
                                           unsigned tid) {
  const std::size_t first = static_cast<std::size_t>(tid) * ITEMS;
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) x[j] = first + j < valid ? in[begin + first + j] : T(0);
}
template <int ITEMS, class T>
__device__ __forceinline__ void store_items(const T (&y)[ITEMS], T* __restrict__ out, std::size_t begin, std::size_t valid,
                                            unsigned tid) {
  const std::size_t first = static_cast<std::size_t>(tid) * ITEMS;
#pragma unroll
  for (int j = 0; j < ITEMS; ++j)
    if (first + j < valid) out[begin + first + j] = y[j];
}
// ---- warp and block scans ----------------------------------------------------------------------

// Inclusive scan over the warp's lanes (Kogge-Stone): at step d lane l adds lane l - d's value,
// for d = 1, 2, 4, 8, 16. Lane l's result is at most ceil(log2(l + 1)) roundings deep.
template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T v, unsigned lane) {
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const T u = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += u;
  }
  return v;
}

// The block scan of scan5 onwards over ITEMS consecutive elements per thread (blocked):
//   1. each thread scans its items in order, in place (x[j] = x[0] + ... + x[j]);
//   2. a warp scans its 32 thread totals with shuffles; the thread's prefix within its warp is
//      the inclusive result of the lane before it (0 in lane 0);
//   3. lane 31 of each warp leaves its warp's total in shared memory; warp 0 scans those and
//      leaves them inclusive; a warp's prefix is the total of the warps before it.
// run() returns the thread's prefix within the block (its warp's plus its own) and sets the
// block's aggregate, in every thread. Depths: scan_plan::block_scan_depths. A block that calls it
// again must __syncthreads() first (the warp totals are reused).
template <int THREADS, int ITEMS, class T>
struct BlockScan {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, one block");
  static constexpr int kWarps = THREADS / 32;
  struct Storage {
    T warp_totals[kWarps];
  };
  __device__ static T run(T (&x)[ITEMS], Storage& s, T& aggregate) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int j = 1; j < ITEMS; ++j) x[j] += x[j - 1];
    const T incl = warp_inclusive_scan(x[ITEMS - 1], lane);
    T in_warp = __shfl_up_sync(0xffffffffu, incl, 1);
    if (lane == 0) in_warp = T(0);
    if (lane == 31) s.warp_totals[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      // Lanes past the last warp hold 0 and are never added to a lane that is read.
      T w = lane < static_cast<unsigned>(kWarps) ? s.warp_totals[lane] : T(0);
      w = warp_inclusive_scan(w, lane);
      if (lane < static_cast<unsigned>(kWarps)) s.warp_totals[lane] = w;
    }
    __syncthreads();
    aggregate = s.warp_totals[kWarps - 1];
    const T before = warp == 0 ? T(0) : s.warp_totals[warp - 1];
    return before + in_warp;
  }
};

// A thread's outputs in place, from its local inclusive prefixes x[] and its prefix `base` (the
// tile's prefix plus the thread's): inclusive y_j = base + x_j; exclusive y_0 = base and
// y_j = base + x_{j-1}.
template <int ITEMS, class T>
__device__ __forceinline__ void write_prefixes(T (&x)[ITEMS], T base, bool inclusive) {
  if (inclusive) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) x[j] = base + x[j];
  } else {
#pragma unroll
    for (int j = ITEMS - 1; j > 0; --j) x[j] = base + x[j - 1];
    x[0] = base;
  }
}

// scan9's block scan over a warp-striped tile of 16-byte vectors. Warp w owns the tile's
// elements [w·32·ITEMS, (w + 1)·32·ITEMS); its lane l holds vectors k = 0 .. V-1 (V = ITEMS /
// width) at positions k·32 + l of that run, so the warp's k-th load or store is 512 contiguous
// bytes (one coalesced access per instruction, no shared-memory transpose). The scan follows the
// layout row by row:
//   1. each lane scans the width elements of each of its vectors in order;
//   2. per row k, the warp scans the 32 vector totals with shuffles; the row's total comes from
//      lane 31, and a lane's prefix within the warp before vector k is the rows before (a carry
//      chained over the rows) plus the lanes before it in row k;
//   3. the warps' totals as in BlockScan.
// run() leaves each vector's local inclusive prefixes in x, each vector's prefix within the warp in
// t[k], returns the warp's prefix within the tile and sets the tile's aggregate. Depths:
// scan_plan::striped_scan_depths.
template <int THREADS, int ITEMS, class T>
struct StripedScan {
  static constexpr int kW = kVec<T>;
  static constexpr int kV = ITEMS / kW;
  static_assert(ITEMS % kW == 0, "a thread's items are whole 16-byte vectors");
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, one block");
  static constexpr int kWarps = THREADS / 32;
  static constexpr std::size_t kWarpItems = std::size_t{32} * ITEMS;
  struct Storage {
    T warp_totals[kWarps];
  };

  // Where element e of this thread's vector k sits in the tile.
  __device__ static std::size_t index(int k, int e) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    return warp * kWarpItems + (static_cast<std::size_t>(k) * 32 + lane) * kW + e;
  }
  // A whole tile whose start is 16-byte aligned: one 16-byte load per vector.
  __device__ static void load_vec(T (&x)[ITEMS], const T* __restrict__ in, std::size_t begin) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const auto* v = reinterpret_cast<const vec16_t<T>*>(in + begin + warp * kWarpItems) + lane;
#pragma unroll
    for (int k = 0; k < kV; ++k) {
      const vec16_t<T> w = __ldg(v + 32 * k);
      const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
      for (int l = 0; l < kW; ++l) x[k * kW + l] = e[l];
    }
  }
  // Any tile, element by element in the same layout, 0 past `valid`.
  __device__ static void load(T (&x)[ITEMS], const T* __restrict__ in, std::size_t begin, std::size_t valid) {
#pragma unroll
    for (int k = 0; k < kV; ++k)
#pragma unroll
      for (int l = 0; l < kW; ++l) {
        const std::size_t i = index(k, l);
        x[k * kW + l] = i < valid ? in[begin + i] : T(0);
      }
  }
  __device__ static void store_vec(const T (&y)[ITEMS], T* __restrict__ out, std::size_t begin) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    auto* v = reinterpret_cast<vec16_t<T>*>(out + begin + warp * kWarpItems) + lane;
#pragma unroll
    for (int k = 0; k < kV; ++k) {
      vec16_t<T> w;
      T* e = reinterpret_cast<T*>(&w);
#pragma unroll
      for (int l = 0; l < kW; ++l) e[l] = y[k * kW + l];
      v[32 * k] = w;
    }
  }
  __device__ static void store(const T (&y)[ITEMS], T* __restrict__ out, std::size_t begin, std::size_t valid) {
#pragma unroll
    for (int k = 0; k < kV; ++k)
#pragma unroll
      for (int l = 0; l < kW; ++l) {
        const std::size_t i = index(k, l);
        if (i < valid) out[begin + i] = y[k * kW + l];
      }
  }

  __device__ static T run(T (&x)[ITEMS], T (&t)[kV], Storage& s, T& aggregate) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T rows = T(0);  // the rows before row k, summed
#pragma unroll
    for (int k = 0; k < kV; ++k) {
#pragma unroll
      for (int l = 1; l < kW; ++l) x[k * kW + l] += x[k * kW + l - 1];
      const T r = warp_inclusive_scan(x[k * kW + kW - 1], lane);
      T before = __shfl_up_sync(0xffffffffu, r, 1);
      if (lane == 0) before = T(0);
      t[k] = rows + before;
      const T row = __shfl_sync(0xffffffffu, r, 31);
      rows = k == 0 ? row : rows + row;
    }
    if (lane == 31) s.warp_totals[warp] = rows;
    __syncthreads();
    if (warp == 0) {
      T w = lane < static_cast<unsigned>(kWarps) ? s.warp_totals[lane] : T(0);
      w = warp_inclusive_scan(w, lane);
      if (lane < static_cast<unsigned>(kWarps)) s.warp_totals[lane] = w;
    }
    __syncthreads();
    aggregate = s.warp_totals[kWarps - 1];
    return warp == 0 ? T(0) : s.warp_totals[warp - 1];
  }

  // The outputs in place from the tile's prefix E and the warp's: y = (E + (warp + t_k)) + local,
  // the exclusive form shifted by one element within each vector.
  __device__ static void write(T (&x)[ITEMS], const T (&t)[kV], T warp_prefix, T tile_prefix, bool inclusive) {
#pragma unroll
    for (int k = 0; k < kV; ++k) {
      const T base = tile_prefix + (warp_prefix + t[k]);
      if (inclusive) {
#pragma unroll
        for (int l = 0; l < kW; ++l) x[k * kW + l] = base + x[k * kW + l];
      } else {
#pragma unroll
        for (int l = kW - 1; l > 0; --l) x[k * kW + l] = base + x[k * kW + l - 1];
        x[k * kW] = base;
      }
    }
  }
};

// ---- scan-then-propagate (scan2 to scan5) ------------------------------------------------------

// Adds scanned[b - 1] (the inclusive scan of the tiles' totals) to every element of tile b >= 1
// of data[0, len): one block per tile from tile 1 on, the offset read once per block.
template <class T>
__global__ void __launch_bounds__(256) add_tile_offsets(T* __restrict__ data, std::size_t len, const T* __restrict__ scanned,
                                                         std::size_t tile) {
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) + 1;
  const T offset = scanned[b - 1];
  const std::size_t begin = scan_plan::tile_begin(b, tile);
  const std::size_t valid = scan_plan::tile_valid(len, b, tile);
  for (std::size_t i = threadIdx.x; i < valid; i += 256) data[begin + i] = data[begin + i] + offset;
}

// scan_tiles(src, dst, len, form, totals, stream): scans each tile of `tile` elements of src
// into dst on its own, and writes tile b's total to totals[b] when totals is not null.
// Level 0 scans the input in the requested form; each level above scans the totals of the one
// below, inclusive; then, from the top down, each level's scanned totals are added to the tiles
// of the level below (scan_plan::multilevel_layout: the workspace).
template <class T, class ScanTiles>
void run_multilevel(const ScanArgs<T>& a, std::size_t tile, ScanTiles&& scan_tiles, cudaStream_t s) {
  const std::vector<std::size_t> lens = scan_plan::multilevel_lens(a.n, tile);
  const std::vector<scan_plan::LevelBuffers> bufs = scan_plan::multilevel_layout(a.n, tile, sizeof(T));
  const T* src = a.in;
  T* dst = a.out;
  std::size_t len = a.n;
  ScanForm form = a.form;
  for (std::size_t l = 0;; ++l) {
    T* totals = l < bufs.size() ? at_bytes<T>(a.workspace, bufs[l].totals) : nullptr;
    scan_tiles(src, dst, len, form, totals, s);
    KL_CHECK_LAUNCH();
    if (l == bufs.size()) break;
    src = totals;
    dst = at_bytes<T>(a.workspace, bufs[l].scanned);
    len = lens[l];
    form = ScanForm::inclusive;
  }
  for (std::size_t l = bufs.size(); l-- > 0;) {
    T* below = l == 0 ? a.out : at_bytes<T>(a.workspace, bufs[l - 1].scanned);
    const std::size_t below_len = l == 0 ? a.n : lens[l - 1];
    add_tile_offsets<T><<<grid_blocks(lens[l] - 1), 256, 0, s>>>(below, below_len,
                                                                 at_bytes<T>(a.workspace, bufs[l].scanned), tile);
    KL_CHECK_LAUNCH();
  }
}

template <class T>
std::size_t multilevel_workspace_bytes(std::size_t n, std::size_t tile) {
  std::size_t bytes = 0;
  scan_plan::multilevel_layout(n, tile, sizeof(T), &bytes);
  return bytes;
}

// ---- the single-pass steps' tile status (scan7, scan8, scan9) ------------------------------------

// Where the tile counter and the statuses live in the workspace (scan_plan::status_layout).
template <class T, bool kPacked = scan_plan::kPackedStatus<T>>
struct TileStatus;

// 4-byte values: one 64-bit word per tile, flag and value published by one store.
template <class T>
struct TileStatus<T, true> {
  unsigned long long* words;
  TileStatus(void* ws, const scan_plan::StatusLayout& l) : words(at_bytes<unsigned long long>(ws, l.words)) {}
  __device__ void publish(std::size_t tile, unsigned flag, T value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
    w.store(scan_plan::pack_status(flag, value), cuda::memory_order_relaxed);
  }
  __device__ void read(std::size_t tile, unsigned& flag, T& value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
    const unsigned long long word = w.load(cuda::memory_order_relaxed);
    flag = scan_plan::status_flag(word);
    value = scan_plan::status_value<T>(word);
  }
};

// 8-byte values: the value first, then its flag with release; read the flag with acquire, then
// the value its flag names (each value is written once per launch, before its flag).
template <class T>
struct TileStatus<T, false> {
  unsigned* flags;
  T* aggregates;
  T* inclusives;
  TileStatus(void* ws, const scan_plan::StatusLayout& l)
      : flags(at_bytes<unsigned>(ws, l.words)), aggregates(at_bytes<T>(ws, l.aggregates)), inclusives(at_bytes<T>(ws, l.inclusives)) {}
  __device__ void publish(std::size_t tile, unsigned flag, T value) const {
    cuda::atomic_ref<T, cuda::thread_scope_device> v(flag == kInclusive ? inclusives[tile] : aggregates[tile]);
    v.store(value, cuda::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
    f.store(flag, cuda::memory_order_release);
  }
  __device__ void read(std::size_t tile, unsigned& flag, T& value) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
    flag = f.load(cuda::memory_order_acquire);
    value = T(0);
    if (flag == kInclusive) value = cuda::atomic_ref<T, cuda::thread_scope_device>(inclusives[tile]).load(cuda::memory_order_relaxed);
    else if (flag == kAggregate) value = cuda::atomic_ref<T, cuda::thread_scope_device>(aggregates[tile]).load(cuda::memory_order_relaxed);
  }
};

template <class T>
scan_plan::StatusLayout status_layout_for(std::size_t n, std::size_t tile) {
  return scan_plan::status_layout(scan_plan::tile_count(n, tile), sizeof(T));
}

// Clears the tile counter and every flag, on the stream (the workspace's contents are undefined
// on entry): part of the operation, timed with it.
inline void clear_status(void* ws, const scan_plan::StatusLayout& l, cudaStream_t s) {
  KL_CUDA_CHECK(cudaMemsetAsync(ws, 0, l.zero_bytes, s));
}

// The next tile index, from the counter: blocks take tiles in the order they start, so every
// tile a block waits for belongs to a block that is already running (whatever order the hardware
// starts blocks in: no deadlock, which tile = blockIdx.x would not promise).
__device__ __forceinline__ unsigned take_tile(unsigned* counter) { return atomicAdd(counter, 1u); }

// A pause between polls of a status that is not ready, so waiting warps leave the L2 to the
// tiles that are still loading (0: spin).
template <unsigned kSleepNs>
__device__ __forceinline__ void pause() {
  if constexpr (kSleepNs > 0) __nanosleep(kSleepNs);
}

// Chained (StreamScan): thread 0 of tile k > 0 waits until tile k - 1 has published its
// inclusive prefix, publishes its own (that plus its aggregate) and returns the exclusive prefix.
// Tile 0 publishes its aggregate as its inclusive prefix at once. Called by thread 0 only.
template <unsigned kSleepNs, class T>
__device__ T chained_exclusive(const TileStatus<T>& st, std::size_t tile, T aggregate) {
  if (tile == 0) {
    st.publish(0, kInclusive, aggregate);
    return T(0);
  }
  unsigned flag;
  T before;
  for (;;) {
    st.read(tile - 1, flag, before);
    if (flag == kInclusive) break;
    pause<kSleepNs>();
  }
  st.publish(tile, kInclusive, before + aggregate);
  return before;
}

// The first wait of a look-back applies to grids of this many blocks or more, as CUB's delays do
// (GridThreshold in cub/agent/single_pass_scan_operators.cuh): a smaller grid's tiles are all
// resident at once, its statuses land together and its polls cannot crowd the L2.
inline constexpr unsigned kFirstWaitGrid = 500;

// Decoupled look-back (Merrill & Garland): called by the 32 lanes of warp 0 of tile k > 0 once its
// aggregate is known. Lane 0 publishes the aggregate at once, so that later tiles can go past this
// one before its prefix is known; then, after kFirstNs (0: at once; CUB waits about an L2 write's
// latency, so that its nearest predecessors' statuses have landed and fewer polls find them not
// ready), the warp reads its predecessors 32 at a time
// (scan_plan::window_predecessor), waits until every lane's flag is valid, adds the aggregates of
// the lanes before the nearest inclusive prefix (scan_plan::nearest_inclusive_lane,
// lane_adds_aggregate) with a 5-level shuffle tree, and either stops there or moves 32 tiles
// further back. The tile's inclusive prefix P_j + (S + aggregate) is published by lane 0; the
// exclusive prefix P_j + S is returned in every lane (depths: scan_plan::lookback_depth).
template <unsigned kSleepNs, unsigned kFirstNs, class T>
__device__ T lookback_exclusive(const TileStatus<T>& st, std::size_t tile, T aggregate) {
  const unsigned lane = threadIdx.x % 32;
  if (lane == 0) st.publish(tile, kAggregate, aggregate);
  if (gridDim.x >= kFirstWaitGrid) pause<kFirstNs>();
  T aggregates = T(0);
  for (int w = 0;; ++w) {
    const long long p = scan_plan::window_predecessor(static_cast<long long>(tile), w, static_cast<int>(lane));
    unsigned flag = kInclusive;  // before tile 0: an inclusive prefix of 0
    T value = T(0);
    bool have = p < 0;
    for (;;) {
      if (!have) {
        st.read(static_cast<std::size_t>(p), flag, value);
        have = flag != kInvalid;
      }
      if (__all_sync(0xffffffffu, have)) break;
      pause<kSleepNs>();
    }
    const int nearest = scan_plan::nearest_inclusive_lane(__ballot_sync(0xffffffffu, flag == kInclusive));
    T add = scan_plan::lane_adds_aggregate(static_cast<int>(lane), nearest) ? value : T(0);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) add += __shfl_xor_sync(0xffffffffu, add, off);
    aggregates = w == 0 ? add : aggregates + add;
    if (nearest >= 0) {
      const T inclusive_before = __shfl_sync(0xffffffffu, value, nearest);
      if (lane == 0) st.publish(tile, kInclusive, inclusive_before + (aggregates + aggregate));
      return inclusive_before + aggregates;
    }
  }
}

// The tile's exclusive prefix, left in *prefix (shared memory) by warp 0: tile 0 publishes its
// aggregate as its inclusive prefix at once; the others wait for their predecessor (chained) or
// look back (kSleepNs between polls, kFirstNs before the first). The caller __syncthreads() before
// reading it.
template <bool kLookback, unsigned kSleepNs, unsigned kFirstNs, class T>
__device__ __forceinline__ void find_tile_prefix(const TileStatus<T>& st, std::size_t tile, T aggregate, T* prefix) {
  if (threadIdx.x >= 32) return;
  if (tile == 0) {
    if (threadIdx.x == 0) {
      st.publish(0, kInclusive, aggregate);
      *prefix = T(0);
    }
    return;
  }
  if constexpr (kLookback) {
    const T e = lookback_exclusive<kSleepNs, kFirstNs>(st, tile, aggregate);
    if (threadIdx.x == 0) *prefix = e;
  } else {
    if (threadIdx.x == 0) *prefix = chained_exclusive<kSleepNs>(st, tile, aggregate);
  }
}

}  // namespace kl::scan_detail
