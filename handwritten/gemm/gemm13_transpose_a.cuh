// gemm13_tma_warpspecialized _at — beyond the documents, Hopper (sm_90a): gemm13's ring with A
// transposed by the producer warpgroup. docs/sgemm-ladder.md, "gemm13: what Hopper adds to a
// CUDA-core GEMM", has the measurements.
//
// Lesson: TMA cannot transpose, so in gemm13_tma_warpspecialized.cuh A lands as [m][k] and each
// FMA thread holds TM rows × 4 k of it across four k steps (a thread tile of 8 × 16, its rows
// kLanesM apart). The [k][m] layout that gemm12 and cuBLAS's kernel read gives each FMA thread 4
// consecutive rows per LDS.128 and frees those registers. The producer warpgroup, idle but for
// one thread, can pay for it: TMA lands each A tile in a staging buffer, its 128 threads rewrite
// it into the stage as [k][m], and they arrive on full[s] themselves (128 arrivals plus B's
// bytes; gemm13_transpose_producer.cuh, which the stream-K form runs too). The tile becomes
// 128 × 256 (half the A to transpose per FFMA). Every FMA thread then releases the stage itself
// (the stage's A is written by threads, not TMA: racecheck cannot order the other lanes' reads
// through one lane's arrive).
#pragma once

#include "common/hopper.cuh"
#include "common/pdl.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm13_consumer.cuh"
#include "handwritten/gemm/gemm13_producer.cuh"
#include "handwritten/gemm/gemm13_transpose_producer.cuh"

#include <cstddef>

namespace kl::gemm13 {

// ---- the kernel: gemm13_tma_warpspecialized.cuh's, with the transposing producer -------------
// ELEMENT_C: C's rows are not 16-byte aligned (N % 4 != 0 or its base; the padded forms,
// gemm13_padded.cuh), so the epilogue stores element by element.
template <class C, bool ELEMENT_C = false>
__global__ void __launch_bounds__(C::kThreads, 1)
    kernel_transpose_a(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       float* __restrict__ c, int M, int N, int K, int k_split, std::size_t split_stride, StreamArgs) {
#if KL_ARCH_AT_LEAST(90)  // TMA and mbarrier; compiled for older targets as an empty kernel
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  Ring<C::STAGES> ring{smem + C::kBarrierOffset};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k0 = blockIdx.z * k_split;
  const int tiles = ceil_div(min(K - k0, k_split), C::BK);
  c += blockIdx.z * split_stride;
  const SliceWalk<C::BK> walk = gemm_walk::slice_walk<C::BM, C::BN, C::BK>(k0, 0);
  init_barriers<C>(smem, ring);

  const Producer<C, SliceWalk<C::BK>> producer{&map_a, &map_b, smem, ring, M, 0, walk};
  if (threadIdx.x == C::kConsumers) {
    prefetch_tensormap(&map_a);
    prefetch_tensormap(&map_b);
  }
  if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup: copies and transposes ----
    setmaxnreg_dec<C::kRegsProducer>();
    pdl::wait_for_primary_grid();  // launched after padded copies: its TMA reads them
    transpose_all(producer, threadIdx.x - C::kConsumers, smem_raw, tiles);
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();

  // ---- the FMA warps: A as [k][m], read like B ----
  const int lm = lane % C::kLanesM, ln = lane / C::kLanesM;
  const int wm0 = (warp / C::kWarpsN) * C::WM, wn0 = (warp % C::kWarpsN) * C::WN;
  const int x = ((wm0 + lm) * C::kRowBytes >> 7) & C::kSwizzleMask;
  const int a_off = (wm0 + lm) * C::kRowBytes;
  const int b_off = C::kABytes + (wn0 + ln * 4) * 4;
  const FmaWarp<C> fma_warp{lm, ln, wm0, wn0, x, a_off, b_off};
  float acc[C::TM][C::TN];
  FmaWarp<C>::zero(acc);
  for (int t = 0; t < tiles; ++t) {
    ring.wait();
    const unsigned char* st = FmaWarp<C>::stage(smem_raw, ring.stage);
#pragma unroll
    for (int k = 0; k < C::BK; ++k) {  // A as [k][m]: TM / 4 LDS.128 per k, each 4 consecutive rows
      float4 a4[C::TM / 4], b[C::TN / 4];
      fma_warp.load_a_km(a4, st, k);
      fma_warp.load_b(b, st, k);
      fma_warp.fma_step_km(acc, a4, b);
    }
    fence_proxy_async_shared();
    ring.arrive();  // this thread is done with the stage (Config::kEmptyArrivals counts threads)
    ring.advance();
  }
  fma_warp.template store<!ELEMENT_C>(acc, c, walk.row0, walk.col0, M, N);
#endif
}

}  // namespace kl::gemm13
