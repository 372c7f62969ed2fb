// gemm13_tma_warpspecialized — beyond the documents, Hopper (sm_90a): gemm12's FFMA product with
// the tile traffic moved off the FMA warps. The story, the measurements and what was tried:
// docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM".
//
// Lesson: gemm12 issues the same FFMAs as cuBLAS but has an instruction to issue in fewer cycles:
// every FMA warp also computes copy addresses, issues its share of the copies and meets the block
// at one __syncthreads per tile. On Hopper all of that can leave the FMA warps:
//   * one producer thread copies a whole stage with TMA (gemm13_producer.cuh), from tensor maps
//     encoded on the host (common/hopper.cuh). TMA fills what lies outside the matrix with zeros,
//     so ragged M, N and K edges cost the FMA warps nothing;
//   * the stages form a ring guarded by mbarriers instead of __syncthreads (hopper::Ring): full[s]
//     completes when the stage's bytes have landed, empty[s] when every FMA warp has read it;
//   * the producer is a warpgroup of its own, which gives its registers to the two FMA warpgroups
//     with setmaxnreg (sm_90a only), so each FMA thread holds its 8 × 16 outputs;
//   * the FMA warps only wait (a try_wait that normally succeeds at once), load and multiply
//     (gemm13_consumer.cuh).
// Each output is still one chain of K FFMAs in k order (the zero fill adds exact zeros): rounding
// depth K.
//
// The steps after this one, each a kernel of its own on the same parts:
//   gemm13_transpose_a.cuh  the producer warpgroup also transposes A to [k][m] (the _at form),
//                           and as split-K (the same kernel over slices of k);
//   gemm13_stream_k.cuh     that form as stream-K;
//   gemm13_ablations.cuh    what was tried beside it: no producer warpgroup (_r0), clusters with
//                           B multicast (_c2).
// Their launchers, the fallback to gemm12 and the variants the gemm list registers:
// gemm13_variants.cuh.
// Only in builds whose architectures name sm_90a (CMakeLists.txt defines KL_BUILD_SM90A): a plain
// 9.0 image has no setmaxnreg, and its FMA warps would spill. TMA needs 16-byte row pitches and
// bases (K % 4 == 0, N % 4 == 0, A, B and C aligned): any other product runs gemm12.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm13_consumer.cuh"
#include "handwritten/gemm/gemm13_producer.cuh"

#include <cstddef>

namespace kl::gemm13 {

using namespace hopper;

// ---- the kernel -----------------------------------------------------------------------------
// C's BM × BN tile of this block (gemm_walk::slice_walk: the grouped raster); the maps describe A
// (M × K, boxes of kABoxK × BM, swizzled) and B (K × N, boxes of BN × BK). Split-K (launch_split,
// gemm13_variants.cuh): block z computes k in [z·k_split, (z+1)·k_split) into slice z of the
// workspace. k_split is a multiple of BK, so only the last slice has a ragged end, at K, where
// TMA's zero fill covers it as it does unsplit. Unsplit: k_split >= K, z = 0, stride 0.
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    kernel_ring(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
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
  if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup: one thread issues the copies ----
    setmaxnreg_dec<C::kRegsProducer>();
    if (threadIdx.x == C::kConsumers) {
      auto at = walk.start();
      for (int t = 0; t < tiles; ++t, at.next()) producer.fill(t, at.at);
    }
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();

  // ---- the FMA warps: wait for a slot, multiply it, give it back ----
  // This thread's place in the tile (FmaWarp). Written out here, as in every form's kernel, like
  // the k loop below: computed in a helper function (even row_swizzle_of for x), the same
  // arithmetic comes out of ptxas ordered differently.
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
    // Each lane's proxy fence orders its reads of the stage before the stage's next TMA copy
    // writes it; then one lane arrives for the warp (hopper::release_read_slot).
    ring.release();
    ring.advance();
  }
  fma_warp.store(acc, c, walk.row0, walk.col0, M, N);
#endif
}

}  // namespace kl::gemm13
