// gemv2_shared_vector — document 003, its first listing: the vector x copied into shared memory
// in chunks of THREAD_PER_BLOCK elements (Fig. 2), each thread multiplying its row's part by the
// chunk, y = A·x.
//
// Lesson: shared memory is a cache the program manages. It pays when the same data is read
// many times from global memory, and the document's argument is that every thread of a block
// reads the whole vector. What the profiler should show on a current GPU: the chunk copy is
// conflict-free (thread t writes word t) and the reads shared_vector[j] are broadcasts (every
// thread of the warp reads the same j), so no bank conflicts; but x was never the problem. It
// is small and every thread reads it at the same address, so it already came from L1 in gemv1.
// The cost is A's uncoalesced row walks (4 useful bytes per 32-byte sector), which this step
// does not touch, and it adds two __syncthreads() per chunk. Prediction: no faster than gemv1
// Measured (H100, docs/gemv.md, "What staging the vector buys on an H100"): in double a little
// slower, as predicted; in float the prediction failed at some sizes: faster at N = 1000 and
// N = 2000, slower at N = 500 and 1500; why is not established (not profiled).
//
// Changed from document 003, whose pseudocode has typos (`__syncthread`, `threadId`), names the
// rows N and the columns M (here M rows, N columns, as in the rest of the project), and two
// bugs:
//   - its inner loop runs j < THREAD_PER_BLOCK on every chunk, so on the last, partial chunk
//     it multiplies A[i][j + k·THREAD_PER_BLOCK] for j past the end of the row (the next row's
//     elements, or past the end of A on the last row) by stale shared_vector entries: here the
//     loop stops at the chunk's real length;
//   - `C[i] +=` accumulates into global memory that nothing set to zero: here y[i] = 0 first.
// The chunk count is ceil(N / THREAD_PER_BLOCK); the document's `M / THREAD_PER_BLOCK + 1` adds
// an empty chunk (two more barriers) whenever the block divides the length. Threads without a
// row still copy their element and reach every barrier, as in the document.
//
// The accumulator stays in global memory as the document writes it (`y[i] +=`); the
// compiler keeps it in a register within a chunk (A, x, y are __restrict__, and nothing may
// change y[i] between barriers) and writes it back at every barrier, so the cost is one load
// and one store of y[i] per chunk, not per element (SASS, CUDA 13.0: one LDG/STG pair per
// chunk; the reads of shared_vector are LDS.128 broadcasts, 4 elements at a time).
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

namespace kl::gemv2 {

constexpr int THREAD_PER_BLOCK = matvec::kDocThreads;

template <class T>
__global__ void __launch_bounds__(THREAD_PER_BLOCK)
    gemv_shared_vector(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N) {
  __shared__ T shared_vector[THREAD_PER_BLOCK];
  const int i = blockIdx.x * THREAD_PER_BLOCK + static_cast<int>(threadIdx.x);
  const T* a = A + static_cast<std::size_t>(i < M ? i : 0) * N;
  if (i < M) y[i] = T(0);
  const int chunks = ceil_div(N, THREAD_PER_BLOCK);
  for (int k = 0; k < chunks; ++k) {
    const int base = k * THREAD_PER_BLOCK;
    matvec::stage_chunk(shared_vector, x, base, N);
    __syncthreads();  // the whole chunk is in shared memory
    if (i < M) {
      const int len = min(THREAD_PER_BLOCK, N - base);
      for (int j = 0; j < len; ++j) y[i] += a[base + j] * shared_vector[j];
    }
    __syncthreads();  // every thread is done with the chunk before it is overwritten
  }
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gemv2_shared_vector", "003: listing 1 (x staged in shared memory by chunks)",
                   "x through shared memory in block-sized chunks; A still read along rows"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gemv_shared_vector<T><<<grid_blocks(ceil_div(a.M, THREAD_PER_BLOCK)), THREAD_PER_BLOCK, 0, s>>>(
                a.A, a.x, a.y, a.M, a.N);
            KL_CHECK_LAUNCH();
          }};
}

}  // namespace kl::gemv2
