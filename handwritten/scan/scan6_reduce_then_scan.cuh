// scan6_reduce_then_scan — beyond the documents (Merrill and Grimshaw, "Parallel Scan for Stream
// Architectures", 2009: the upsweep / spine / downsweep of CUB's and Thrust's scans before the
// single-pass one).
//
// Lesson: scan2 to scan5 write the output twice and read it once more: 4n elements moved. Here the
// first pass only reads: the tiles are shared out in contiguous segments, one per block of a grid
// sized to the GPU (4 blocks of 512 per SM), and each block sums its segment (segment_sums); one
// block scans those few sums (the spine); the second pass reads the input again and each block
// scans its segment tile by tile with scan5's block scan, starting from its segment's offset and
// carrying the running total from one tile to the next. Input twice, output once: 3n, and the
// output is written only when it is final. The price is the second read of the input, which a
// single pass (scan7 onward) no longer pays.
//
// The carry makes one chain of roundings per segment (one per tile); the rounding depth says so
// (scan_plan::reduce_then_scan_depth).
#pragma once

#include "handwritten/scan/scan5_warp_shuffle.cuh"

namespace kl::scan6 {

using scan5::kItems;
using scan5::kThreads;
using scan5::kTile;
constexpr unsigned kBlocksPerSm = 4;  // 2048 threads: a full SM on 8.0, 9.0, 10.x
constexpr unsigned kSpineThreads = 1024;
constexpr int kWarps = kThreads / 32;

template <class T>
scan_plan::Segments segments_for(std::size_t n) {
  return scan_plan::segment_plan(n, kTile, std::size_t{sm_count()} * kBlocksPerSm);
}

// First pass: block b sums the tiles [b·per, (b + 1)·per) of the input. Each thread adds its
// items of every tile in order, then a shuffle tree over the warp (5 levels) and over the warps'
// sums (log2(16) = 4 levels).
template <class T>
__global__ void __launch_bounds__(kThreads) segment_sums(const T* __restrict__ in, std::size_t n, std::size_t per,
                                                       T* __restrict__ sums) {
  __shared__ T warp_sums[kWarps];
  const std::size_t tiles = scan_plan::tile_count(n, kTile);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * per;
  const std::size_t last = first + per < tiles ? first + per : tiles;
  T acc = T(0);
  for (std::size_t t = first; t < last; ++t) {
    T x[kItems];
    scan_detail::load_items(x, in, scan_plan::tile_begin(t, kTile), scan_plan::tile_valid(n, t, kTile), threadIdx.x);
#pragma unroll
    for (int j = 0; j < kItems; ++j) acc += x[j];
  }
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    T v = lane < kWarps ? warp_sums[lane] : T(0);
#pragma unroll
    for (int off = kWarps / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) sums[blockIdx.x] = v;
  }
}

// The spine: one block scans the segments' sums inclusively, 1024 at a time, carrying the total.
template <class T>
__global__ void __launch_bounds__(kSpineThreads) spine(const T* __restrict__ sums, std::size_t len, T* __restrict__ offsets) {
  using Scan = scan_detail::BlockScan<kSpineThreads, 1, T>;
  __shared__ typename Scan::Storage storage;
  T carry = T(0);
  for (std::size_t c = 0; c < len; c += kSpineThreads) {
    const std::size_t i = c + threadIdx.x;
    T x[1] = {i < len ? sums[i] : T(0)};
    T aggregate;
    const T prefix = Scan::run(x, storage, aggregate);
    scan_detail::write_prefixes(x, carry + prefix, true);
    if (i < len) offsets[i] = x[0];
    carry = carry + aggregate;
    __syncthreads();
  }
}

// Second pass: block b scans its segment tile by tile, from the sum of the segments before it.
template <class T>
__global__ void __launch_bounds__(kThreads) segment_scan(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                                       ScanForm form, std::size_t per, const T* __restrict__ offsets) {
  using Scan = scan_detail::BlockScan<kThreads, kItems, T>;
  __shared__ typename Scan::Storage storage;
  const std::size_t tiles = scan_plan::tile_count(n, kTile);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * per;
  const std::size_t last = first + per < tiles ? first + per : tiles;
  const bool incl = form == ScanForm::inclusive;
  T carry = blockIdx.x == 0 ? T(0) : offsets[blockIdx.x - 1];
  for (std::size_t t = first; t < last; ++t) {
    const std::size_t begin = scan_plan::tile_begin(t, kTile), valid = scan_plan::tile_valid(n, t, kTile);
    T x[kItems];
    scan_detail::load_items(x, in, begin, valid, threadIdx.x);
    T aggregate;
    const T prefix = Scan::run(x, storage, aggregate);
    scan_detail::write_prefixes(x, carry + prefix, incl);
    scan_detail::store_items(x, out, begin, valid, threadIdx.x);
    carry = carry + aggregate;
    __syncthreads();
  }
}

// Workspace: the segments' sums, then their inclusive scan.
template <class T>
std::size_t workspace_bytes(ScanShape sh) {
  return 2 * scan_plan::align_up(segments_for<T>(sh.n).blocks * sizeof(T));
}

template <class T>
void launch(const ScanArgs<T>& a, cudaStream_t s) {
  const scan_plan::Segments seg = segments_for<T>(a.n);
  T* sums = static_cast<T*>(a.workspace);
  T* offsets = scan_detail::at_bytes<T>(a.workspace, scan_plan::align_up(seg.blocks * sizeof(T)));
  const unsigned blocks = grid_blocks(seg.blocks);
  segment_sums<T><<<blocks, kThreads, 0, s>>>(a.in, a.n, seg.per_segment, sums);
  KL_CHECK_LAUNCH();
  spine<T><<<1, kSpineThreads, 0, s>>>(sums, seg.blocks, offsets);
  KL_CHECK_LAUNCH();
  segment_scan<T><<<blocks, kThreads, 0, s>>>(a.in, a.out, a.n, a.form, seg.per_segment, offsets);
  KL_CHECK_LAUNCH();
}

template <class T>
ScanVariant<T> variant() {
  return {
      .info = {"scan6_reduce_then_scan", "beyond the documents: Merrill & Grimshaw 2009 (upsweep, spine, downsweep)",
               "segments summed, the sums scanned, the segments scanned from their offsets: 3n memory traffic"},
      .launch = launch<T>,
      .workspace_bytes = workspace_bytes<T>,
      .rounding_depth = [](ScanShape sh) {
        return scan_plan::reduce_then_scan_depth(segments_for<T>(sh.n), kItems, kThreads, sh.form == ScanForm::inclusive);
      },
      .unsupported = [](ScanShape sh) -> const char* {
        const double d = scan_plan::reduce_then_scan_depth(segments_for<T>(sh.n), kItems, kThreads, true);
        return scan_plan::depth_too_long<T>(d) ? "its carry chain is too long for any error bound at this n" : nullptr;
      },
  };
}

}  // namespace kl::scan6
