// scan1_hillis_steele — beyond the documents (GPU Gems 3, chapter 39, section 39.2.1, "A Naive
// Parallel Scan", after Hillis and Steele 1986).
//
// Lesson: the first parallel prefix sum, one block in shared memory. At step d every element adds
// the element 2^d places before it, for d = 0 .. log2(n) - 1: after the last step element i holds
// x_0 + ... + x_i. log2(n) steps instead of n - 1, but every step touches every element: the block
// does n·log2(n) additions where a loop does n, so it is not work-efficient (Blelloch's scan,
// scan3, is). Each step reads the previous step's values and writes new ones, so the array is
// double-buffered: reading and writing one buffer in place would be a race (an element could read
// its neighbour's value of this step instead of the last one). One block only: n <= 1024, the
// largest block (scan2 lifts the limit).
//
// Changed from GPU Gems: the chapter's listing scans one array of blockDim elements exclusively by
// shifting on load; here the block scans inclusively and the exclusive form reads element i - 1's
// prefix, and threads past n hold 0. The kernel also writes the tile's total when asked (scan2
// uses it per tile).
#pragma once

#include "handwritten/scan/scan_common.cuh"

namespace kl::scan1 {

constexpr unsigned kThreads = 1024;

// Block b scans elements [b·1024, b·1024 + 1024) of in (one per thread) into out; tile b's total
// to totals[b] when totals is not null.
template <class T>
__global__ void __launch_bounds__(kThreads) hillis_steele(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                                        ScanForm form, T* __restrict__ totals) {
  __shared__ T buf[2][kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t begin = scan_plan::tile_begin(blockIdx.x, kThreads);
  const std::size_t valid = scan_plan::tile_valid(n, blockIdx.x, kThreads);
  buf[0][tid] = tid < valid ? in[begin + tid] : T(0);
  __syncthreads();
  int p = 0;
  for (unsigned d = 1; d < kThreads; d <<= 1) {
    T v = buf[p][tid];
    if (tid >= d) v += buf[p][tid - d];
    buf[1 - p][tid] = v;
    p = 1 - p;
    __syncthreads();
  }
  if (tid < valid) out[begin + tid] = form == ScanForm::inclusive ? buf[p][tid] : (tid == 0 ? T(0) : buf[p][tid - 1]);
  if (totals && tid == kThreads - 1) totals[blockIdx.x] = buf[p][kThreads - 1];
}

template <class T>
ScanVariant<T> variant() {
  return {
      .info = {"scan1_hillis_steele", "beyond the documents: GPU Gems 3 ch. 39.2.1 (Hillis-Steele)",
               "one block of 1024, log2(n) double-buffered steps in shared memory: n log n additions"},
      .launch = [](const ScanArgs<T>& a, cudaStream_t s) {
        hillis_steele<T><<<1, kThreads, 0, s>>>(a.in, a.out, a.n, a.form, nullptr);
        KL_CHECK_LAUNCH();
      },
      .rounding_depth = [](ScanShape sh) { return scan_plan::hillis_steele_depth(sh.n); },
      .unsupported = [](ScanShape sh) -> const char* {
        return sh.n > kThreads ? "one block of 1024 threads, one element each: n <= 1024" : nullptr;
      },
  };
}

}  // namespace kl::scan1
