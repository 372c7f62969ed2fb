// gemm13's ablations — beyond the documents, Hopper (sm_90a): two forms of gemm13's ring that
// were measured beside it and kept so a run can show what they cost (docs/sgemm-ladder.md,
// "gemm13: what Hopper adds to a CUDA-core GEMM", has the measurements). Neither is gemm_auto's.
//
//   _r0   no producer warpgroup: thread 0 of the FMA warps issues the copies, refilling the slot
//         of tile t - kLag from inside the k loop, and nobody calls setmaxnreg. A ninth warp
//         would put three warps on one scheduler's quarter of the register file and cap every
//         thread below what its accumulators need; without it the FMA warps keep the launch's
//         share, and thread 0's copies sit in the k loop. What the producer warpgroup buys.
//         At a 64² tile the same kernel is a step gemm_auto runs (gemm13_small_tile.cuh).
//   _c2   clusters of two vertically adjacent tiles: each B tile leaves L2 once, multicast by
//         TMA to both CTAs (each loads half its k rows for both). Correct, but it does not pay:
//         the tile is not L2-bound.
#pragma once

#include "common/pdl.cuh"
#include "handwritten/gemm/gemm13_tma_warpspecialized.cuh"

#include <cstdint>

namespace kl::gemm13 {

// ---- _r0: the ring without a producer warpgroup -------------------------------------------------
// At gemm13's own tile one block fills an SM; at a small tile (gemm13_small_tile.cuh) several do,
// as many as their shared memory allows (the launch bound), and C may be a split's slice or have
// rows TMA-style vectors cannot store (ELEMENT_C: the element epilogue).
template <class C, bool ELEMENT_C = false>
__global__ void __launch_bounds__(C::kThreads, C::kResidentBlocks)
    kernel_r0(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              float* __restrict__ c, int M, int N, int K, int k_split, std::size_t split_stride, StreamArgs) {
#if KL_ARCH_AT_LEAST(90)  // TMA and mbarrier; compiled for older targets as an empty kernel
  static_assert(!C::SETMAXNREG && C::CLUSTER_M == 1 && !C::TRANSPOSE_A);
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
  if (threadIdx.x == 0) {
    prefetch_tensormap(&map_a);
    prefetch_tensormap(&map_b);
    pdl::wait_for_primary_grid();  // launched after padded copies: thread 0's TMA reads them
  }
  auto fill_at = walk.start();  // thread 0's next tile to copy, in order
  if (threadIdx.x == 0)  // the first STAGES tiles; the rest from inside the k loop
    for (int t = 0; t < C::STAGES && t < tiles; ++t, fill_at.next()) producer.fill(t, fill_at.at);

  const int lm = lane % C::kLanesM, ln = lane / C::kLanesM;
  const int wm0 = (warp / C::kWarpsN) * C::WM, wn0 = (warp % C::kWarpsN) * C::WN;
  const int x = ((wm0 + lm) * C::kRowBytes >> 7) & C::kSwizzleMask;
  const int a_off = (wm0 + lm) * C::kRowBytes;
  const int b_off = C::kABytes + (wn0 + ln * 4) * 4;
  const FmaWarp<C> fma_warp{lm, ln, wm0, wn0, x, a_off, b_off};
  float acc[C::TM][C::TN];
  FmaWarp<C>::zero(acc);
  for (int t = 0; t < tiles; ++t) {
    // Thread 0 refills the slot of tile t - kLag, which every warp has (almost surely) left by
    // now, so warp 0 seldom waits at the empty barrier.
    const int next = t - C::kLag + C::STAGES;
    if (threadIdx.x == 0 && t >= C::kLag && next < tiles) {
      producer.fill(next, fill_at.at);
      fill_at.next();
    }
    ring.wait();
    const unsigned char* st = FmaWarp<C>::stage(smem_raw, ring.stage);
#pragma unroll
    for (int g = 0; g < FmaWarp<C>::kGroups; ++g) {
      float4 a[C::TM];
      fma_warp.load_a(a, st, g);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float4 b[C::TN / 4];
        fma_warp.load_b(b, st, 4 * g + kk);
        fma_warp.fma_step(acc, a, b, kk);
      }
    }
    ring.release();
    ring.advance();
  }
  fma_warp.template store<!ELEMENT_C>(acc, c, walk.row0, walk.col0, M, N);
#endif
}

#if KL_ARCH_AT_LEAST(90)
// ---- _c2: clusters of two tiles, B multicast -------------------------------------------------------
// Tile t into slot t % STAGES (one thread of each CTA). The slot is free once the FMA warps of
// every CTA of the cluster have left it (the peers' multicasts write into it too); full[s]
// expects this CTA's A plus the whole B tile, of which this CTA loads part `rank` (kBPartK rows of
// k) for all. A padding block (row0 >= M) loads no A: its FMA warps multiply whatever the A slots
// hold, and its stores are skipped.
template <class C, class Walk>
__device__ __forceinline__ void fill_cluster(const Producer<C, Walk>& pr, int t, const TileAt& at) {
  const int s = Ring<C::STAGES>::slot_of(t);
  if (t >= C::STAGES) mbar_wait_cluster(pr.ring.empty(s), Ring<C::STAGES>::released_parity(t));
  const unsigned full = pr.ring.full(s), stage = pr.smem + s * C::kStageBytes;
  const bool a_live = at.row0 < pr.M;
  mbar_arrive_expect_tx(full, (a_live ? C::kABytes : 0) + C::kBBytes);
  if (a_live) pr.copy_a(stage, full, at);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  tma_load_2d_multicast(stage + C::kABytes + pr.rank * C::kBPartBytes, pr.map_b, full, at.col0, at.k + pr.rank * C::kBPartK,
                        static_cast<std::uint16_t>((1u << C::CLUSTER_M) - 1));
#else  // ptxas advises multicast for sm_90a only: elsewhere every CTA loads all parts itself (same bytes, same barriers)
#pragma unroll
  for (int q = 0; q < C::CLUSTER_M; ++q)
    tma_load_2d(stage + C::kABytes + q * C::kBPartBytes, pr.map_b, full, at.col0, at.k + q * C::kBPartK);
#endif
}
#endif  // KL_ARCH_AT_LEAST(90)

// The grid is (CLUSTER_M · tiles_n, pair rows) with clusters of (CLUSTER_M, 1, 1), so blockIdx.x =
// CLUSTER_M · pair column + cluster rank, and rank r takes tile row CLUSTER_M · pair row + r
// (gemm_walk::slice_walk); a block whose tile starts at or past M is padding (see launch_cluster).
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    kernel_cluster(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   float* __restrict__ c, int M, int N, int K, int k_split, std::size_t split_stride, StreamArgs) {
#if KL_ARCH_AT_LEAST(90)  // TMA, mbarrier and clusters; compiled for older targets as an empty kernel
  static_assert(C::SETMAXNREG && C::CLUSTER_M > 1 && !C::TRANSPOSE_A);
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  Ring<C::STAGES> ring{smem + C::kBarrierOffset};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int rank = static_cast<int>(cluster_rank());  // = blockIdx.x % CLUSTER_M
  const int k0 = blockIdx.z * k_split;
  const int tiles = ceil_div(min(K - k0, k_split), C::BK);
  c += blockIdx.z * split_stride;
  const SliceWalk<C::BK> walk = gemm_walk::slice_walk<C::BM, C::BN, C::BK, C::CLUSTER_M>(k0, rank);
  init_barriers<C>(smem, ring);  // and the cluster meets: every CTA's barriers before any remote use

  const Producer<C, SliceWalk<C::BK>> producer{&map_a, &map_b, smem, ring, M, rank, walk};
  if (threadIdx.x == C::kConsumers) {
    prefetch_tensormap(&map_a);
    prefetch_tensormap(&map_b);
  }
  if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup ----
    setmaxnreg_dec<C::kRegsProducer>();
    if (threadIdx.x == C::kConsumers) {
      auto at = walk.start();
      for (int t = 0; t < tiles; ++t, at.next()) fill_cluster(producer, t, at.at);
    }
    cluster_arrive();  // the cluster's closing barrier (see the end of the kernel)
    cluster_wait();
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();

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
    for (int g = 0; g < FmaWarp<C>::kGroups; ++g) {
      float4 a[C::TM];
      fma_warp.load_a(a, st, g);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float4 b[C::TN / 4];
        fma_warp.load_b(b, st, 4 * g + kk);
        fma_warp.fma_step(acc, a, b, kk);
      }
    }
    // Lane r tells CTA r of the cluster (itself included) that this warp is done with the slot,
    // since the peer's multicast writes into this CTA's slot too.
    fence_proxy_async_shared();
    __syncwarp();
    if (lane < C::CLUSTER_M) mbar_arrive_cluster(map_to_rank(ring.empty(ring.stage), lane));
    ring.advance();
  }
  // No CTA may leave while a peer can still multicast into its shared memory or arrive on its
  // barriers. This warp's last remote arrive is above, so it arrives now and waits after its
  // stores; every multicast into this CTA has landed (its full barriers completed), and the
  // peers' producers arrive only after issuing their last copy.
  cluster_arrive();
  fma_warp.store(acc, c, walk.row0, walk.col0, M, N);
  cluster_wait();
#endif
}

}  // namespace kl::gemm13
