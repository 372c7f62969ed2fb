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
//   * the stages form a ring guarded by mbarriers instead of __syncthreads: full[s] completes when
//     the stage's bytes have landed, empty[s] when every FMA warp has read it;
//   * the FMA warps only wait (a try_wait that normally succeeds at once), load and multiply.
// Each output is still one chain of K FFMAs in k order (the zero fill adds exact zeros): rounding
// depth K, and every form below gives the same bits (but split-K and stream-K, whose chains are
// their slices and segments).
//
// The forms (Config's parameters, gemm13_config.hpp, which also names the registered ones):
//   * REGS > 0: a producer warpgroup that gives its registers to the two FMA warpgroups with
//     setmaxnreg (sm_90a only). REGS = 0: no extra warp; thread 0 of the FMA warps issues the
//     copies (a ninth warp would put three warps on one scheduler's quarter of the register file
//     and cap every thread below what its accumulators need).
//   * TRANSPOSE_A: TMA cannot transpose, so A lands as [m][k] and each FMA thread holds TM rows
//     × 4 k of it across four k steps; the producer warpgroup, idle but for one thread, rewrites
//     each tile as [k][m], the layout gemm12 and cuBLAS's kernel read.
//   * CLUSTER_M = 2: two vertically adjacent tiles form a cluster and each B tile leaves L2 once,
//     multicast to both CTAs (correct, but it does not pay: the tile is not L2-bound).
//   * B_OUTER: CUTLASS's SIMT FFMA order instead of A-outer (kept for the comparison; slower).
//   * split-K (launch_split, variant_splitk; not a Config parameter): grid.z slices of k, each
//     block's tiles starting at its slice's k0, partial tiles into the workspace and
//     splitk_reduce, for products whose 128 × 256 tiles leave SMs idle. Each slice is a chain in
//     k order; the slices are added in order after it (gemm_schedule.cuh).
//   * stream-K (launch_stream, variant_stream; not a Config parameter either): one block per SM,
//     each running the same number of k tiles of the whole product, across tile boundaries, through
//     one ring (the producer loads the next tile's first stages while the FMA warps store the last
//     tile); tiles shared by several blocks are added from the workspace by stream_k_fixup, in k
//     order (gemm_plan::StreamK). For products whose last wave of tiles is part-empty.
// Only in builds whose architectures name sm_90a (CMakeLists.txt defines KL_BUILD_SM90A): a plain
// 9.0 image has no setmaxnreg, and its FMA warps would spill. TMA needs 16-byte row pitches and
// bases (K % 4 == 0, N % 4 == 0, A, B and C aligned): any other product runs gemm12.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm13_consumer.cuh"
#include "handwritten/gemm/gemm13_producer.cuh"
#include "handwritten/gemm/gemm_schedule.cuh"

#include <stdexcept>
#include <string_view>

namespace kl {
inline constexpr std::string_view kFeatureTma = "TMA (cp.async.bulk.tensor) and mbarrier";
}

namespace kl::gemm13 {

using namespace gemm_detail;
using namespace hopper;

// ---- the kernel -----------------------------------------------------------------------------
// C's BM × BN tile at (BM·tm, BN·tn), after the grouped raster below; the maps describe A (M × K,
// boxes of kABoxK × BM, swizzled) and B (K × N, boxes of BN × kBPartK).
// Cluster form: the grid is (CLUSTER_M · tiles_n, pair rows) with clusters of (CLUSTER_M, 1, 1),
// so blockIdx.x = CLUSTER_M · pair column + cluster rank, and rank r takes tile row
// CLUSTER_M · pair row + r (M is the slab's rows; a block whose tile starts at or past M is
// padding: see launch).
// Stream-K (STREAM, launch_stream): a 1-D grid; block b runs its data-parallel tiles and then
// its stream iterations (gemm_plan::StreamK: dp_waves, per_block), tile after tile, through one
// ring: the producer runs ahead into the next tile while the FMA warps store the last one. A
// segment that covers its whole tile goes to C, a partial one to the block's slot of
// `partials` (stream_k_fixup adds them).
struct StreamArgs {
  float* partials = nullptr;
  gemm_plan::StreamKInt plan{};
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int REGS, bool B_OUTER, int CLUSTER_M = 1,
          bool TRANSPOSE_A = false, bool STREAM = false>
__global__ void __launch_bounds__(Config<BM, BN, BK, WM, WN, TM, TN, STAGES, REGS, B_OUTER, CLUSTER_M, TRANSPOSE_A>::kThreads, 1)
    kernel_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               float* __restrict__ c, int M, int N, int K, int k_split, std::size_t split_stride, StreamArgs sk) {
#if KL_ARCH_AT_LEAST(90)  // TMA and mbarrier; compiled for older targets as an empty kernel
  using C = Config<BM, BN, BK, WM, WN, TM, TN, STAGES, REGS, B_OUTER, CLUSTER_M, TRANSPOSE_A>;
  constexpr bool SETMAXNREG = C::SETMAXNREG;
  constexpr bool CLUSTER = CLUSTER_M > 1;
  static_assert(!STREAM || !CLUSTER, "stream-K with the unclustered forms only");
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned full0 = smem + C::kBarrierOffset, empty0 = full0 + 8 * STAGES;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Split-K (launch_split): block z computes k in [z·k_split, (z+1)·k_split) into slice z of the
  // workspace. k_split is a multiple of BK, so only the last slice has a ragged end, at K, where
  // TMA's zero fill covers it as it does unsplit. Unsplit: k_split >= K, z = 0, stride 0.
  // The block's run: `tiles` k tiles, k tile t at walk(t).
  using Walk = std::conditional_t<STREAM, StreamWalk<BM, BN, BK>, SliceWalk<BK>>;
  int tiles;
  Walk walk;
  const int rank = CLUSTER ? static_cast<int>(cluster_rank()) : 0;  // = blockIdx.x % CLUSTER_M
  if constexpr (STREAM) {
    const gemm_plan::StreamKInt& p = sk.plan;
    tiles = gemm_plan::stream_run_length<int>(blockIdx.x, p.kt, p.dp_waves, p.per_block, p.tail_iters);
    walk = Walk{p, static_cast<int>(blockIdx.x)};
  } else {
    const int k0 = blockIdx.z * k_split;
    tiles = ceil_div(min(K - k0, k_split), BK);
    c += blockIdx.z * split_stride;
    // Grouped raster: consecutive blocks walk down 8 tile rows before moving right, so the
    // blocks resident together share their B columns and A rows in L2. The cluster form walks
    // pairs of tile rows the same way (groups of 8 / CLUSTER_M pair rows).
    constexpr int kGroup = 8 / CLUSTER_M;
    const int tiles_m = gridDim.y, tiles_n = gridDim.x / CLUSTER_M;  // in pairs of tiles for CLUSTER
    const int id = blockIdx.y * tiles_n + blockIdx.x / CLUSTER_M;
    const int group = id / (kGroup * tiles_n), first_m = group * kGroup;
    const int group_m = min(tiles_m - first_m, kGroup);
    const int tm = (first_m + (id % (kGroup * tiles_n)) % group_m) * CLUSTER_M + rank;
    const int tn = (id % (kGroup * tiles_n)) / group_m;
    walk = Walk{BM * tm, BN * tn, k0};
  }

  if (threadIdx.x == 0) {
    if (smem % 1024 != 0) __trap();  // the swizzle arithmetic below assumes 1024-byte stages
    if constexpr (CLUSTER)
      if (cluster_size() != CLUSTER_M) __trap();  // launched without its cluster attribute (see launch)
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full0 + 8 * s, C::kFullArrivals);     // the producer's arrive(s) + the TMA bytes
      mbar_init(empty0 + 8 * s, C::kEmptyArrivals);   // one arrive per FMA warp (of each CTA of the cluster)
    }
#pragma unroll
    for (int b = 0; b < C::kStaging; ++b) mbar_init(empty0 + 8 * (STAGES + b), 1);  // a staging buffer: one expect_tx + A's bytes
    fence_mbarrier_init();
    fence_proxy_async_shared();
  }
  if constexpr (CLUSTER) {  // every CTA's barriers initialised before any multicast or remote arrive
    cluster_arrive();
    cluster_wait();
  } else {
    __syncthreads();
  }

  const Producer<C, Walk> producer{&map_a, &map_b, smem, full0, empty0, M, rank, walk};
  if (threadIdx.x == (SETMAXNREG ? C::kConsumers : 0)) {
    prefetch_tensormap(&map_a);
    prefetch_tensormap(&map_b);
  }

  if constexpr (SETMAXNREG) {
    if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup ----
      setmaxnreg_dec<C::kRegsProducer>();
      // Stream-K: the fixup may be scheduled from now on; it takes an SM as a block of this grid
      // leaves, and waits for the whole grid before it reads a slot (launch_stream_k_fixup).
      if constexpr (STREAM) pdl::allow_dependent_launch();
      if constexpr (TRANSPOSE_A) {
        producer.transpose_all(threadIdx.x - C::kConsumers, smem_raw, tiles);
      } else if (threadIdx.x == C::kConsumers) {
        auto at = walk.start();
        for (int t = 0; t < tiles; ++t, at.next()) producer.fill(t, at.at);
      }
      if constexpr (CLUSTER) {  // the cluster's closing barrier (see the end of the kernel)
        cluster_arrive();
        cluster_wait();
      }
      return;
    }
    setmaxnreg_inc<C::kRegsConsumer>();
  }
  auto fill_at = walk.start();  // the inline producer's next tile (thread 0, in order)
  if constexpr (!SETMAXNREG) {
    if (threadIdx.x == 0)  // the first STAGES tiles; the rest from inside the k loop
      for (int t = 0; t < STAGES && t < tiles; ++t, fill_at.next()) producer.fill(t, fill_at.at);
  }

  // ---- FMA warps (their loads, FFMAs and stores: gemm13_consumer.cuh) ----
  const int lm = lane % C::kLanesM, ln = lane / C::kLanesM;
  const int wm0 = (warp / C::kWarpsN) * WM, wn0 = (warp % C::kWarpsN) * WN;
  // C::row_swizzle_of(wm0 + lm), written out as it was measured: through the helper ptxas orders
  // _r0's address setup differently.
  const int x = ((wm0 + lm) * C::kRowBytes >> 7) & C::kSwizzleMask;
  const int a_off = (wm0 + lm) * C::kRowBytes;
  const int b_off = C::kABytes + (wn0 + ln * 4) * 4;
  const FmaWarp<C> fma_warp{lm, ln, wm0, wn0, x, a_off, b_off};
  auto stage_at = [&](int s) { return smem_raw + s * C::kStageBytes; };
  float acc[TM][TN];
  auto zero = [&] {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  };
  zero();
  // Inline producer: thread 0 refills the slot of tile t - kLag, which every warp has (almost
  // surely) left by now, so warp 0 seldom waits at the empty barrier.
  auto produce_inline = [&](int t) {
    if constexpr (!SETMAXNREG) {
      const int next = t - C::kLag + STAGES;
      if (threadIdx.x == 0 && t >= C::kLag && next < tiles) {
        producer.fill(next, fill_at.at);
        fill_at.next();
      }
    }
  };

  // The run's k tiles through the ring (slot s in its phase-th use), into acc. Stream-K: the
  // inner loop stops where a tile's k ends, and the outer one stores the segment (a segment from
  // k tile 0 to the tile's last is the whole tile, into C; else it is the block's first stream
  // segment, slot 0, or its last, slot 1: gemm_plan::stream_slot) and goes on with the next.
  // Unsplit and split-K: the outer loop runs once. (Written as one loop nest, not the k loop in
  // a lambda called per segment: that changed ptxas's schedule of the unsplit FFMA loop.)
  int s = 0, phase = 0, t = 0;
  // Stream-K: the segment's iterations [seg_t0, seg_end) (gemm_plan::stream_segment_end: a
  // segment ends at its tile's last k tile, so kt iterations are the whole tile). The inner
  // loop's bound is `tiles` for the other forms, as it was before stream-K (its FFMA schedule is
  // unchanged).
  int seg_t0 = 0, seg_end = 0, dp_iters = 0, stream_k0 = 0;
  if constexpr (STREAM) {
    dp_iters = walk.p.dp_waves * walk.p.kt;
    stream_k0 = walk.b * walk.p.per_block % walk.p.kt;
    seg_end = gemm_plan::stream_segment_end(0, tiles, walk.p.kt, dp_iters, stream_k0);
  }
  while (true) {
    for (; t < (STREAM ? seg_end : tiles); ++t) {
      produce_inline(t);
      mbar_wait(full0 + 8 * s, phase);
      const unsigned char* st = stage_at(s);
      if constexpr (TRANSPOSE_A) {  // A as [k][m]: TM / 4 LDS.128 per k, each 4 consecutive rows
#pragma unroll
        for (int k = 0; k < BK; ++k) {
          float4 a4[TM / 4], b[TN / 4];
          fma_warp.load_a_km(a4, st, k);
          fma_warp.load_b(b, st, k);
          fma_warp.fma_step_km(acc, a4, b);
        }
      } else {
#pragma unroll
        for (int g = 0; g < FmaWarp<C>::kGroups; ++g) {
          float4 a[TM];
          fma_warp.load_a(a, st, g);
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) {
            float4 b[TN / 4];
            fma_warp.load_b(b, st, 4 * g + kk);
            fma_warp.fma_step(acc, a, b, kk);
          }
        }
      }
      // Release the slot, after each thread's proxy fence: its reads of the stage (ld.shared)
      // must land before the stage's next TMA copy writes it (hopper::release_read_slot). With
      // TRANSPOSE_A every thread arrives: the stage's A is written by threads, not TMA, and
      // racecheck cannot order the other lanes' reads through one lane's arrive. Cluster form:
      // lane r tells CTA r of the cluster (itself included), since the peer's multicast writes
      // into this CTA's slot too.
      if constexpr (TRANSPOSE_A) {
        fence_proxy_async_shared();
        mbar_arrive(empty0 + 8 * s);  // this thread is done with the stage (see kEmptyArrivals)
      } else if constexpr (CLUSTER) {
        fence_proxy_async_shared();
        __syncwarp();
        if (lane < CLUSTER_M) mbar_arrive_cluster(map_to_rank(empty0 + 8 * s, lane));
      } else {
        release_read_slot(empty0 + 8 * s);  // this warp is done with the stage
      }
      if (++s == STAGES) s = 0, phase ^= 1;
    }
    if constexpr (!STREAM) {
      break;
    } else {
      const TileAt at = walk(t - 1);
      if (t - seg_t0 == walk.p.kt)
        fma_warp.store(acc, c, at.row0, at.col0, M, N);
      else
        fma_warp.store(acc, sk.partials + (2 * std::size_t(blockIdx.x) + (seg_t0 == dp_iters ? 0 : 1)) * (BM * BN), 0, 0, BM, BN);
      if (t >= tiles) break;
      zero();
      seg_t0 = t;
      seg_end = gemm_plan::stream_segment_end(t, tiles, walk.p.kt, dp_iters, stream_k0);
    }
  }
  // Cluster form: no CTA may leave while a peer can still multicast into its shared memory or
  // arrive on its barriers. This warp's last remote arrive is above, so it arrives now and waits
  // after its stores; every multicast into this CTA has landed (its full barriers completed), and
  // the peers' producers arrive only after issuing their last copy.
  if constexpr (CLUSTER) cluster_arrive();

  if constexpr (!STREAM) fma_warp.store(acc, c, walk.row0, walk.col0, M, N);
  if constexpr (CLUSTER) cluster_wait();
#endif
}

// ---- host side ------------------------------------------------------------------------------
// Whether the TMA path applies: 16-byte row pitches and bases for A, B and C.
inline bool tma_ok(const GemmArgs<float>& g) {
  return g.K % 4 == 0 && g.N % 4 == 0 && aligned16(g.A) && aligned16(g.B) && aligned16(g.C);
}

// The kernel of a Config (gemm13_config.hpp's forms), and its stream-K form.
template <class C, bool STREAM = false>
constexpr auto kernel_for = kernel_tma<C::BM, C::BN, C::BK, C::WM, C::WN, C::TM, C::TN, C::STAGES, C::REGS, C::B_OUTER,
                                       C::CLUSTER_M, C::TRANSPOSE_A, STREAM>;

// The fallback for products TMA cannot describe: gemm12 on its measured tile (the list names it
// from these parameters, as the variant's `fallback`).
struct Fallback {
  static constexpr int BM = 256, BN = 128, BK = 16, WM = 64, WN = 64, TM = 16, TN = 8, STAGES = 4;
  static void prepare() { gemm12::prepare<float, BM, BN, BK, WM, WN, TM, TN, STAGES>(); }
  static void launch(const GemmArgs<float>& g, cudaStream_t s) { gemm12::launch<float, BM, BN, BK, WM, WN, TM, TN, STAGES>(g, s); }
};

template <class C>
void prepare() {
  allow_smem(C::kSmemBytes, {kernel_for<C>});
  Fallback::prepare();
  (void)tensor_map_encoder();  // ask the driver once, outside any timed launch
}

// The tensor maps the kernel reads: A (rows × K) in boxes of kABoxK × BM, swizzled as the FMA
// warps' reads expect; B (K × N) in boxes of BN × kBPartK (each CTA's part of the k rows in the
// cluster form).
template <class C>
CUtensorMap map_a_of(const float* a, int rows, int K) {
  return encode_map(a, rows, K, C::BM, C::kABoxK, swizzle_for_row(C::kRowBytes));
}
template <class C>
CUtensorMap map_b_of(const float* b, int K, int N) {
  return encode_map(b, K, N, C::kBPartK, C::BN, CU_TENSOR_MAP_SWIZZLE_NONE);
}

// Only enqueues: encodes the two maps on the host (by value into the kernel's parameters) and
// launches `slices` slices of k, k_split deep, each slice's tiles `stride` elements after the last
// one's in g.C (1, K, 0: the whole product straight into C); slabs of at most 65535 tile rows as
// every gemm launcher (launch_tiled).
// Cluster form (one slice only): slabs of at most 65535 pairs of tile rows; the grid's x doubles
// (the pair's two CTAs, cluster (CLUSTER_M, 1, 1)) and its y counts pairs, so when a slab has an
// odd number of tile rows the last pair's rank-1 block lies wholly below M: it loads no A,
// multicasts its half of each B tile for its partner and stores nothing (its rows fail the
// epilogue's r < M). B's box is BN × BK / CLUSTER_M: each CTA of the pair loads its part of the k
// rows.
template <class C>
void launch_slices(const GemmArgs<float>& g, int k_split, int slices, std::size_t stride, cudaStream_t s) {
  if (C::CLUSTER_M > 1 && slices != 1) throw std::logic_error("gemm13: split-K with the unclustered forms only");
  const CUtensorMap map_b = map_b_of<C>(g.B, g.K, g.N);
  launch_tiled(g, C::CLUSTER_M * C::BM, C::BN, [&](dim3 grid, const float* A, float* Cp, int M) {
    const CUtensorMap map_a = map_a_of<C>(A, M, g.K);
    if constexpr (C::CLUSTER_M == 1) {
      grid.z = slices;
      kernel_for<C><<<grid, C::kThreads, C::kSmemBytes, s>>>(map_a, map_b, Cp, M, g.N, g.K, k_split, stride, StreamArgs{});
    } else {
      KL_CUDA_CHECK(launch_with_cluster(kernel_for<C>, dim3(grid.x * C::CLUSTER_M, grid.y), dim3(C::kThreads),
                                        dim3(C::CLUSTER_M), C::kSmemBytes, s, map_a, map_b, Cp, M, g.N, g.K, k_split,
                                        stride, StreamArgs{}));
    }
  });
}

template <class C>
void launch(const GemmArgs<float>& g, cudaStream_t s) {
  if (!tma_ok(g)) return Fallback::launch(g, s);
  launch_slices<C>(g, g.K, 1, 0, s);
}

// Split-K: C = A·B in `splits` slices of k (gemm_schedule.cuh's plan, as gemm10's and gemm11's):
// one slice is launch above; several write their partial tiles into consecutive M × N slices of
// g.workspace (grid.z = the slices), which splitk_reduce adds into C in slice order. For products
// whose tiles alone leave SMs idle (float 1000³: 32 tiles of 128 × 256 for 132 SMs).
template <class C>
void launch_split(const GemmArgs<float>& g, int splits, cudaStream_t s) {
  static_assert(C::CLUSTER_M == 1, "split-K with the unclustered forms only");
  const int ks = k_per_split(g.K, splits, C::BK), used = used_splits(g.K, splits, C::BK);
  if (used <= 1 || !tma_ok(g)) return launch<C>(g, s);
  const std::size_t mn = static_cast<std::size_t>(g.M) * g.N;
  GemmArgs<float> h = g;
  h.C = static_cast<float*>(g.workspace);
  launch_slices<C>(h, ks, used, mn, s);
  launch_splitk_reduce(h.C, g.C, mn, used, s);
}
// Stream-K (gemm_plan::StreamK): one block per SM, each the same number of k tiles of the
// product, then stream_k_fixup; the partial tiles in g.workspace (stream_workspace).
template <class C>
gemm_plan::StreamK stream_plan(GemmShape sh) {
  return gemm_plan::stream_k_plan(sh, C::BM, C::BN, C::BK, sm_count());
}
template <class C>
std::size_t stream_workspace(GemmShape sh) {
  return gemm_plan::stream_k_workspace(stream_plan<C>(sh), C::BM, C::BN, sizeof(float));
}
template <class C>
void prepare_stream() {
  prepare<C>();
  allow_smem(C::kSmemBytes, {kernel_for<C, true>});
  fixup_programmatic_here<float, C::BM, C::BN, kVec<float>>();
}
template <class C>
void launch_stream(const GemmArgs<float>& g, cudaStream_t s) {
  static_assert(C::CLUSTER_M == 1, "stream-K with the unclustered forms only");
  const gemm_plan::StreamK p = stream_plan<C>({g.M, g.N, g.K});
  gemm_plan::StreamKInt pi;  // the kernels count in int (stream_k_int)
  if (!tma_ok(g) || p.tail_iters == 0 || !gemm_plan::stream_k_int(p, pi)) return launch<C>(g, s);
  const CUtensorMap map_a = map_a_of<C>(g.A, g.M, g.K), map_b = map_b_of<C>(g.B, g.K, g.N);
  float* partials = static_cast<float*>(g.workspace);
  kernel_for<C, true><<<static_cast<unsigned>(p.blocks), C::kThreads, C::kSmemBytes, s>>>(
      map_a, map_b, g.C, g.M, g.N, g.K, 0, 0, StreamArgs{partials, pi});
  KL_CHECK_LAUNCH();
  launch_stream_k_fixup<float, C::BM, C::BN, kVec<float>>(partials, g.C, g.M, g.N, p, pi, s);
}

// The list's split count: the fill rule of gemm10_splitk (splitk_splits, kFillSMs), one block per
// SM (gemm13's tiles hold all of one SM's shared memory).
template <class C>
int splits(GemmShape sh) {
  return splitk_splits(sh, C::BM, C::BN, C::BK, 1);
}

inline constexpr std::string_view kFeatureTmaMulticast =
    "thread-block clusters and distributed shared memory (TMA multicast, cp.async.bulk.tensor, mbarrier)";

// The variant of a Config, under the name the Config builds.
template <class C>
GemmVariant<float> variant() {
  constexpr bool kCluster = C::CLUSTER_M > 1;
  return {.info = {keep_name(C::name()), "beyond the documents",
                   kCluster         ? "Hopper: gemm13 in clusters of two vertically adjacent tiles; each B tile multicast to the pair by TMA"
                   : C::TRANSPOSE_A ? "Hopper: TMA tile loads, a producer warpgroup that also transposes A to [k][m], FMA warps that only multiply"
                                    : "Hopper: TMA tile loads into an mbarrier ring, a producer warp, FMA warps that only multiply"},
          .needs = {.compute_capability = 90, .feature = kCluster ? kFeatureTmaMulticast : kFeatureTma,
                    .shared_bytes = C::kSmemBytes, .clusters = kCluster,
                    .kernel = reinterpret_cast<const void*>(kernel_for<C>)},
          .launch = launch<C>,
          .prepare = prepare<C>};
}

// The split-K form of an unclustered Config: "<its name>_splitk". Where TMA cannot describe the
// product it runs the fallback unsplit (no workspace is used then).
template <class C>
GemmVariant<float> variant_splitk() {
  GemmVariant<float> v = variant<C>();
  v.info.name = keep_name(C::name() + "_splitk");
  v.info.lesson =
      "Hopper: gemm13 with k split over blockIdx.z where its tiles alone leave SMs idle; partial tiles in the "
      "workspace, an ordered reduction (no atomics)";
  v.launch = [](const GemmArgs<float>& g, cudaStream_t s) { launch_split<C>(g, splits<C>({g.M, g.N, g.K}), s); };
  v.workspace_bytes = [](GemmShape sh) { return splitk_workspace<float>(sh, splits<C>(sh), C::BK); };
  v.rounding_depth = [](GemmShape sh) { return splitk_depth(sh.K, splits<C>(sh), C::BK); };
  return v;
}

// The stream-K form of an unclustered Config: "<its name>_streamk". Its rounding depth is K: a
// tile's segments hold disjoint runs of its k, at least one k each, so the longest chain plus
// one addition per further segment is at most K.
template <class C>
GemmVariant<float> variant_stream() {
  GemmVariant<float> v = variant<C>();
  v.info.name = keep_name(C::name() + "_streamk");
  v.info.lesson =
      "Hopper: gemm13 as stream-K, one block per SM each running the same number of k tiles across tile boundaries; "
      "partial tiles in the workspace, added in k order (no atomics)";
  v.needs.kernel = reinterpret_cast<const void*>(kernel_for<C, true>);
  v.launch = launch_stream<C>;
  v.prepare = prepare_stream<C>;
  v.workspace_bytes = stream_workspace<C>;
  return v;
}

}  // namespace kl::gemm13
