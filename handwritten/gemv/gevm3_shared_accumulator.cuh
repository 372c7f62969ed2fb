// gevm3_shared_accumulator — document 003's second listing "by analogy": gevm2 with the running
// sum in shared memory (shared_c[threadIdx.x]), y written once, y = x·A.
//
// Lesson: as gemv3: the accumulator leaves global memory, but a register would have been
// better still; thread t owns word t of shared_c, so no bank conflicts. Prediction: the speed
// of gevm2. Measured (H100, docs/gemv.md, "What staging the vector buys on an H100", document
// 003's sweep): faster than gevm2, by little in float and by most of gevm2's loss in double.
//
// Changed from document 003: as gevm2 (chunks over the rows, bounded inner loop, 64-bit
// offsets, any M, N) and gemv3 (the barriers after zeroing shared_c and after the final
// store are not needed: each thread touches only its own word).
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gevm3 {

constexpr int THREAD_PER_BLOCK = matvec::kDocThreads;

template <class T>
__global__ void __launch_bounds__(THREAD_PER_BLOCK)
    gevm_shared_accumulator(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N) {
  __shared__ T shared_vector[THREAD_PER_BLOCK];
  __shared__ T shared_c[THREAD_PER_BLOCK];
  const int j = blockIdx.x * THREAD_PER_BLOCK + static_cast<int>(threadIdx.x);
  shared_c[threadIdx.x] = T(0);
  const int chunks = ceil_div(M, THREAD_PER_BLOCK);
  for (int k = 0; k < chunks; ++k) {
    const int base = k * THREAD_PER_BLOCK;
    matvec::stage_chunk(shared_vector, x, base, M);
    __syncthreads();
    if (j < N) {
      const int len = min(THREAD_PER_BLOCK, M - base);
      const T* a = A + static_cast<std::size_t>(base) * N + j;
      for (int r = 0; r < len; ++r) shared_c[threadIdx.x] += shared_vector[r] * a[static_cast<std::size_t>(r) * N];
    }
    __syncthreads();
  }
  if (j < N) y[j] = shared_c[threadIdx.x];
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gevm3_shared_accumulator", "003: listing 2 by analogy (plus shared_c accumulator)",
                   "gevm2 with the running sum in shared memory, y written once"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gevm_shared_accumulator<T><<<grid_blocks(ceil_div(a.N, THREAD_PER_BLOCK)), THREAD_PER_BLOCK, 0, s>>>(
                a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace kl::gevm3
