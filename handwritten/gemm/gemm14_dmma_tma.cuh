// gemm14_dmma_tma — beyond the documents: DGEMM on the FP64 tensor cores, fed by TMA (sm_90a).
//
// Lesson: gemm11_pf's 128² tile keeps the DMMA pipe busy a smaller share of the cycles than
// cuBLAS does, and most of its instructions per k tile are neither DMMAs nor fragment loads:
// every thread computes, predicates and issues its share of the tile's cp.async copies, and a
// block-wide barrier ends every tile (docs/sgemm-ladder.md, "What holds DGEMM short of cuBLAS").
// Here, as gemm13 does for FFMA, the copies leave the math warps. A producer warpgroup, whose one
// thread issues each k tile as TMA boxes, fills a ring of STAGES slots; full[s] completes when a
// slot's bytes have landed, empty[s] when the 8 DMMA warps have given it back, each after a
// proxy fence that makes its fragment loads land before the next copy can
// (hopper::release_read_slot). The DMMA warps wait on a barrier, load fragments and multiply,
// nothing else; setmaxnreg moves registers from the producer warpgroup (40) to them (232).
//
// A slot holds a k tile of KD = 32 (3 slots, 192 KB, as many bytes in flight as 6 of 16 k): each
// wait for a full slot and each release, with its proxy fence, is paid once per 32 k instead of
// per 16 (docs/sgemm-ladder.md, "A k tile of 32").
//
// TMA cannot pad a tile, so gemm11's conflict-free padding becomes TMA's 128-byte swizzle: A's
// boxes are 128 rows × 16 k (one 128-byte row per m, one box per 16 k), B's 8 boxes of KD k × 16 n
// (gemm_plan::swz128_double; the swizzle repeats every 8 rows, so a box's 16-k parts are 16-row
// boxes one after the other). Under the swizzle the PTX ISA's fragment order (lane t takes k =
// 4s + t in k step s) would put two lanes of a half-warp on one bank pair. A product may take its
// k in any order as long as A and B agree, so here lane t takes k = gemm_plan::dmma_tma_k(s, t) in
// step s of each 16-k part, an order for which A's and B's 64-bit fragment loads are
// conflict-free (the host suite checks it). The rest is gemm11_pf's 128² tile: 8 warps of
// 64 × 32, m16n8k4, fragments double-buffered across steps and tiles; C written from the
// accumulators where its rows are 16-byte aligned, as gemm11's tiles write theirs, else staged in
// shared memory and written in whole rows.
//
// Edges: TMA reads what lies outside the matrix as zeros, so a ragged M, N or K needs no copy
// path. TMA needs 16-byte row pitches and bases: K and N even, A and B 16-byte aligned; any other
// product runs gemm11_pf's 128² tile.
//
// gemm14_..._streamk (kernel_stream, launch_stream): the same ring and DMMA warps as stream-K,
// one block per SM running the same number of k tiles across tile boundaries, segments stored
// from registers and partial tiles added by stream_k_fixup (the plan gemm11_pf's and gemm13's
// stream-K forms share, with only the part-empty last wave streamed: gemm_plan::StreamPart).
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm11_dmma_prefetch.cuh"
#include "handwritten/gemm/gemm_layouts.hpp"
#include "handwritten/gemm/gemm_ladder_tiles.hpp"
#include "handwritten/gemm/gemm_schedule.cuh"
#include "handwritten/gemm/gemm_walk.cuh"

#include <algorithm>
#include <string_view>

namespace kl::gemm14 {

using namespace gemm_detail;
using gemm_plan::dmma_tma_k;
using gemm_plan::swz128_double;

inline constexpr std::string_view kFeatureTmaDmma = "TMA (cp.async.bulk.tensor), mbarrier and FP64 tensor-core mma";

template <int STAGES_, int BK_>
struct Config {
  static constexpr int BM = 128, BN = 128, BK = BK_, WM = 64, WN = 32, STAGES = STAGES_;
  static constexpr int kKParts = BK / 16;  // 16-deep k parts of a stage (one A box each)
  static constexpr int kSteps = BK / 4;  // m16n8k4 steps per k tile
  static constexpr int kPartSteps = 16 / 4;  // ... per 16-deep k part
  static constexpr int kFragM = WM / 16, kFragN = WN / 8, kWarpsN = BN / WN;
  static constexpr int kConsumerWarps = (BM / WM) * kWarpsN, kConsumers = 32 * kConsumerWarps;
  static constexpr int kThreads = kConsumers + 128;  // and the producer warpgroup
  static constexpr int kRegsConsumer = 232, kRegsProducer = 40;
  static_assert(kConsumers * kRegsConsumer + 128 * kRegsProducer <= 65536, "the register file");
  // One stage: A's boxes (BM rows of 16 doubles, 128 bytes each, one per 16 k), then B's boxes (BK
  // rows of 16 doubles, one per 16 n: a box's 16-k parts lie one after the other).
  static constexpr int kABoxBytes = BM * 16 * 8, kABytes = kKParts * kABoxBytes, kBBoxes = BN / 16, kBBoxBytes = BK * 16 * 8;
  static constexpr int kStageBytes = kABytes + kBBoxes * kBBoxBytes;
  // Within a B box, one 16-deep k part: 16 rows of 16 doubles.
  static constexpr int kBPartDoubles = 16 * 16;
  static_assert(BK % 16 == 0 && kABoxBytes % 1024 == 0 && kBBoxBytes % 1024 == 0, "128-byte swizzled boxes, 1024-byte aligned");
  using Staged = StagedTile<double, BM, BN, kConsumers>;
  // The epilogue's C tile reuses the ring; the barriers lie past both.
  static constexpr std::size_t kBarrierOffset = (std::max<std::size_t>(std::size_t(STAGES) * kStageBytes, Staged::kBytes) + 7) / 8 * 8;
  static constexpr std::size_t kSmemBytes = kBarrierOffset + 16 * STAGES;
  static_assert(kSmemBytes <= 227 * 1024, "Hopper's dynamic shared memory per block");
};

#if KL_ARCH_AT_LEAST(90)
using namespace hopper;

// ---- the pieces both kernels share ------------------------------------------------------------
// The ring (hopper::Ring) and its barriers (thread 0), before any thread touches them: full[s]
// completes on the producer's arrive and the stage's bytes, empty[s] on one arrive per DMMA warp.
template <class C>
__device__ __forceinline__ Ring<C::STAGES> init_ring(unsigned smem) {
  const Ring<C::STAGES> ring{smem + static_cast<unsigned>(C::kBarrierOffset)};
  if (threadIdx.x == 0) {
    if (smem % 1024 != 0) __trap();  // the swizzled boxes need 1024-byte aligned slots
    for (int s = 0; s < C::STAGES; ++s) {  // (not Ring::init: its unrolled loop renumbers the PTX, which ptxas schedules differently)
      mbar_init(ring.full(s), 1);
      mbar_init(ring.empty(s), C::kConsumerWarps);
    }
    fence_mbarrier_init();
    fence_proxy_async_shared();
  }
  __syncthreads();
  return ring;
}

// The producer's t-th k tile of its run, at k0 (elements) of the C tile at (row0, col0), into
// slot t % STAGES once the DMMA warps have given that slot back (t >= STAGES).
template <class C>
__device__ __forceinline__ void fill(const CUtensorMap* map_a, const CUtensorMap* map_b, unsigned smem,
                                     const Ring<C::STAGES>& ring, int t, int k0, int row0, int col0) {
  const int s = ring.acquire(t);  // the tile before it there is read
  const unsigned full = ring.full(s), stage = smem + s * C::kStageBytes;
  mbar_arrive_expect_tx(full, C::kStageBytes);  // whole boxes: the zero fill counts too
#pragma unroll
  for (int h = 0; h < C::kKParts; ++h) tma_load_2d(stage + h * C::kABoxBytes, map_a, full, k0 + 16 * h, row0);
#pragma unroll
  for (int i = 0; i < C::kBBoxes; ++i) tma_load_2d(stage + C::kABytes + i * C::kBBoxBytes, map_b, full, col0 + 16 * i, k0);
}

// A DMMA warp's side of the ring: its fragment offsets in a stage, the slot it reads (the ring's
// stage, whose phase is its full barrier's parity), and two fragment sets (step s multiplies set
// s % 2 while the loads of step s + 1, or of the next k tile's step 0, fill the other; a k tile
// has an even number of steps, so the sets need no tile parity).
template <class C>
struct DmmaWarp {
  static constexpr int kSteps = C::kSteps;
  const double* stages;
  Ring<C::STAGES> ring;
  int a_off[C::kPartSteps], b_off[C::kPartSteps];  // within a 16-k part; part h adds h·kABoxBytes (A), h·16 rows (B)
  double fa[2][C::kFragM][2], fb[2][C::kFragN][1];

  // Step s's fragment offsets in a stage (doubles). A: rows wm + g + 16·mi + 8·h, all ≡ g (mod 8),
  // so one swizzled offset per step and constants. B: fragment ni's column wn + 8·ni + g lies in
  // box wn/16 + ni/2 at column 8·(ni mod 2) + g: one offset per step for even ni, one for odd.
  __device__ __forceinline__ DmmaWarp(const unsigned char* smem_raw, const Ring<C::STAGES>& ring_, int wm, int wn, int g, int q)
      : stages(reinterpret_cast<const double*>(smem_raw)), ring(ring_) {
#pragma unroll
    for (int s = 0; s < C::kPartSteps; ++s) {
      const int k = dmma_tma_k(s, q);
      a_off[s] = swz128_double(wm + g, k);
      b_off[s] = C::kABytes / 8 + (wn / 16) * (C::kBBoxBytes / 8) + swz128_double(k, g);
    }
  }
  // Step s's fragments into `set`, in the ISA's lane pattern (A: rows g and g + 8; B: column g) at
  // k 16·(s / kPartSteps) + dmma_tma_k(s % kPartSteps, q). B's odd fragments lie at column 8 + g
  // of the same box: chunk ^ 4, offset ^ 8.
  __device__ __forceinline__ void load(int set, const double* st, int s) {
    const int part = s / C::kPartSteps;
    const int ha = part * (C::kABoxBytes / 8), hb = part * C::kBPartDoubles;
    s %= C::kPartSteps;
#pragma unroll
    for (int mi = 0; mi < C::kFragM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) fa[set][mi][h] = st[a_off[s] + ha + 256 * mi + 128 * h];
#pragma unroll
    for (int ni = 0; ni < C::kFragN; ++ni) fb[set][ni][0] = st[(ni % 2 ? b_off[s] ^ 8 : b_off[s]) + hb + (C::kBBoxBytes / 8) * (ni / 2)];
  }
  // The first k tile's step 0, once it has landed.
  __device__ __forceinline__ void start() {
    ring.wait();
    load(0, stages, 0);
  }
  // Multiplies the k tile in `slot` into acc. At its last step every load from the slot is issued
  // (the last step's in the one before): the slot goes back (release_read_slot: the proxy fence
  // makes those reads land before the refill can), and where `more` k tiles follow, the next
  // one's step 0 is loaded once it has landed.
  __device__ __forceinline__ void multiply_k_tile(double (&acc)[C::kFragM][C::kFragN][4], bool more) {
    const double* cur = stages + ring.stage * (C::kStageBytes / 8);
    const Ring<C::STAGES> next = ring.next();
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int set = s & 1;
      if (s < kSteps - 1) {
        load(set ^ 1, cur, s + 1);
      } else {
        ring.release();
        if (more) {
          next.wait();
          load(set ^ 1, stages + next.stage * (C::kStageBytes / 8), 0);
        }
      }
#pragma unroll
      for (int mi = 0; mi < C::kFragM; ++mi)
#pragma unroll
        for (int ni = 0; ni < C::kFragN; ++ni) gemm11::dmma<4>(acc[mi][ni], fa[set][mi], fb[set][ni]);
    }
    ring = next;
  }
};
#endif

// ---- one block per C tile ---------------------------------------------------------------------
template <int STAGES, int KD>
__global__ void __launch_bounds__(Config<STAGES, KD>::kThreads, 1)
    kernel_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               double* __restrict__ c, int M, int N, int K) {
#if KL_ARCH_AT_LEAST(90)  // TMA, mbarrier and DMMA; compiled for older targets as an empty kernel
  using C = Config<STAGES, KD>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // The k tiles: computed in each branch, after its setmaxnreg (computed before it, ptxas kept
  // the count in local memory across the DMMA warps' loop).
  auto k_tiles = [&] { return ceil_div(K, C::BK); };
  // The block's C tile (unsplit: all of k); computed where it is used (the producer's copies, the
  // epilogue), not kept live across the DMMA warps' k loop.
  auto work = [&] {
    BlockWork w;
    block_work<C::BM, C::BN, false>(M, K, K, w);
    return w;
  };
  const Ring<STAGES> ring = init_ring<C>(smem);

  if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup: one thread issues the boxes ----
    setmaxnreg_dec<C::kRegsProducer>();
    if (threadIdx.x == C::kConsumers) {
      const BlockWork w = work();
      const int tiles = k_tiles();
      prefetch_tensormap(&map_a);
      prefetch_tensormap(&map_b);
      for (int t = 0; t < tiles; ++t) fill<C>(&map_a, &map_b, smem, ring, t, t * C::BK, w.row0, w.col0);
    }
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();
  const int tiles = k_tiles();

  // ---- the DMMA warps ----
  const int g = lane / 4, q = lane % 4;
  const int wm = (warp / C::kWarpsN) * C::WM, wn = (warp % C::kWarpsN) * C::WN;
  DmmaWarp<C> dw(smem_raw, ring, wm, wn, g, q);
  double acc[C::kFragM][C::kFragN][4];
  gemm11::zero_fragments(acc);
  dw.start();
  for (int t = 0; t < tiles; ++t) dw.multiply_k_tile(acc, t + 1 < tiles);

  // The epilogue: where C's rows are 16-byte aligned, straight from the accumulators
  // (gemm11::store_fragment_pairs); otherwise the ring becomes the C tile once every DMMA warp is
  // past its last read (every copy has landed: each was waited for), then whole rows of it go to
  // C. The test is the same for every block, so the named barriers are reached by all or none.
  const BlockWork w = work();
  if (gemm11::rows_aligned16(c, static_cast<std::size_t>(N))) {
    gemm11::store_tile_pairs(acc, c, M, N, w, wm, wn, g, q);
    return;
  }
  double* cs = reinterpret_cast<double*>(smem_raw);
  named_barrier(1, C::kConsumers);
  gemm11::put_fragments<typename C::Staged>(cs, acc, wm, wn, g, q);
  named_barrier(1, C::kConsumers);
  C::Staged::template store_tile<false>(cs, c, M, N, w);
#endif
}

// ---- stream-K ---------------------------------------------------------------------------------
// gemm_plan::StreamK, in int, as gemm11_pf's and gemm13's forms: one block per SM, each running
// the same number of k tiles of the product across tile boundaries (gemm_walk::StreamWalk: its
// data-parallel tiles first, then its stream iterations). The producer walks the run in order;
// the DMMA warps multiply it segment by segment (a segment ends at its tile's last k tile or at
// the run's end), the fragments flowing across segments as across k tiles, and store each
// segment from registers: a whole tile into C, a partial one into the block's workspace slot
// (gemm_plan::stream_slot), which stream_k_fixup adds in k order.
template <int STAGES, int KD>
__global__ void __launch_bounds__(Config<STAGES, KD>::kThreads, 1)
    kernel_stream(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  double* __restrict__ c, double* __restrict__ partials, int M, int N, gemm_plan::StreamKInt p) {
#if KL_ARCH_AT_LEAST(90)
  using C = Config<STAGES, KD>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int bid = blockIdx.x;
  auto run_length = [&] { return gemm_plan::stream_run_length<int>(bid, p.kt, p.dp_waves, p.per_block, p.tail_iters); };
  const Ring<STAGES> ring = init_ring<C>(smem);

  if (warp >= C::kConsumerWarps) {  // ---- the producer: the run's k tiles in order ----
    setmaxnreg_dec<C::kRegsProducer>();
    if (threadIdx.x == C::kConsumers) {
      const int tiles = run_length();
      const gemm_walk::StreamWalk<C::BM, C::BN, C::BK> walk{p, bid};
      auto at = walk.start();
      prefetch_tensormap(&map_a);
      prefetch_tensormap(&map_b);
      for (int t = 0; t < tiles; ++t, at.next()) fill<C>(&map_a, &map_b, smem, ring, t, at.at.k, at.at.row0, at.at.col0);
    }
    return;
  }
  setmaxnreg_inc<C::kRegsConsumer>();
  const int tiles = run_length();

  const int g = lane / 4, q = lane % 4;
  const int wm = (warp / C::kWarpsN) * C::WM, wn = (warp % C::kWarpsN) * C::WN;
  // A segment from run iteration seg_t0 to t_end, stored from the accumulators (16-byte pairs:
  // launch_stream runs this kernel only where C's rows are 16-byte aligned): a whole tile (kt k
  // tiles) into C, guarded at M and N; a partial one, whole, into its slot of the workspace
  // (row-major BM × BN, stream_k_fixup's layout).
  auto store = [&](const double (&acc)[C::kFragM][C::kFragN][4], int seg_t0, int t_end) {
    int tile, k0;
    gemm_plan::stream_iteration<int>(bid, seg_t0, p.kt, p.dp_waves, p.blocks, p.per_block, tile, k0);
    double* dst;
    int ld, rows, cols;
    if (t_end - seg_t0 == p.kt) {
      int tm, tn;
      gemm_plan::raster_tile_at<unsigned>(tile, p.tiles_n, p.tiles_m, tm, tn);
      dst = c + static_cast<std::size_t>(C::BM * tm) * N + C::BN * tn;
      ld = N, rows = M - C::BM * tm, cols = N - C::BN * tn;
    } else {
      const int j = tile - p.dp_waves * p.blocks;  // its stream tile
      dst = partials + gemm_plan::stream_slot(bid, j, p.kt, p.per_block) * (C::BM * C::BN);
      ld = C::BN, rows = C::BM, cols = C::BN;
    }
    gemm11::store_fragment_pairs(acc, dst, ld, rows, cols, wm, wn, g, q);
  };
  DmmaWarp<C> dw(smem_raw, ring, wm, wn, g, q);
  double acc[C::kFragM][C::kFragN][4];
  gemm11::zero_fragments(acc);
  dw.start();
  const int dp_iters = p.dp_waves * p.kt, stream_k0 = bid * p.per_block % p.kt;
  int seg_t0 = 0, seg_end = gemm_plan::stream_segment_end(0, tiles, p.kt, dp_iters, stream_k0);
  for (int t = 0; t < tiles; ++t) {
    dw.multiply_k_tile(acc, t + 1 < tiles);
    if (t + 1 == seg_end) {  // the segment is done: store it, start the next
      store(acc, seg_t0, seg_end);
      gemm11::zero_fragments(acc);
      seg_t0 = t + 1;
      seg_end = gemm_plan::stream_segment_end(seg_t0, tiles, p.kt, dp_iters, stream_k0);
    }
  }
#endif
}

// ---- host side ------------------------------------------------------------------------------
template <int STAGES, int KD>
constexpr auto kernel_for = kernel_tma<STAGES, KD>;
// The configuration the gemm list registers and gemm_auto runs (tiles::Gemm14Tile): a k tile of
// 32 in 3 slots.
inline constexpr int kListedStages = tiles::Gemm14Tile::STAGES, kListedDepth = tiles::Gemm14Tile::BK;
using Listed = Config<kListedStages, kListedDepth>;
static_assert(Listed::BM == tiles::Gemm14Tile::BM && Listed::BN == tiles::Gemm14Tile::BN &&
              Listed::WM == tiles::Gemm14Tile::WM && Listed::WN == tiles::Gemm14Tile::WN && tiles::Gemm14Tile::MMA_K == 4);

// The fallback where TMA cannot describe the product: gemm11_pf's 128² tile, tiles::Gemm11Tile128k4
// (the list names it from these parameters, as the variant's `fallback`).
struct Fallback : tiles::Gemm11Tile128k4 {
  static void prepare() { gemm11_pf::prepare<KL_DMMA_TILE(Fallback)>(); }
  static void launch(const GemmArgs<double>& g, cudaStream_t s) { gemm11_pf::launch<KL_DMMA_TILE(Fallback)>(g, s); }
};

// Whether TMA applies: 16-byte row pitches (K and N even) and 16-byte aligned A and B.
inline bool tma_ok(const GemmArgs<double>& g) { return g.K % 2 == 0 && g.N % 2 == 0 && aligned16(g.A) && aligned16(g.B); }

// The tensor maps both kernels read: A (rows × K) in boxes of BM rows × 16 k, one per 16 k of a
// slot; B (K × N) in boxes of a slot's BK k × 16 n (Config's stage layout).
template <class C>
CUtensorMap map_a(const double* a, int rows, int K) {
  return hopper::encode_map(a, rows, K, C::BM, 16, CU_TENSOR_MAP_SWIZZLE_128B);
}
template <class C>
CUtensorMap map_b(const double* b, int K, int N) {
  return hopper::encode_map(b, K, N, C::BK, 16, CU_TENSOR_MAP_SWIZZLE_128B);
}

template <int STAGES, int KD>
void prepare() {
  allow_smem(Config<STAGES, KD>::kSmemBytes, {kernel_for<STAGES, KD>});
  Fallback::prepare();
  (void)hopper::tensor_map_encoder();  // ask the driver once, outside any timed launch
}

// Encodes the maps on the host (by value into the kernel's parameters) and launches one block per
// C tile, in slabs of at most 65535 tile rows (launch_tiled).
template <int STAGES, int KD>
void launch(const GemmArgs<double>& g, cudaStream_t s) {
  using C = Config<STAGES, KD>;
  if (!tma_ok(g)) return Fallback::launch(g, s);
  const CUtensorMap mb = map_b<C>(g.B, g.K, g.N);
  launch_tiled(g, C::BM, C::BN, [&](dim3 grid, const double* A, double* Cp, int M) {
    kernel_for<STAGES, KD><<<grid, C::kThreads, C::kSmemBytes, s>>>(map_a<C>(A, M, g.K), mb, Cp, M, g.N, g.K);
  });
}

template <int STAGES, int KD>
GemmVariant<double> variant(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "Hopper: gemm11_pf's DMMA tile fed by TMA (a producer warpgroup, an mbarrier ring, 128-byte "
                   "swizzled boxes read in a conflict-free k order); the DMMA warps only load fragments and multiply"},
          .needs = {.compute_capability = 90, .feature = kFeatureTmaDmma, .shared_bytes = Config<STAGES, KD>::kSmemBytes,
                    .kernel = reinterpret_cast<const void*>(kernel_for<STAGES, KD>)},
          .launch = launch<STAGES, KD>,
          .prepare = prepare<STAGES, KD>};
}

// Stream-K: the plan over the device's SMs (one block per SM), then the fixup; the partial tiles
// in g.workspace (stream_workspace). Where TMA cannot describe the product, C or the workspace
// is not 16-byte aligned (the kernel stores 16-byte pairs), the plan has no stream part, or a
// count the kernel takes in int would overflow, it runs as launch does.
template <int STAGES, int KD>
constexpr auto stream_kernel_for = kernel_stream<STAGES, KD>;
// Only the part-empty last wave is streamed: every SM runs its whole tiles as the unsplit kernel
// does, then under one tile of the last wave's k tiles, so the partial tiles (and the fixup's
// reads) are the last wave's alone (docs/sgemm-ladder.md, "gemm14 stream-K").
template <int KD>
gemm_plan::StreamK stream_plan(GemmShape sh) {
  return gemm_plan::stream_k_plan(sh, 128, 128, KD, sm_count(), gemm_plan::StreamPart::last_wave);
}
template <int KD>
std::size_t stream_workspace(GemmShape sh) {
  return gemm_plan::stream_k_workspace(stream_plan<KD>(sh), 128, 128, sizeof(double));
}
template <int STAGES, int KD>
void prepare_stream() {
  prepare<STAGES, KD>();
  allow_smem(Config<STAGES, KD>::kSmemBytes, {stream_kernel_for<STAGES, KD>});
  fixup_programmatic_here<double, Config<STAGES, KD>::BM, Config<STAGES, KD>::BN, 1>();
}
template <int STAGES, int KD>
void launch_stream(const GemmArgs<double>& g, cudaStream_t s) {
  using C = Config<STAGES, KD>;
  const gemm_plan::StreamK p = stream_plan<KD>({g.M, g.N, g.K});
  gemm_plan::StreamKInt pi;
  if (!tma_ok(g) || !aligned16(g.C) || !aligned16(g.workspace) || p.tail_iters == 0 || !gemm_plan::stream_k_int(p, pi))
    return launch<STAGES, KD>(g, s);
  double* partials = static_cast<double*>(g.workspace);
  stream_kernel_for<STAGES, KD><<<static_cast<unsigned>(p.blocks), C::kThreads, C::kSmemBytes, s>>>(
      map_a<C>(g.A, g.M, g.K), map_b<C>(g.B, g.K, g.N), g.C, partials, g.M, g.N, pi);
  KL_CHECK_LAUNCH();
  launch_stream_k_fixup<double, C::BM, C::BN, 1>(partials, g.C, g.M, g.N, p, pi, s);
}
template <int STAGES, int KD>
GemmVariant<double> variant_stream(std::string_view name) {
  GemmVariant<double> v = variant<STAGES, KD>(name);
  v.info.lesson = "gemm14 as stream-K: one block per SM, each the same number of k tiles across tile boundaries; "
                  "segments stored from registers, partial tiles added in k order by a fixup (no atomics)";
  v.needs.kernel = reinterpret_cast<const void*>(stream_kernel_for<STAGES, KD>);
  v.launch = launch_stream<STAGES, KD>;
  v.prepare = prepare_stream<STAGES, KD>;
  v.workspace_bytes = stream_workspace<KD>;
  return v;
}

}  // namespace kl::gemm14
