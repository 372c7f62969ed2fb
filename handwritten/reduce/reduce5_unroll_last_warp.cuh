// reduce5_unroll_last_warp — document 000 "reduce5", 001 "reduce4", 002 "Reduction #5"
// (and 002's warpReduce / reduction_2 for the volatile).
//
// Lesson: once s <= 32 only warp 0 is working, so the last six steps need neither the
// `tid < s` test nor a block-wide __syncthreads(); unrolling them saves that loop overhead in
// every block (000 table 3.3: 9.10 -> 8.67 ms; 001: 8.3 -> 5.7 ms over reduce3). The shared
// array is accessed through a volatile pointer there, or the compiler keeps sdata[tid] in a
// register across the steps and the other lanes never see the updates (002's point).
//
// Changed from the documents: the warp-synchronous part assumed the 32 lanes run in lockstep,
// which Volta's independent thread scheduling no longer guarantees: that was a race. It is the
// shared warp_reduce_volatile (reduce_common.cuh): volatile kept, each step reads into a
// register, __syncwarp(), writes, __syncwarp(). 000's loop has `s >= 1` for `s >>= 1`. The
// load is reduce4's (both halves bounded, 64-bit indices), and the block partials are reduced
// by further passes of the same kernel on the GPU instead of on the CPU.
#pragma once

#include "handwritten/reduce/reduce_common.cuh"

namespace kl::reduce5 {

constexpr unsigned kThreads = 256;
constexpr std::size_t kPerBlock = 2 * kThreads;

template <class T>
__global__ void reduce5(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  using reduce_detail::load_or_zero;
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = 2 * static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = load_or_zero(in, i, n) + load_or_zero(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) data[tid] += data[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    const T sum = reduce_detail::warp_reduce_volatile<T>(data, tid);
    if (tid == 0) out[blockIdx.x] = sum;
  }
}

template <class T>
ReduceVariant<T> variant() {
  return reduce_detail::multipass_variant<T, kThreads, kPerBlock, reduce5<T>>(
      {"reduce5_unroll_last_warp", "000: reduce5; 001: reduce4; 002: #5, warpReduce",
       "last 6 steps unrolled in warp 0 without __syncthreads (volatile + __syncwarp on Volta+)"});
}

}  // namespace kl::reduce5
