// gemm13_tma_warpspecialized _at_ragged — beyond the documents, Hopper (sm_90a), an ablation: the
// transposing form's ring, tile and FMA warps (gemm13_transpose_a.cuh) with TMA taken out.
// docs/sgemm-ladder.md, "gemm13 without TMA", has the measurements.
//
// Lesson: what does TMA buy? A TMA descriptor needs 16-byte row pitches and bases, so a float
// product whose N or K is not a multiple of 4 cannot take gemm13's path at all. The ring itself
// does not need TMA: it needs a producer that fills a slot and makes full[s] complete once the
// bytes are there. Here the producer warpgroup's 128 threads do that with 4-byte cp.async, each
// ending a tile with cp.async.mbarrier.arrive (an arrival on full[s] once that thread's copies
// have landed: the barrier counts 128, as in the transposing form). They write A straight into
// the [k][m] layout the FMA warps read (no staging buffer, no second pass), each warp's copy
// reading whole sectors and writing 32 banks (A's [k][m] rows padded by 4 floats for that:
// gemm13_config.hpp, kAPitch); inside K every copy is one instruction with immediate offsets.
// It takes any N, K and alignment, and is correct everywhere, but runs well behind the TMA form
// on the same shapes: a tile's 12 K four-byte copies go through the load/store unit and L1 that
// the FMA warps' fragment loads need, where TMA moves the same bytes in a few bulk requests
// beside them. The epilogue stores element by element where C's rows are not 16-byte aligned.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm13_consumer.cuh"
#include "handwritten/gemm/gemm13_producer.cuh"
#include "handwritten/gemm/gemm13_ragged_producer.cuh"

#include <cstddef>

namespace kl::gemm13 {

// ---- the kernel: gemm13_transpose_a.cuh's, with the ragged producer and either epilogue --------
// Slice blockIdx.z of k (k_split deep) of the C tile the block's place in the grid names, into
// c + blockIdx.z · split_stride (the list runs it unsplit: k_split = K).
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    kernel_ragged(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int M, int N, int K,
                  int k_split, std::size_t split_stride) {
#if KL_ARCH_AT_LEAST(90)  // mbarrier and setmaxnreg; compiled for older targets as an empty kernel
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  Ring<C::STAGES> ring{smem + C::kBarrierOffset};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k0 = blockIdx.z * k_split;
  const int tiles = ceil_div(min(K - k0, k_split), C::BK);
  c += blockIdx.z * split_stride;
  const SliceWalk<C::BK> walk = gemm_walk::slice_walk<C::BM, C::BN, C::BK>(k0, 0);
  init_barriers<C>(smem, ring);

  if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup: every copy ----
    setmaxnreg_dec<C::kRegsProducer>();
    fill_ragged<C>(RaggedOperands{a, b, M, N, K}, ring, smem, walk, threadIdx.x - C::kConsumers, tiles);
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();

  // ---- the FMA warps: as the transposing form's ----
  const int lm = lane % C::kLanesM, ln = lane / C::kLanesM;
  const int wm0 = (warp / C::kWarpsN) * C::WM, wn0 = (warp % C::kWarpsN) * C::WN;
  const FmaWarp<C> fma_warp{lm, ln, wm0, wn0, 0, 0, C::kABytes + (wn0 + ln * 4) * 4};  // A read as [k][m]: no swizzle terms
  float acc[C::TM][C::TN];
  FmaWarp<C>::zero(acc);
  for (int t = 0; t < tiles; ++t) {
    ring.wait();
    const unsigned char* st = FmaWarp<C>::stage(smem_raw, ring.stage);
#pragma unroll
    for (int k = 0; k < C::BK; ++k) {
      float4 a4[C::TM / 4], bv[C::TN / 4];
      fma_warp.load_a_km(a4, st, k);
      fma_warp.load_b(bv, st, k);
      fma_warp.fma_step_km(acc, a4, bv);
    }
    ring.arrive();  // this thread is done with the stage (its refill is cp.async: no proxy fence)
    ring.advance();
  }
  fma_warp.store_any(acc, c, walk.row0, walk.col0, M, N);
#endif
}

}  // namespace kl::gemm13
