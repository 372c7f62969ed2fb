// Library baselines for the scan family: CUB and Thrust doing the same job as the hand-written
// ladder (handwritten/scan/), wrapped to the same contract (common/variant.hpp). The list, in
// order: cub_device_scan and thrust_scan (library_baselines/scan_device_library.cu: the
// device-wide calls), then
//
//   "cub_block_scan"    what CUB offers to kernel writers, in a hand-written single-pass kernel:
//                       the tile index from an atomic counter (as the ladder's single-pass steps
//                       take it), cub::BlockLoad and cub::BlockStore (WARP_TRANSPOSE), cub::BlockScan
//                       (WARP_SCANS) with cub::TilePrefixCallbackOp over cub::ScanTileState (CUB's
//                       decoupled look-back) as its prefix; 128 threads of 24 4-byte or 12 8-byte
//                       elements, DeviceScan's sm_90 tile. An init kernel clears the tile states
//                       and the counter first (CUB's InitializeStatus).
//
// The copy ceiling: no library "copy" row. A device-to-device copy of the same bytes is what a scan
// aims at, but it is not a scan and could pass validation only if it were validated differently;
// the runner measures the copy bandwidth in every run and reports each row against it ("vs
// ceil"), which is that yardstick without a special case (library_baselines/transpose_library.cu
// says the same).
//
// Rounding depth: CUB's order (lib_detail::cub_lookback_depth, read from the CCCL 3.0 source) with
// this kernel's tiles.
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/std/functional>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/args/scan_args.hpp"
#include "library_baselines/library_common.cuh"

namespace kl {
namespace {

// ---------------------------------------------------------------------------------------------
// cub_block_scan

constexpr int kBlockThreads = 128;
template <class T>
constexpr int kBlockItems = sizeof(T) == 4 ? 24 : 12;
template <class T>
constexpr std::size_t kBlockTile = std::size_t{kBlockThreads} * kBlockItems<T>;

template <class T>
using TileState = cub::ScanTileState<T>;

// The counter back to 0 and every tile's status to "not yet set" (CUB's own InitializeStatus).
template <class T>
__global__ void __launch_bounds__(kBlockThreads) init_tiles(TileState<T> state, int tiles, unsigned* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter = 0;
  state.InitializeStatus(tiles);
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) block_scan_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   std::size_t n, ScanForm form, unsigned* counter,
                                                                   TileState<T> state, int tiles) {
  constexpr int kItems = kBlockItems<T>;
  using Load = cub::BlockLoad<T, kBlockThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<T, kBlockThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<T, kBlockThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  using Prefix = cub::TilePrefixCallbackOp<T, ::cuda::std::plus<>, TileState<T>>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    struct {
      typename Scan::TempStorage scan;
      typename Prefix::TempStorage prefix;
    } scan;
  } temp;
  __shared__ unsigned tile_index;
  if (threadIdx.x == 0) tile_index = atomicAdd(counter, 1u);
  __syncthreads();
  const int tile = static_cast<int>(tile_index);
  const std::size_t begin = static_cast<std::size_t>(tile) * kBlockTile<T>;
  const std::size_t valid = n - begin < kBlockTile<T> ? n - begin : kBlockTile<T>;
  T items[kItems];
  if (valid == kBlockTile<T>) Load(temp.load).Load(in + begin, items);
  else Load(temp.load).Load(in + begin, items, static_cast<int>(valid), T(0));
  __syncthreads();
  const bool incl = form == ScanForm::inclusive;
  if (tile == 0) {
    T aggregate;
    if (incl) Scan(temp.scan.scan).InclusiveSum(items, items, aggregate);
    else Scan(temp.scan.scan).ExclusiveSum(items, items, aggregate);
    if (threadIdx.x == 0 && tiles > 1) state.SetInclusive(0, aggregate);
  } else {
    Prefix prefix(state, temp.scan.prefix, ::cuda::std::plus<>{}, tile);
    if (incl) Scan(temp.scan.scan).InclusiveSum(items, items, prefix);
    else Scan(temp.scan.scan).ExclusiveSum(items, items, prefix);
  }
  __syncthreads();
  if (valid == kBlockTile<T>) Store(temp.store).Store(out + begin, items);
  else Store(temp.store).Store(out + begin, items, static_cast<int>(valid));
}

// Workspace: the counter (256 bytes), then CUB's tile states.
template <class T>
std::size_t block_scan_state_bytes(std::size_t n) {
  std::size_t bytes = 0;
  KL_CUDA_CHECK(TileState<T>::AllocationSize(static_cast<int>(ceil_div(n, kBlockTile<T>)), bytes));
  return bytes;
}

template <class T>
void block_scan_launch(const ScanArgs<T>& a, cudaStream_t s) {
  const std::size_t tiles = ceil_div(a.n, kBlockTile<T>);
  unsigned* counter = static_cast<unsigned*>(a.workspace);
  TileState<T> state;
  KL_CUDA_CHECK(state.Init(static_cast<int>(tiles), static_cast<unsigned char*>(a.workspace) + 256,
                           block_scan_state_bytes<T>(a.n)));
  // CUB's InitializeStatus clears 32 padding states from block 0 as well as one per thread.
  init_tiles<T><<<grid_blocks(std::max<std::size_t>(1, ceil_div(tiles, std::size_t{kBlockThreads}))), kBlockThreads, 0, s>>>(
      state, static_cast<int>(tiles), counter);
  KL_CHECK_LAUNCH();
  block_scan_kernel<T><<<grid_blocks(tiles), kBlockThreads, 0, s>>>(a.in, a.out, a.n, a.form, counter, state,
                                                                   static_cast<int>(tiles));
  KL_CHECK_LAUNCH();
}

template <class T>
double block_scan_depth(ScanShape sh) {
  return lib_detail::cub_lookback_depth(ceil_div(sh.n, kBlockTile<T>), kBlockItems<T>, kBlockThreads / 32);
}

}  // namespace

template <class T>
std::vector<ScanVariant<T>> scan_device_library();  // scan_device_library.cu

template <class T>
std::vector<ScanVariant<T>> scan_library() {
  std::vector<ScanVariant<T>> v = scan_device_library<T>();
  v.push_back({
      .info = {"cub_block_scan", "CUB",
               "hand-written single pass from CUB's blocks: BlockLoad, BlockScan + TilePrefixCallbackOp, BlockStore",
               Source::library},
      .launch = block_scan_launch<T>,
      .workspace_bytes = [](ScanShape sh) { return 256 + block_scan_state_bytes<T>(sh.n); },
      .rounding_depth = block_scan_depth<T>,
      .unsupported = [](ScanShape sh) -> const char* {
        if (ceil_div(sh.n, kBlockTile<T>) > 0x7fffffe0u) return "CUB's tile states count tiles in an int";
        return lib_detail::scan_depth_too_long<T>(block_scan_depth<T>(sh))
                   ? "its chain of roundings (one per tile) is too long for any error bound at this n"
                   : nullptr;
      },
  });
  return v;
}

template std::vector<ScanVariant<int>> scan_library<int>();
template std::vector<ScanVariant<float>> scan_library<float>();
template std::vector<ScanVariant<double>> scan_library<double>();

}  // namespace kl
