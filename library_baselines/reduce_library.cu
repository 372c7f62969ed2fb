// Library baselines for the reduce family: Thrust and CUB, the same job as the hand-written
// ladder (handwritten/reduce/), wrapped to the same contract (common/variant.hpp).
//
//   "thrust_reduce"          thrust::reduce(par(alloc).on(stream), in, in + n). Thrust hands the
//                            sum back to the host: inside the call it runs CUB's kernels, copies
//                            the 4-byte (8-byte) result device -> host and synchronises the
//                            stream; the wrapper then copies it to *out (host -> device, from
//                            pinned memory made in prepare()). Its timed region therefore holds
//                            the kernels, two tiny copies, and the gap while the host wakes from
//                            the synchronisation and enqueues the second copy: the cost of
//                            Thrust's interface, not of its reduction. Its temporary storage comes
//                            from the runner's workspace through a bump allocator, so no
//                            cudaMalloc/cudaFree happens inside the timed call.
//   "cub_device_reduce_sum"  cub::DeviceReduce::Sum into *out, temporary storage = workspace,
//                            sized by the usual query with a null pointer (host only).
//   "cub_block_reduce"       what CUB offers to kernel writers: a grid-stride loop (one value
//                            per thread per step) and cub::BlockReduce, then a second pass of the
//                            same kernel with one block over the partials; both on the GPU.
//
// Rounding depth. CUB documents no summation order, so the bounds are read from the CCCL 3.0
// source: see cub_reduce_depth in library_baselines/library_common.cuh (shared with the dot
// baselines). The grid CUB really launches is recovered from its own temporary-storage size.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/cached_query.hpp"
#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/reduce_launch.cuh"
#include "common/args/reduce_args.hpp"
#include "library_baselines/library_common.cuh"

namespace kl {
namespace {

using lib_detail::cub_reduce_depth;

// ---------------------------------------------------------------------------------------------
// thrust_reduce

// thrust::reduce is Reduce(plus, 0) over the input pointer.
template <class T>
std::size_t thrust_cub_bytes(std::size_t n) {
  return lib_detail::thrust_reduce_cub_bytes<T>(static_cast<const T*>(nullptr), n, ::cuda::std::plus<T>());
}
template <class T>
using ThrustReduce = lib_detail::ThrustReduction<T, thrust_cub_bytes<T>>;

template <class T>
void thrust_launch(const ReduceArgs<T>& a, cudaStream_t s) {
  ThrustReduce<T>::run([&](const auto& policy) { return thrust::reduce(policy, a.in, a.in + a.n); }, a.workspace, a.n,
                       a.out, s);
}

// ---------------------------------------------------------------------------------------------
// cub_device_reduce_sum

template <class T>
std::size_t cub_workspace_bytes(std::size_t n) {
  std::size_t bytes = 0;
  KL_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n));
  return bytes;
}

template <class T>
void cub_launch(const ReduceArgs<T>& a, cudaStream_t s) {
  std::size_t bytes = remembered<cub_workspace_bytes<T>>(a.n);
  KL_CUDA_CHECK(cub::DeviceReduce::Sum(a.workspace, bytes, a.in, a.out, a.n, s));
}

// ---------------------------------------------------------------------------------------------
// cub_block_reduce

constexpr unsigned kBlockThreads = 256;
constexpr unsigned kBlocksPerSm = 8;  // 2048 threads: a full Hopper SM

template <class T>
__global__ void __launch_bounds__(kBlockThreads) block_reduce_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                    std::size_t n) {
  using BlockReduce = cub::BlockReduce<T, kBlockThreads, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename BlockReduce::TempStorage temp;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlockThreads;
  T acc = T(0);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBlockThreads + threadIdx.x; i < n; i += stride)
    acc += in[i];
  const T sum = BlockReduce(temp).Sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

unsigned block_reduce_grid(std::size_t n) {
  const std::size_t full = std::size_t{sm_count()} * kBlocksPerSm;
  const std::size_t wanted = ceil_div(n, kBlockThreads);
  return grid_blocks(wanted < full ? wanted : full);
}

// One pass over len values with `grid` blocks: a serial chain of ceil(len / (grid·256)) values
// per thread, then BlockReduce WARP_REDUCTIONS: 5 shuffle levels + 7 serial warp sums.
double block_reduce_pass_depth(std::size_t len, std::size_t grid) {
  return static_cast<double>(ceil_div(len, grid * kBlockThreads)) + 5 + (kBlockThreads / 32 - 1);
}

template <class T>
void block_reduce_launch(const ReduceArgs<T>& a, cudaStream_t s) {
  const unsigned grid = block_reduce_grid(a.n);
  reduce_launch::run_two_pass<T>(
      grid, a.out, a.workspace, [&](T* dst) { block_reduce_kernel<T><<<grid, kBlockThreads, 0, s>>>(a.in, dst, a.n); },
      [&](const T* partials, T* dst) { block_reduce_kernel<T><<<1, kBlockThreads, 0, s>>>(partials, dst, grid); });
}

}  // namespace

template <class T>
std::vector<ReduceVariant<T>> reduce_library() {
  return {
      {
          .info = {"thrust_reduce", "Thrust",
                   "thrust::reduce: returns the sum to the host, so the time includes a D->H copy, a stream "
                   "sync and the H->D copy to *out",
                   Source::library},
          .launch = thrust_launch<T>,
          .workspace_bytes = ThrustReduce<T>::workspace_bytes,
          // thrust::reduce is cub::DeviceReduce::Reduce(plus, init 0): CUB's order
          .rounding_depth = ThrustReduce<T>::rounding_depth,
          .prepare = ThrustReduce<T>::prepare,
      },
      {
          .info = {"cub_device_reduce_sum", "CUB", "cub::DeviceReduce::Sum: tuned tiles, vector loads, two kernels",
                   Source::library},
          .launch = cub_launch<T>,
          .workspace_bytes = cub_workspace_bytes<T>,
          .rounding_depth = [](std::size_t n) { return cub_reduce_depth<T>(n, cub_workspace_bytes<T>(n)); },
      },
      {
          .info = {"cub_block_reduce", "CUB",
                   "grid-stride loop + cub::BlockReduce, second pass one block: CUB's block primitive alone",
                   Source::library},
          .launch = block_reduce_launch<T>,
          .workspace_bytes = [](std::size_t n) { return reduce_launch::two_pass_workspace_bytes<T>(block_reduce_grid(n)); },
          .rounding_depth = [](std::size_t n) {
            return reduce_launch::two_pass_depth(n, block_reduce_grid(n), block_reduce_pass_depth);
          },
      },
  };
}

template std::vector<ReduceVariant<int>> reduce_library<int>();
template std::vector<ReduceVariant<float>> reduce_library<float>();
template std::vector<ReduceVariant<double>> reduce_library<double>();

}  // namespace kl
