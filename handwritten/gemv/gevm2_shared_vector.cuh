// gevm2_shared_vector — document 003's first listing "by analogy": y = x·A, one thread per
// column, x staged through shared memory in chunks of THREAD_PER_BLOCK elements, the running
// sum in global y[j] as the document's `C[i] +=`.
//
// Lesson: the staging is the same as gemv2's and buys as little: x[i] was already one
// broadcast address per warp, cached. A's reads were coalesced before and stay so. Shared
// memory: the chunk copy writes word t from thread t, the reads shared_vector[r] are
// broadcasts: no bank conflicts. Prediction: the speed of gevm1, minus the barriers
// Measured (H100, docs/gemv.md, "What staging the vector buys on an H100"): the prediction
// failed: staging made it clearly slower than gevm1 in float and in double over document 003's
// sweep.
//
// Changed from document 003 (written for gemv; see gemv2 for its bugs and typos): the chunks
// run over the rows, ceil(M / THREAD_PER_BLOCK) of them, the inner loop bounded by the chunk's
// real length (the document's reads past the end of the vector and of A on the last chunk);
// y[j] set to zero before it is accumulated into; 64-bit row offsets; any M, N. Threads without
// a column still copy their element of x and reach every barrier.
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gevm2 {

constexpr int THREAD_PER_BLOCK = matvec::kDocThreads;

template <class T>
__global__ void __launch_bounds__(THREAD_PER_BLOCK)
    gevm_shared_vector(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N) {
  __shared__ T shared_vector[THREAD_PER_BLOCK];
  const int j = blockIdx.x * THREAD_PER_BLOCK + static_cast<int>(threadIdx.x);
  if (j < N) y[j] = T(0);
  const int chunks = ceil_div(M, THREAD_PER_BLOCK);
  for (int k = 0; k < chunks; ++k) {
    const int base = k * THREAD_PER_BLOCK;
    matvec::stage_chunk(shared_vector, x, base, M);
    __syncthreads();
    if (j < N) {
      const int len = min(THREAD_PER_BLOCK, M - base);
      const T* a = A + static_cast<std::size_t>(base) * N + j;
      for (int r = 0; r < len; ++r) y[j] += shared_vector[r] * a[static_cast<std::size_t>(r) * N];
    }
    __syncthreads();
  }
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gevm2_shared_vector", "003: listing 1 by analogy (x staged by chunks of rows)",
                   "x through shared memory in block-sized chunks; A's reads already coalesced"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gevm_shared_vector<T><<<grid_blocks(ceil_div(a.N, THREAD_PER_BLOCK)), THREAD_PER_BLOCK, 0, s>>>(
                a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace kl::gevm2
