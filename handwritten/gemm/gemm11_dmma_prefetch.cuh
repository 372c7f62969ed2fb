// gemm11_dmma_..._pf — beyond the documents: gemm11 with gemm12's fragment schedule.
//
// Lesson: Nsight Compute at double 4096³ (docs/sgemm-ladder.md, "Every shape class") shows gemm11
// issuing less often than cuBLAS, its DMMA pipe busy a smaller share of the time, and its warps
// stalled mostly on "wait" (a fixed-latency dependency) where cuBLAS's are throttled by the
// math pipe: cuBLAS keeps the tensor pipe fed, gemm11 keeps it waiting on its own fragment
// loads. gemm11 loads step k's fragments and then issues step k's DMMAs; within a k tile ptxas
// can move the next step's loads up, but not across the barrier that ends the tile, and with
// BK = 16 and m16n8k16 a tile *is* one step: every DMMA waits for loads issued just before it,
// and only the other warps of the SM (4 to 8) cover that.
// Here, as in gemm12, the fragments live in two register sets: step s multiplies set s % 2
// while the shared loads of step s + 1 fill the other, and the barrier that publishes tile t + 1
// moves into tile t's last step, so that step's DMMAs (their operands already in registers)
// cover the first loads of tile t + 1. After that barrier every warp is past its last read of
// tile t, so tile t + STAGES is copied into its slot at once: all STAGES slots hold tiles in
// flight. The price is one more set of fragments in registers.
//
// Same tiles, same copies, same DMMAs in the same order as gemm11 at the same configuration:
// the results are gemm11's bit for bit. Like gemm11 it takes B as K × N (gemm) or as N × K rows
// (A·Aᵀ: A's own rows), and one triangle of tiles (aat_triangle_*_pf).
//
// The stream-K form (kernel_stream, variant_stream): the 128² tile holds one block per SM, so
// where its tiles leave the last wave part-empty the SMs that have no tile idle. Here each block
// runs the same number of k tiles of the product (gemm_plan::StreamK, gemm13's plan and walk),
// each run cut into segments of one tile's k, each segment through the same k loop; partial
// tiles go to the workspace and stream_k_fixup adds them in k order. Wave quantisation is not
// the whole story for DGEMM on a power-capped card, though: SMs idle in a part-empty wave leave
// power to the busy ones (docs/sgemm-ladder.md, "What holds DGEMM short of cuBLAS").
#pragma once

#include "handwritten/gemm/gemm11_dmma.cuh"

#include <type_traits>

namespace kl::gemm11_pf {

using namespace gemm_detail;
using gemm11::BLayout;
using gemm11::Config;

// The k loop: `tiles` k tiles of blk's slice of k into acc (set to zero first), through the
// STAGES-slot ring at smem. Ends with copies possibly still in flight (empty groups past the
// last tile); Block::stage waits for them before the ring is reused.
template <class C, BLayout BL, bool VEC>
__device__ __forceinline__ void accumulate(double* smem, gemm11::Block<C, BL, VEC>& blk, int tiles,
                                           double (&acc)[C::kFragM][C::kFragN][4]) {
  constexpr int STAGES = C::STAGES, MMA_K = C::MMA_K, kSteps = C::BK / MMA_K;
  auto slot = [&](int t) { return smem + (t % STAGES) * C::kStageElems; };
  auto issue = [&](int t) {  // one commit group per call, empty past the last tile
    if (t < tiles) blk.copy(slot(t), t);
    cp_async_commit();
  };

  blk.zero(acc);
  double fa[2][C::kFragM][MMA_K / 2], fb[2][C::kFragN][MMA_K / 4];

#pragma unroll
  for (int t = 0; t < STAGES; ++t) issue(t);  // every slot: no tile has been read yet
  cp_async_wait<STAGES - 1>();
  __syncthreads();
  blk.load_fragments(fa[0], fb[0], slot(0), 0);
  // Step s of tile t multiplies set (t·kSteps + s) % 2. Register arrays take compile-time
  // indices only (a run-time index would put them in local memory), so the tiles go in pairs:
  // P, the tile's parity, is a constant in each copy of the body.
  auto tile = [&](int t, auto parity) {
    constexpr int P = decltype(parity)::value;
    const double* cur = slot(t);
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int set = (P * kSteps + s) % 2;
      if (s == kSteps - 1) {
        // Groups committed: STAGES + t; tile t + 1 is group t + 1, so STAGES - 2 may be pending.
        cp_async_wait<STAGES - 2>();
        __syncthreads();    // tile t + 1 is everyone's; everyone's last read of tile t is done
        issue(t + STAGES);  // into tile t's slot
      }
      // The next step's fragments: this tile's step s + 1, or the next tile's step 0 (past the
      // last tile, that slot holds a stale tile: loaded, never used).
      if (s + 1 < kSteps) blk.load_fragments(fa[set ^ 1], fb[set ^ 1], cur, (s + 1) * MMA_K);
      else blk.load_fragments(fa[set ^ 1], fb[set ^ 1], slot(t + 1), 0);
#pragma unroll
      for (int mi = 0; mi < C::kFragM; ++mi)
#pragma unroll
        for (int ni = 0; ni < C::kFragN; ++ni) gemm11::dmma<MMA_K>(acc[mi][ni], fa[set][mi], fb[set][ni]);
    }
  };
  for (int t = 0; t < tiles; t += 2) {
    tile(t, std::integral_constant<int, 0>{});
    if (t + 1 < tiles) tile(t + 1, std::integral_constant<int, 1>{});
  }
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, BLayout BL, bool VEC, bool TRIANGLE>
__global__ void __launch_bounds__((Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kThreads),
                                  (Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kMinBlocks))
    kernel_prefetch(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, int M, int N,
                    int K, int k_split, std::size_t split_stride) {
#if KL_ARCH_AT_LEAST(80)  // FP64 tensor-core mma.sync and cp.async; compiled for older targets as an empty kernel (Requirements)
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  double* const smem = reinterpret_cast<double*>(smem_raw);

  BlockWork w;
  if (!block_work<BM, BN, TRIANGLE>(M, K, k_split, w)) return;
  c += blockIdx.z * split_stride;
  const int tiles = ceil_div(w.kl, BK);

  gemm11::Block<C, BL, VEC> blk(a, b, M, N, K, w);  // gemm11's copies, fragments and epilogue
  double acc[C::kFragM][C::kFragN][4];
  accumulate(smem, blk, tiles, acc);
  blk.template store<TRIANGLE>(smem, acc, c, M, N, w);
#endif
}

// Stream-K (gemm_plan::StreamK, in int): a 1-D grid, one block per SM; block b runs its
// data-parallel tiles and then its stream iterations (gemm_plan::stream_iteration), one segment
// (a run of one tile's k tiles) at a time, each through the k loop above from an empty ring. A
// segment that covers its tile's whole k goes to C; a partial one, whole, to the block's slot of
// `partials` (gemm_plan::stream_slot: its first stream segment or its last), which
// stream_k_fixup adds into C afterwards. The ring drains between segments, as it does between
// the unsplit kernel's blocks; a block has at most three stream segments.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, bool VEC>
__global__ void __launch_bounds__((Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kThreads),
                                  (Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kMinBlocks))
    kernel_stream(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c,
                  double* __restrict__ partials, int M, int N, int K, gemm_plan::StreamKInt p) {
#if KL_ARCH_AT_LEAST(80)
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  double* const smem = reinterpret_cast<double*>(smem_raw);

  const int bid = blockIdx.x;
  const int run = gemm_plan::stream_run_length<int>(bid, p.kt, p.dp_waves, p.per_block, p.tail_iters);
  for (int t = 0; t < run;) {
    int tile, k0;
    gemm_plan::stream_iteration<int>(bid, t, p.kt, p.dp_waves, p.blocks, p.per_block, tile, k0);
    const int n = min(run - t, p.kt - k0);  // the segment: k tiles k0 .. k0 + n - 1 of `tile`
    BlockWork w;
    gemm_plan::raster_tile_at<unsigned>(tile, p.tiles_n, p.tiles_m, w.tm, w.tn);
    w.row0 = BM * w.tm;
    w.col0 = BN * w.tn;
    w.kb = k0 * BK;
    w.kl = min(K - w.kb, n * BK);

    gemm11::Block<C, BLayout::kn, VEC> blk(a, b, M, N, K, w);
    double acc[C::kFragM][C::kFragN][4];
    accumulate(smem, blk, n, acc);
    if (n == p.kt) {
      blk.template store<false>(smem, acc, c, M, N, w);
    } else {  // a partial tile, whole, into its workspace slot: from the accumulators where aligned
      const int j = tile - p.dp_waves * p.blocks;  // its stream tile
      double* slot = partials + gemm_plan::stream_slot(bid, j, p.kt, p.per_block) * (BM * BN);
      if (gemm11::rows_aligned16(partials, BN)) {
        gemm11::store_fragment_pairs(acc, slot, BN, BM, BN, blk.wm, blk.wn, blk.g, blk.q);
      } else {
        blk.stage(smem, acc);
        C::Staged::store(smem, slot, BM, BN, BN, 0, 0);
      }
    }
    __syncthreads();  // every read of the staged tile done before the next segment's copies
    t += n;
  }
#endif
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, bool VEC, BLayout BL = BLayout::kn,
          bool TRIANGLE = false>
constexpr auto kernel_for = kernel_prefetch<BM, BN, BK, WM, WN, STAGES, MMA_K, BL, VEC, TRIANGLE>;

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, bool VEC>
constexpr auto stream_kernel_for = kernel_stream<BM, BN, BK, WM, WN, STAGES, MMA_K, VEC>;

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void prepare() {
  allow_smem(Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kSmemBytes,
             {kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>, kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, false>});
  splitk_reduce_programmatic_here<double>();
}

// C = A·B in `splits` slices of k (gemm11::launch_split's schedule); `splits` must match the
// workspace (gemm_plan::splitk_workspace).
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void launch_split(const GemmArgs<double>& g, int splits, cudaStream_t s) {
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>;
  const auto kernel = vec_io_ok(g, /*need_a=*/true) ? kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>
                                                    : kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, false>;
  launch_split_k(g, BM, BN, BK, splits, kernel, C::kThreads, C::kSmemBytes, s);
}
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void launch(const GemmArgs<double>& g, cudaStream_t s) {
  launch_split<BM, BN, BK, WM, WN, STAGES, MMA_K>(g, 1, s);
}

// Stream-K: the plan over the device's SMs (one block per SM: the 128² tile's 8 warps hold the
// register file), then the fixup; the partial tiles in g.workspace (stream_workspace). Where the
// plan has no stream part, or a count the kernel takes in int would overflow, it runs unsplit.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
gemm_plan::StreamK stream_plan(GemmShape sh) {
  static_assert(Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kMinBlocks == 1, "one block per SM");
  return gemm_plan::stream_k_plan(sh, BM, BN, BK, sm_count());
}
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
std::size_t stream_workspace(GemmShape sh) {
  return gemm_plan::stream_k_workspace(stream_plan<BM, BN, BK, WM, WN, STAGES, MMA_K>(sh), BM, BN, sizeof(double));
}
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void prepare_stream() {
  prepare<BM, BN, BK, WM, WN, STAGES, MMA_K>();
  allow_smem(Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kSmemBytes,
             {stream_kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>,
              stream_kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, false>});
  fixup_programmatic_here<double, BM, BN, 1>();
}
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void launch_stream(const GemmArgs<double>& g, cudaStream_t s) {
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>;
  const gemm_plan::StreamK p = stream_plan<BM, BN, BK, WM, WN, STAGES, MMA_K>({g.M, g.N, g.K});
  gemm_plan::StreamKInt pi;
  if (p.tail_iters == 0 || !gemm_plan::stream_k_int(p, pi)) return launch<BM, BN, BK, WM, WN, STAGES, MMA_K>(g, s);
  const auto kernel = vec_io_ok(g, /*need_a=*/true) ? stream_kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>
                                                    : stream_kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, false>;
  double* partials = static_cast<double*>(g.workspace);
  kernel<<<static_cast<unsigned>(p.blocks), C::kThreads, C::kSmemBytes, s>>>(g.A, g.B, g.C, partials, g.M, g.N, g.K, pi);
  KL_CHECK_LAUNCH();
  launch_stream_k_fixup<double, BM, BN, 1>(partials, g.C, g.M, g.N, p, pi, s);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
GemmVariant<double> variant(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "gemm11 + fragments double-buffered across k steps and tile boundaries (gemm12's schedule on DMMA)"},
          .needs = needs_sm80(kFeatureFp64Mma, Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kSmemBytes,
                              kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>),
          .launch = launch<BM, BN, BK, WM, WN, STAGES, MMA_K>,
          .prepare = prepare<BM, BN, BK, WM, WN, STAGES, MMA_K>};
}

// The stream-K form, named by the caller ("<the configuration's name>_streamk"). Its rounding
// depth is the family's default, K, as gemm13's stream-K form's: a tile's segments hold disjoint
// runs of its k, at least one k each, so the longest chain plus one addition per further
// segment is at most K.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
GemmVariant<double> variant_stream(std::string_view name) {
  GemmVariant<double> v = variant<BM, BN, BK, WM, WN, STAGES, MMA_K>(name);
  v.info.lesson = "gemm11_pf as stream-K: one block per SM, each the same number of k tiles across tile boundaries; "
                  "partial tiles added in k order by a fixup (no atomics)";
  v.needs.kernel = reinterpret_cast<const void*>(stream_kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>);
  v.launch = launch_stream<BM, BN, BK, WM, WN, STAGES, MMA_K>;
  v.prepare = prepare_stream<BM, BN, BK, WM, WN, STAGES, MMA_K>;
  v.workspace_bytes = stream_workspace<BM, BN, BK, WM, WN, STAGES, MMA_K>;
  return v;
}

}  // namespace kl::gemm11_pf
