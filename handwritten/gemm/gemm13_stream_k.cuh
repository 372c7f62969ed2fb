// gemm13_tma_warpspecialized _at_streamk — beyond the documents, Hopper (sm_90a): the transposing
// form (gemm13_transpose_a.cuh) as stream-K, for products whose 128 × 256 tiles leave the last
// wave part-empty. docs/sgemm-ladder.md, "gemm13 stream-K", has the measurements.
//
// Lesson: one block per tile leaves SMs idle where the tiles are few (split-K: the transposing
// kernel itself over slices of k, gemm13_variants.cuh) or where the last wave of tiles is
// part-empty. Stream-K gives every SM the same work instead: one block per SM, each running the
// same number of k tiles of the whole product, across tile boundaries, through one ring (the
// producer loads the next tile's first stages while the FMA warps store the last tile). Tiles
// shared by several blocks are added from the workspace by stream_k_fixup, in k order
// (gemm_plan::StreamK, walked by gemm_walk::StreamWalk): each output stays a chain in k order
// within a segment, and the sum is the same every run (no atomics).
#pragma once

#include "common/hopper.cuh"
#include "common/pdl.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm13_consumer.cuh"
#include "handwritten/gemm/gemm13_producer.cuh"
#include "handwritten/gemm/gemm13_transpose_producer.cuh"

#include <cstddef>

namespace kl::gemm13 {

// ---- stream-K: the kernel ---------------------------------------------------------------------
// A 1-D grid; block b runs its data-parallel tiles and then its stream iterations (StreamWalk),
// tile after tile, through one ring. The FMA warps' k loop stops where a tile's k ends
// (gemm_plan::stream_segment_end: a segment ends at its tile's last k tile or at the run's end,
// so kt iterations are the whole tile), and the segment is stored: a whole tile into C, else the
// block's first stream segment into slot 0 or its last into slot 1 of `partials`
// (gemm_plan::stream_slot), which stream_k_fixup adds. (Written as one loop nest, not the k loop
// in a function called per segment: that changed ptxas's schedule of the k loop.)
// ELEMENT_C: as kernel_transpose_a's (C stored element by element; the partial slots are aligned).
template <class C, bool ELEMENT_C = false>
__global__ void __launch_bounds__(C::kThreads, 1)
    kernel_stream(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  float* __restrict__ c, int M, int N, int, int, std::size_t, StreamArgs sk) {
#if KL_ARCH_AT_LEAST(90)  // TMA and mbarrier; compiled for older targets as an empty kernel
  using Walk = StreamWalk<C::BM, C::BN, C::BK>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  Ring<C::STAGES> ring{smem + C::kBarrierOffset};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const Walk walk{sk.plan, static_cast<int>(blockIdx.x)};
  const int tiles = walk.run_length();
  init_barriers<C>(smem, ring);

  const Producer<C, Walk> producer{&map_a, &map_b, smem, ring, M, 0, walk};
  if (threadIdx.x == C::kConsumers) {
    prefetch_tensormap(&map_a);
    prefetch_tensormap(&map_b);
  }
  if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup ----
    setmaxnreg_dec<C::kRegsProducer>();
    pdl::wait_for_primary_grid();  // launched after padded copies: its TMA reads them
    // The fixup may be scheduled from now on; it takes an SM as a block of this grid leaves, and
    // waits for the whole grid before it reads a slot (launch_stream_k_fixup).
    pdl::allow_dependent_launch();
    transpose_all(producer, threadIdx.x - C::kConsumers, smem_raw, tiles);
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();
  // A cursor the FMA warps never use: without it the PTX's registers come out numbered
  // differently, and ptxas schedules the kernel differently (it is the measured machine code).
  [[maybe_unused]] const auto unused = walk.start();

  const int lm = lane % C::kLanesM, ln = lane / C::kLanesM;
  const int wm0 = (warp / C::kWarpsN) * C::WM, wn0 = (warp % C::kWarpsN) * C::WN;
  const int x = ((wm0 + lm) * C::kRowBytes >> 7) & C::kSwizzleMask;
  const int a_off = (wm0 + lm) * C::kRowBytes;
  const int b_off = C::kABytes + (wn0 + ln * 4) * 4;
  const FmaWarp<C> fma_warp{lm, ln, wm0, wn0, x, a_off, b_off};
  float acc[C::TM][C::TN];
  FmaWarp<C>::zero(acc);
  // The segment [seg_t0, seg_end) of the run, k tile t the next to multiply.
  int s = 0, phase = 0, t = 0;  // the FMA warps' slot in the ring and its parity (see below)
  int seg_t0 = 0;
  const int dp_iters = walk.p.dp_waves * walk.p.kt;
  const int stream_k0 = walk.b * walk.p.per_block % walk.p.kt;
  int seg_end = gemm_plan::stream_segment_end(0, tiles, walk.p.kt, dp_iters, stream_k0);
  while (true) {
    for (; t < seg_end; ++t) {
      mbar_wait(ring.full(s), phase);
      const unsigned char* st = FmaWarp<C>::stage(smem_raw, s);
  #pragma unroll
      for (int k = 0; k < C::BK; ++k) {  // A as [k][m]: TM / 4 LDS.128 per k, each 4 consecutive rows
        float4 a4[C::TM / 4], b[C::TN / 4];
        fma_warp.load_a_km(a4, st, k);
        fma_warp.load_b(b, st, k);
        fma_warp.fma_step_km(acc, a4, b);
      }
      fence_proxy_async_shared();
      mbar_arrive(ring.empty(s));
      Ring<C::STAGES>::advance(s, phase);
    }
    const TileAt at = walk(t - 1);
    if (t - seg_t0 == walk.p.kt)
      fma_warp.template store<!ELEMENT_C>(acc, c, at.row0, at.col0, M, N);
    else
      fma_warp.store(acc, sk.partials + (2 * std::size_t(blockIdx.x) + (seg_t0 == dp_iters ? 0 : 1)) * (C::BM * C::BN), 0, 0,
                     C::BM, C::BN);
    if (t >= tiles) break;
    FmaWarp<C>::zero(acc);
    seg_t0 = t;
    seg_end = gemm_plan::stream_segment_end(t, tiles, walk.p.kt, dp_iters, stream_k0);
  }
#endif
}

}  // namespace kl::gemm13
