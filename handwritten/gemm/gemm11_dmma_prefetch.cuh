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
#pragma once

#include "handwritten/gemm/gemm11_dmma.cuh"

#include <type_traits>

namespace kl::gemm11_pf {

using namespace gemm_detail;
using gemm11::BLayout;
using gemm11::Config;

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, BLayout BL, bool VEC, bool TRIANGLE>
__global__ void __launch_bounds__((Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kThreads),
                                  (Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kMinBlocks))
    kernel_prefetch(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, int M, int N,
                    int K, int k_split, std::size_t split_stride) {
#if KL_ARCH_AT_LEAST(80)  // FP64 tensor-core mma.sync and cp.async; compiled for older targets as an empty kernel (Requirements)
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>;
  constexpr int kSteps = BK / MMA_K;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  double* const smem = reinterpret_cast<double*>(smem_raw);

  BlockWork w;
  if (!block_work<BM, BN, TRIANGLE>(M, K, k_split, w)) return;
  c += blockIdx.z * split_stride;
  const int tiles = ceil_div(w.kl, BK);

  gemm11::Block<C, BL, VEC> blk(a, b, M, N, K, w);  // gemm11's copies, fragments and epilogue
  auto slot = [&](int t) { return smem + (t % STAGES) * C::kStageElems; };
  auto issue = [&](int t) {  // one commit group per call, empty past the last tile
    if (t < tiles) blk.copy(slot(t), t);
    cp_async_commit();
  };

  double acc[C::kFragM][C::kFragN][4];
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
  blk.template store<TRIANGLE>(smem, acc, c, M, N, w);
#endif
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, bool VEC, BLayout BL = BLayout::kn,
          bool TRIANGLE = false>
constexpr auto kernel_for = kernel_prefetch<BM, BN, BK, WM, WN, STAGES, MMA_K, BL, VEC, TRIANGLE>;

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void prepare() {
  allow_smem(Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kSmemBytes,
             {kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>, kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, false>});
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void launch(const GemmArgs<double>& g, cudaStream_t s) {
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>;
  const auto kernel = vec_io_ok(g, /*need_a=*/true) ? kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, true>
                                                    : kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, false>;
  launch_split_k(g, BM, BN, BK, 1, kernel, C::kThreads, C::kSmemBytes, s);
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

}  // namespace kl::gemm11_pf
