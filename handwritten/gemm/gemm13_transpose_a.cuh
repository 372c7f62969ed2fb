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
// bytes). The tile becomes 128 × 256 (half the A to transpose per FFMA). Every FMA thread then
// releases the stage itself (the stage's A is written by threads, not TMA: racecheck cannot order
// the other lanes' reads through one lane's arrive).
#pragma once

#include "handwritten/gemm/gemm13_tma_warpspecialized.cuh"

namespace kl::gemm13 {

#if KL_ARCH_AT_LEAST(90)
// The transposing producer warpgroup (thread p = 0..127 of it) over a run of `tiles` k tiles.
// Every thread transposes; p = 0 also issues the copies. Per tile t: B straight into stage s; A
// into staging buffer t % NS, from which the warpgroup writes it into stage s as [k][m] and
// arrives on full[s].
template <class C, class Walk>
__device__ __forceinline__ void transpose_all(const Producer<C, Walk>& pr, int p, unsigned char* smem_raw, int tiles) {
  static_assert(C::TRANSPOSE_A);
  constexpr int BM = C::BM, STAGES = C::STAGES, NS = C::kStaging, kChunks = C::kABoxK / 4;
  const Ring<STAGES>& ring = pr.ring;
  auto a_at = pr.walk.start(), b_at = pr.walk.start();  // p = 0's: the next A tile to stage, the next B tile
  auto load_a_staged = [&](int t) {  // t in order
    const unsigned bar = ring.extra(t % NS), buf = pr.smem + C::kStagingOffset + (t % NS) * C::kABytes;
    mbar_arrive_expect_tx(bar, C::kABytes);
    pr.copy_a(buf, bar, a_at.at);
    a_at.next();
  };
  if (p == 0)
    for (int t = 0; t < NS && t < tiles; ++t) load_a_staged(t);
  for (int t = 0, s = 0; t < tiles; ++t, s = s + 1 == STAGES ? 0 : s + 1) {
    const unsigned full = ring.full(s), staged = ring.extra(t % NS);
    const unsigned staged_parity = (t / NS) & 1;
    // One thread polls; the others sleep at the named barrier, then find both phases complete
    // (their own waits only acquire: no polling warps on the FMA warps' schedulers).
    if (p == 0) {
      ring.wait_released(s, t);
      mbar_expect_tx(full, C::kBBytes);  // before any arrive of this phase: p = 0 arrives below
      tma_load_2d(pr.smem + s * C::kStageBytes + C::kABytes, pr.map_b, full, b_at.at.col0, b_at.at.k);
      b_at.next();
      mbar_wait(staged, staged_parity);
    }
    named_barrier(1, 128);
    if (p != 0) {
      ring.wait_released(s, t);
      mbar_wait(staged, staged_parity);
    }
    // Thread p moves rows p, p + 128, ...: for each of its rows the 16-byte chunks c (4 k each)
    // in order. A warp's lanes take 32 consecutive rows of the same chunk: its reads meet the
    // swizzle's 8 bank groups (chunk c of row m lies at chunk c ^ swz(m)), and each 4-byte
    // write fills one 128-byte line of a [k][m] row. The row's swizzle and addresses are
    // computed once and the chunks' write offsets are immediates, which keeps the warpgroup's
    // share of the issue slots small (index arithmetic per (row, chunk) pair added markedly to
    // the kernel's instructions: docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core
    // GEMM").
    const unsigned char* stg = smem_raw + C::kStagingOffset + (t % NS) * C::kABytes;
    float* dst = reinterpret_cast<float*>(smem_raw + s * C::kStageBytes);
    static_assert(BM % 128 == 0, "whole producer warpgroups of rows");
#pragma unroll
    for (int mm = 0; mm < BM / 128; ++mm) {
      const int m = p + 128 * mm;
      const int swz = C::row_swizzle_of(m);
      const unsigned char* row = stg + m * C::kRowBytes;
      float* col = dst + m;
#pragma unroll
      for (int h = 0; h < C::kABoxes; ++h)
#pragma unroll
        for (int cc = 0; cc < kChunks; ++cc) {
          const float4 v = *reinterpret_cast<const float4*>(row + h * C::kABoxBytes + ((cc ^ swz) << 4));
          float* o = col + 4 * (h * kChunks + cc) * BM;
          o[0] = v.x, o[BM] = v.y, o[2 * BM] = v.z, o[3 * BM] = v.w;
        }
    }
    // The staging buffer read by all before the next copy overwrites it: each thread's proxy
    // fence orders its reads before that TMA write (hopper::release_read_slot), the barrier
    // orders every thread's fence before p = 0 issues it.
    fence_proxy_async_shared();
    named_barrier(1, 128);
    if (p == 0 && t + NS < tiles) load_a_staged(t + NS);
    mbar_arrive(full);  // this thread's share of stage s written (release)
  }
}
#endif  // KL_ARCH_AT_LEAST(90)

// ---- the kernel: gemm13_tma_warpspecialized.cuh's, with the transposing producer -------------
template <class C>
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
  fma_warp.store(acc, c, walk.row0, walk.col0, M, N);
#endif
}

}  // namespace kl::gemm13
