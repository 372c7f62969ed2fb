// Pieces several library baselines share (reduce, dot, rows), said once:
//
//   WorkspaceAllocator   Thrust's temporary storage carved out of the runner's workspace, so no
//                        cudaMalloc/cudaFree runs inside a timed call
//   pinned_result<T>()   a pinned host slot for the value a Thrust reduction hands back to the host
//   ThrustReduction      a Thrust reduction (thrust::reduce, thrust::inner_product) as a baseline:
//                        its workspace, its depth, its run with the result copied to *out
//   cub_reduce_depth     the summation-tree height of cub::DeviceReduce (Reduce, Sum,
//                        TransformReduce; Thrust's reduce and inner_product call it) on sm_90
//   cub_segmented_depth  the same for cub::DeviceSegmentedReduce, one segment per block
//   cub_lookback_depth   the summation-tree height of a decoupled look-back scan built the way
//                        CUB builds it (cub::DeviceScan, Thrust's scans, the scan family's
//                        cub_block_scan), and scan_depth_too_long, where no bound is left
//
// CUB documents no summation order (only run-to-run determinism on one GPU), so the depths are
// read from the CCCL 3.0 source (cub/device/dispatch/dispatch_reduce.cuh, tuning_reduce.cuh,
// kernels/segmented_reduce.cuh, agent/agent_reduce.cuh, block/specializations/
// block_reduce_warp_reductions.cuh, grid/grid_even_share.cuh, util_temporary_storage.cuh,
// util_arch.cuh) and must be re-derived when CCCL's reduce tuning changes.
#pragma once

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>

#include "common/cached_query.hpp"
#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

namespace kl::lib_detail {

// ---------------------------------------------------------------------------------------------
// Thrust's temporary storage, carved out of the runner's workspace: a reduction asks for one
// block (sizeof(T) for the result plus CUB's temporary storage) and frees it before returning.
// Running out means the variant's workspace_bytes no longer matches Thrust's request: fail
// loudly (std::bad_alloc, reported in the variant's row).
class WorkspaceAllocator {
 public:
  using value_type = char;
  WorkspaceAllocator(void* base, std::size_t bytes) : base_(static_cast<char*>(base)), bytes_(bytes) {}
  char* allocate(std::ptrdiff_t bytes) {
    constexpr std::size_t kAlign = 256;  // what cudaMalloc guarantees, and Thrust assumes
    const std::size_t start = ceil_div(used_, kAlign) * kAlign;
    if (bytes < 0 || start + static_cast<std::size_t>(bytes) > bytes_) throw std::bad_alloc();
    used_ = start + static_cast<std::size_t>(bytes);
    return base_ + start;
  }
  void deallocate(char*, std::size_t) {}  // the runner owns the workspace

 private:
  char* base_;
  std::size_t bytes_;
  std::size_t used_ = 0;
};

// The host copy of a Thrust result, pinned so the copy to *out is a true asynchronous DMA from
// memory that outlives the call. One per element type, made in prepare(), freed at exit (when
// nobody is left to report a failure to).
template <class T>
class PinnedResult {
 public:
  PinnedResult() { KL_CUDA_CHECK(cudaMallocHost(&p_, sizeof(T))); }
  ~PinnedResult() { (void)cudaFreeHost(p_); }
  PinnedResult(const PinnedResult&) = delete;
  PinnedResult& operator=(const PinnedResult&) = delete;
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

template <class T>
T* pinned_result() {
  static PinnedResult<T> r;
  return r.get();
}

// ---------------------------------------------------------------------------------------------
// The reduce policy CUB runs on sm_90 (Policy600 of tuning_reduce.cuh; Policy1000's tunings are
// for sm_100): 256 threads, 16 items per thread for 4-byte accumulators, scaled by
// MemBoundScaling to 16·4/sizeof(T) (8 for double), BLOCK_REDUCE_WARP_REDUCTIONS. Only the
// accumulator type matters, so a transform or zip iterator input (sum of squares, dot) runs the
// same tiles as a plain pointer (without vector loads).
template <class T>
struct CubReducePolicy {
  static constexpr std::size_t threads = 256;
  static constexpr std::size_t items = sizeof(T) <= 4 ? 16 : 16 * 4 / sizeof(T);
  static constexpr std::size_t tile = threads * items;
  // BlockReduce WARP_REDUCTIONS: a shuffle tree in each warp (log2(32) = 5 levels), then thread
  // 0 adds the 7 other warp sums one after another.
  static constexpr double block_reduce = 5 + (threads / 32 - 1);
};

// Depth of cub::DeviceReduce over n items (plus, zero init) on sm_90, CCCL 3.0.
//   - n <= one tile: one block (DeviceReduceSingleTileKernel). Each thread folds at most `items`
//     values (whatever the order inside a thread, a chain over items values plus a running
//     aggregate is at most `items` roundings high), then BlockReduce.
//   - otherwise DeviceReduceKernel runs grid = min(tiles, max_blocks) blocks (GridEvenShare), each
//     taking at most ceil(tiles / grid) whole tiles, so a thread's chain is at most
//     ceil(tiles / grid)·items; BlockReduce; then the single-tile kernel over the grid partials:
//     ceil(grid / tile)·items more, and a BlockReduce.
//     max_blocks = sm_occupancy · SMs · subscription factor (5) is not exposed, but CUB sizes its
//     temporary storage from it: AliasTemporaries asks round_up_256(max_blocks·sizeof(T)) + 255
//     bytes, so max_blocks >= (temp_bytes - 510) / sizeof(T). The smallest max_blocks that fits
//     the real query gives the longest chain: an upper bound, from the grid CUB launches.
//   The zero init is added to the final value: exact, no rounding.
template <class T>
double cub_reduce_depth(std::size_t n, std::size_t temp_bytes) {
  using P = CubReducePolicy<T>;
  if (n <= P::tile) return static_cast<double>(P::items) + P::block_reduce;
  const std::size_t tiles = ceil_div(n, P::tile);
  const std::size_t max_blocks = temp_bytes > 510 + sizeof(T) ? (temp_bytes - 510) / sizeof(T) : 1;
  const std::size_t grid = std::min(tiles, max_blocks);
  const double first = static_cast<double>(ceil_div(tiles, grid) * P::items) + P::block_reduce;
  const double second = static_cast<double>(ceil_div(grid, P::tile) * P::items) + P::block_reduce;
  return first + second;
}

// Depth of cub::DeviceSegmentedReduce (Sum; Max/Min round nothing) for a segment of `len` items:
// DeviceSegmentedReduceKernel gives each segment one block running the same policy
// (AgentReduce::ConsumeRange over the segment): each thread folds at most `items` values per tile
// of 256·items, so at most ceil(len / tile)·items over the segment (the partial last tile
// included: fewer than `items` per thread), then BlockReduce; the zero init is added exactly.
template <class T>
double cub_segmented_depth(std::size_t len) {
  using P = CubReducePolicy<T>;
  return static_cast<double>(ceil_div(len, P::tile) * P::items) + P::block_reduce;
}

// ---------------------------------------------------------------------------------------------
// The height of a decoupled look-back scan as CUB builds it (CCCL 3.0: agent/agent_scan.cuh,
// agent/single_pass_scan_operators.cuh's TilePrefixCallbackOp, block/specializations/
// block_scan_warp_scans.cuh), over at most `tiles` tiles whose threads hold at most `items`
// elements, in blocks of at most `warps` warps. Within a tile each thread reduces its items in
// order, the warp scans its threads' sums with shuffles (5 levels), the warps' sums are added one
// after another, and each thread scans its items in order from its prefix. A tile's inclusive
// prefix is an earlier tile's plus the aggregates between, summed by a tail-segmented warp
// reduction over a window of 32 predecessors (at most ceil(log2(lanes)) roundings on the earlier
// prefix's path), chained across windows, then the tile's own aggregate added: a link spanning d
// tiles costs the earlier prefix at most ceil(log2(min(d, 32))) + 2 roundings and never more than
// d, so the chain over all tiles is at most one rounding per tile, and the aggregates' paths add at
// most the windows walked (ceil(tiles / 32)). The tile's own paths are counted twice over (once in
// the aggregate, once in the element), with 8 for the adds in between.
inline double cub_lookback_depth(std::size_t tiles, double items, double warps) {
  return static_cast<double>(tiles) + static_cast<double>(ceil_div(tiles, std::size_t{32})) + 2 * (items + 5 + warps) + 8;
}
// Whether a chain of `depth` roundings in T is too long for any bound (gamma(depth) >= 1); integers
// never (exact).
template <class T>
bool scan_depth_too_long(double depth) {
  if constexpr (std::is_integral_v<T>) return false;
  else return depth * (std::numeric_limits<T>::epsilon() / 2) >= 0.5;
}

// ---------------------------------------------------------------------------------------------
// A Thrust reduction as a baseline. thrust::reduce, and thrust::inner_product (a reduce over the
// products, formed on the fly), run cub::DeviceReduce::Reduce(first, n, op, init) with a 32-bit
// offset when n fits, else a 64-bit one, out of one allocation from the policy's allocator:
// sizeof(T) for the result, then CUB's temporary storage. They copy the result device -> host and
// synchronise the stream before returning it.

// CUB's temporary storage for that Reduce over [first, first + n) with `op` (a plus) and a zero init:
// `first` is a null iterator of the type the algorithm reduces (the size query reads nothing).
template <class T, class It, class Op>
std::size_t thrust_reduce_cub_bytes(It first, std::size_t n, Op op) {
  const auto query = [&](auto offset) {
    std::size_t bytes = 0;
    KL_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, first, static_cast<T*>(nullptr), offset, op, T(0)));
    return bytes;
  };
  return n <= 0x7fffffffu ? query(static_cast<std::int32_t>(n)) : query(static_cast<std::int64_t>(n));
}

// The variant hooks of a Thrust reduction whose CUB storage for n items is CubBytes(n) (a
// function over thrust_reduce_cub_bytes), and its run.
template <class T, std::size_t (*CubBytes)(std::size_t)>
struct ThrustReduction {
  static std::size_t workspace_bytes(std::size_t n) { return sizeof(T) + CubBytes(n); }
  // cub::DeviceReduce's order, from the grid its own storage query implies.
  static double rounding_depth(std::size_t n) { return cub_reduce_depth<T>(n, CubBytes(n)); }
  static void prepare() { (void)pinned_result<T>(); }

  // Runs reduce(policy), the Thrust call on stream s with its temporary storage carved out of the
  // workspace, and copies the value it hands back to *out from pinned memory.
  template <class Reduce>
  static void run(const Reduce& reduce, void* workspace, std::size_t n, T* out, cudaStream_t s) {
    WorkspaceAllocator alloc(workspace, remembered<workspace_bytes>(n));
    // Returns after synchronising s, so the previous call's copy out of *host has completed.
    const T result = reduce(thrust::cuda::par(alloc).on(s));
    T* host = pinned_result<T>();
    *host = result;
    KL_CUDA_CHECK(cudaMemcpyAsync(out, host, sizeof(T), cudaMemcpyHostToDevice, s));
  }
};

}  // namespace kl::lib_detail
