// gemm13's producer (every form's kernel, gemm13_tma_warpspecialized.cuh on): what fills the ring
// of STAGES slots (hopper::Ring). Tile t of the block's run goes to slot t % STAGES once the FMA
// warps have left the tile before it there; full[s] completes when the producer has arrived and
// the stage's bytes have landed. Also what every form shares beside it: the barriers' setup, and
// StreamArgs, the last of every form's kernel parameters.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm_walk.cuh"

namespace kl::gemm13 {

using gemm_walk::SliceWalk;
using gemm_walk::StreamWalk;
using gemm_walk::TileAt;

// What a stream-K block needs beyond the other forms' parameters (gemm13_stream_k.cuh). Every
// form's kernel takes the same parameters (the stream kernel's k_split and split_stride, and the
// others' StreamArgs, unused), so that each reads them at the same places.
struct StreamArgs {
  float* partials = nullptr;
  gemm_plan::StreamKInt plan{};
};

#if KL_ARCH_AT_LEAST(90)
using namespace hopper;

// The ring's barriers, before any thread touches them (thread 0 initialises, then the block, or
// in the cluster form the cluster, meets): full[s] and empty[s] with the form's arrival counts
// (Config::kFullArrivals, kEmptyArrivals), and one barrier per staging buffer of the transposing
// form (ring.extra(b): one expect_tx and A's bytes).
template <class C>
__device__ __forceinline__ void init_barriers(unsigned smem, const Ring<C::STAGES>& ring) {
  if (threadIdx.x == 0) {
    if (smem % 1024 != 0) __trap();  // the swizzle arithmetic assumes 1024-byte stages
    if constexpr (C::CLUSTER_M > 1)
      if (cluster_size() != C::CLUSTER_M) __trap();  // launched without its cluster attribute
    ring.init(C::kFullArrivals, C::kEmptyArrivals);
#pragma unroll
    for (int b = 0; b < C::kStaging; ++b) mbar_init(ring.extra(b), 1);
    fence_mbarrier_init();
    fence_proxy_async_shared();
  }
  if constexpr (C::CLUSTER_M > 1) {  // every CTA's barriers initialised before any multicast or remote arrive
    cluster_arrive();
    cluster_wait();
  } else {
    __syncthreads();
  }
}

// One block's producer state: its maps, its ring, and its run (Walk: SliceWalk or StreamWalk,
// where k tile t lies); `rank` its CTA's rank in the cluster form.
template <class C, class Walk>
struct Producer {
  static constexpr int BK = C::BK, STAGES = C::STAGES;
  const CUtensorMap* map_a;
  const CUtensorMap* map_b;
  unsigned smem;
  Ring<STAGES> ring;
  int M, rank;
  Walk walk;

  // A's part of k tile `at` (BK / kABoxK boxes of kABoxK k, one after the other) to shared
  // address dst, completing on barrier bar.
  __device__ __forceinline__ void copy_a(unsigned dst, unsigned bar, const TileAt& at) const {
#pragma unroll
    for (int h = 0; h < C::kABoxes; ++h) tma_load_2d(dst + h * C::kABoxBytes, map_a, bar, at.k + h * C::kABoxK, at.row0);
  }

  // Tile t, at `at`, into slot t % STAGES (one thread): A's boxes and B's box, whole boxes
  // announced (the zero fill counts too).
  __device__ __forceinline__ void fill(int t, const TileAt& at) const {
    const int s = ring.acquire(t);
    const unsigned full = ring.full(s), stage = smem + s * C::kStageBytes;
    mbar_arrive_expect_tx(full, C::kStageBytes);
    copy_a(stage, full, at);
    tma_load_2d(stage + C::kABytes, map_b, full, at.col0, at.k);
  }
};
#endif  // KL_ARCH_AT_LEAST(90)

}  // namespace kl::gemm13
