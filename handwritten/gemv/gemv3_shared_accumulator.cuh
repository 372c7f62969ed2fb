// gemv3_shared_accumulator — document 003, its second listing: gemv2 with the accumulator in
// shared memory (`shared_c[threadIdx.x]`), written to y once at the end, y = A·x.
//
// Lesson: the document's second idea, keep the running sum out of global memory. Each thread
// owns one word of shared_c (thread t, word t: no bank conflicts). On a current compiler the
// gain is at most gemv2's one load and store of y[i] per chunk (see gemv2): shared_c[t] too is
// kept in a register within a chunk and written back at every barrier (SASS, CUDA 13.0: one
// LDS/STS pair per chunk where gemv2 has one LDG/STG pair), and a register for the whole loop
// (gemv1) is better than both. The profiler should show shared stores per chunk and no
// change in A's uncoalesced loads, which is still where the time goes. Prediction: the same
// speed as gemv2. Measured (H100, docs/gemv.md, "The ladder"): it held.
//
// Changed from document 003: as gemv2 (chunk count ceil(N / THREAD_PER_BLOCK), inner loop
// bounded by the chunk's real length, 64-bit row offsets, any M, N), and its typos
// (`__syncthread`, `threadId.x`, a Cyrillic `С` for C). Its __syncthreads() after the
// zeroing and after the final store are dropped: each thread touches only its own word of
// shared_c, so no other thread's access needs ordering against them (the barriers inside the
// loop stay: they guard shared_vector).
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gemv3 {

constexpr int THREAD_PER_BLOCK = matvec::kDocThreads;

template <class T>
__global__ void __launch_bounds__(THREAD_PER_BLOCK)
    gemv_shared_accumulator(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N) {
  __shared__ T shared_vector[THREAD_PER_BLOCK];
  __shared__ T shared_c[THREAD_PER_BLOCK];
  const int i = blockIdx.x * THREAD_PER_BLOCK + static_cast<int>(threadIdx.x);
  const T* a = A + static_cast<std::size_t>(i < M ? i : 0) * N;
  shared_c[threadIdx.x] = T(0);
  const int chunks = ceil_div(N, THREAD_PER_BLOCK);
  for (int k = 0; k < chunks; ++k) {
    const int base = k * THREAD_PER_BLOCK;
    matvec::stage_chunk(shared_vector, x, base, N);
    __syncthreads();
    if (i < M) {
      const int len = min(THREAD_PER_BLOCK, N - base);
      for (int j = 0; j < len; ++j) shared_c[threadIdx.x] += a[base + j] * shared_vector[j];
    }
    __syncthreads();
  }
  if (i < M) y[i] = shared_c[threadIdx.x];
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gemv3_shared_accumulator", "003: listing 2 (plus shared_c accumulator)",
                   "gemv2 with the running sum in shared memory, y written once"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gemv_shared_accumulator<T><<<grid_blocks(ceil_div(a.M, THREAD_PER_BLOCK)), THREAD_PER_BLOCK, 0, s>>>(
                a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace kl::gemv3
