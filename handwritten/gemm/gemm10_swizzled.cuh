// gemm10_swizzled — beyond the documents: gemm9 with A copied as it is (16-byte cp.async into a
// swizzled tile), the block order rasterised, and C written through shared memory.
//
// Lesson: gemm9 is issue-bound (docs/sgemm-ladder.md, "What limits gemm9"): part of its
// instructions are not FFMA, and the largest share of those is the copy of A, which it stores
// transposed (as[k][m]) and so must copy element by element: 8 four-byte cp.async per thread per
// 128×128×16 tile, each with its own predicate, source select and address step, against 2 for
// B. Here A's tile stays as it is in memory, as[m][k], so it moves in 16-byte cp.async like B
// (2 per thread per tile). What changes for the FMAs: a thread now reads its A values along k,
// one 16-byte vector = 4 consecutive k (2 for double) of one row, and keeps them in registers
// for those 4 k; its B values come as before. Per 4 k that is TM vector loads of A and
// 4·TN/4 of B: the same 4 LDS.128 per k as gemm9 (8 × 8 float thread tile), with 16 more
// registers live (a thread holds TM × 4 values of A instead of TM).
//
// The swizzle (SwizzledRows in gemm_layouts.hpp): lanes with the same lane-row read the same
// vector (a broadcast), and the warp's 8 lane-rows read chunk q of 8 *consecutive* rows, which
// this kernel's thread map arranges (thread rows are lm, lm + 8, lm + 16, ...: the rows of a
// thread are no longer contiguous, since its A values no longer come in vectors along m).
// Unswizzled, a 16-float row is 64 bytes, so rows 0, 2, 4, 6 start on bank 0 and rows 1, 3, 5, 7
// on bank 16: chunk q of 8 rows falls into 2 bank groups, a 4-way conflict. Stored at chunk
// q ^ ((r / 2) mod 4), the 8 rows use 8 different 16-byte bank groups: one wavefront.
//
// Also new here, for every shape (and reused by gemm11 and the A·Aᵀ steps; gemm_schedule.cuh):
//   * a rasterised block order: bands of 8 tile rows, column by column, so the blocks resident
//     together read 8 row tiles of A and ~33 column tiles of B (8192²: instead of 4 and 64);
//     on the H100 DRAM was nearly idle under gemm9 ("What limits gemm9"), so expect little
//     from it at these sizes: the profiler should show fewer DRAM bytes at 8192³, not a
//     different time;
//   * C through shared memory: the accumulators are staged, then a warp writes 32 consecutive
//     elements of a row per store (128-byte lines, alignment-free). gemm9 wrote 4-element runs
//     per lane, and for N = 4095 (no 16-byte rows) scalar stores 16 bytes apart: at
//     4097×4095×17, where writing C is most of the work, gemm9 ran far behind cuBLAS
//     (docs/sgemm-ladder.md, "Thin and small shapes: the staged epilogue, split-K, gemm_auto");
//   * split-K: blockIdx.z takes a slice of k and writes its partial tile into the workspace
//     (gemm_auto uses it where the output has too few tiles to fill the GPU).
//
// What the profiler should show against gemm9 (4096³): the FFMA share of the k loop's
// instructions (SASS, nvcc 13) a little higher at 128×128×16 (the copies are cheaper, the
// swizzled addresses cost a little back), higher at 128×128×32 and 128×256×16 (the counts are
// in docs/sgemm-ladder.md, "gemm10: A untransposed, swizzled, in 16-byte copies"); shared-load
// wavefronts unchanged with ~0 bank conflicts; 2 blocks per SM (1 for 128×256). Prediction:
// 128×128×16 level with gemm9, ×32 and 128×256 ahead of it if their issue rate holds; the
// issue rate (dispatch stalls) decides. What the H100 measured (same section): the prediction
// failed: 128×128×16 is slower than gemm9, ×32 and 128×256 below gemm9's best; only the 64×64
// tile gains. Why is not established: gemm10 was not profiled.
//
// Edges: any M, N, K >= 1. A and B move in 16-byte copies when their rows are 16-byte aligned
// (K, N multiples of 4 floats / 2 doubles, aligned pointers), element copies otherwise; the
// shared-memory layout and the FMAs are the same in both, so the results are bit-identical.
#pragma once

#include "handwritten/gemm/gemm_schedule.cuh"
#include "handwritten/gemm/gemm_tiles.cuh"

namespace kl::gemm10 {

using namespace gemm_detail;

// Which second operand the block multiplies by: B (K × N, row-major), or for A·Aᵀ the rows of A
// itself read as columns (b is then A's buffer, N × K, and its tile is copied transposed into
// bs[k][n], element by element, as gemm9 copied A).
enum class BSource { kn, rows_of_a };

// The order of a thread's TM × TN FFMAs for one k (the sums are the same either way: one FFMA per
// output per k). rows: row by row, each row's B values in serpentine order; cols: column by
// column, serpentine over the rows. The order decides which operand the register reuse cache
// holds and steers ptxas's register assignment and scheduling. gemm9's remaining gap to cuBLAS
// is issue slots lost to dispatch stalls (several times cuBLAS's; docs/sgemm-ladder.md, "What
// limits gemm9"), which ncu does not break down further; the two orders are registered side by
// side to show whether the FFMA stream's shape moves them (docs/sgemm-ladder.md).
enum class FmaOrder { rows, cols };

template <class T, int BM_, int BN_, int BK_, int WM, int WN, int TM, int TN, int STAGES_, BSource BS>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, V = kVec<T>;
  static constexpr int kLanesM = WM / TM, kLanesN = WN / TN, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * (BM / WM) * kWarpsN;
  static constexpr int kSubN = kLanesN * V;  // columns a vector step of the lanes covers
  // The 8 lane-rows read 8 consecutive rows of the swizzled A tile (one wavefront, see above).
  static_assert(kLanesM == 8 && kLanesN == 4, "8 × 4 lanes per warp");
  static_assert(BM % WM == 0 && BN % WN == 0 && TN % V == 0 && BK % V == 0, "whole tiles");
  static constexpr int LDB = BS == BSource::kn ? BN : BN + V;  // + V: gemm7's conflict-free transposing stores
  static constexpr int kAElems = BM * BK, kStageElems = kAElems + BK * LDB;
  using Staged = StagedTile<T, BM, BN, kThreads>;
  static constexpr std::size_t kSmemBytes =
      std::max(std::size_t(STAGES) * kStageElems * sizeof(T), Staged::kBytes);
  // Two blocks of 256 threads per SM hold 128 registers a thread: room for 64 accumulators,
  // TM × V values of A and TN of B; bigger thread tiles take the whole register file. Blocks of
  // 128 threads with 4 × 8 thread tiles (64 × 64) are held to 128 registers too, four per SM
  // (left alone, ptxas takes ~160 to preload a whole k tile, and only three fit); with 8 × 8
  // thread tiles four blocks would spill, so they are held to two.
  static constexpr int kMinBlocks = kThreads <= 128                                ? (TM * TN <= 32 ? 4 : 2)
                                    : kThreads <= 256 && TM * TN * sizeof(T) <= 256 ? 2
                                                                                    : 1;
  using ALayout = SwizzledRows<T, BK>;
  // A·Aᵀ with K not a multiple of 4 copies both tiles element by element, which needs a few
  // registers more than 128 (ptxas spills): that fallback runs one block per SM.
  template <bool VEC>
  static constexpr int min_blocks() {
    return BS == BSource::rows_of_a && !VEC ? 1 : kMinBlocks;
  }
};

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, BSource BS,
          bool VEC, bool TRIANGLE, FmaOrder ORDER = FmaOrder::rows>
__global__ void __launch_bounds__((Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS>::kThreads),
                                  (Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS>::template min_blocks<VEC>()))
    kernel_swizzled(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M, int N,
                    int K, int k_split, std::size_t split_stride) {
#if KL_ARCH_AT_LEAST(80)  // cp.async; compiled for older targets as an empty kernel (Requirements)
  using C = Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS>;
  constexpr int V = C::V, kThreads = C::kThreads;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const smem = reinterpret_cast<T*>(smem_raw);

  BlockWork w;  // the C tile and the slice of k
  if (!block_work<BM, BN, TRIANGLE>(M, K, k_split, w)) return;
  c += blockIdx.z * split_stride;
  const int tiles = ceil_div(w.kl, BK);

  AsyncCopyK<T, BM, BK, kThreads, VEC, typename C::ALayout> copy_a(a + w.kb, M, w.kl, K, w.row0);
  auto copy_b = [&] {
    if constexpr (BS == BSource::kn) {
      return AsyncCopyB<T, BK, BN, C::LDB, kThreads, VEC>(b + static_cast<std::size_t>(w.kb) * N, w.kl, N, w.col0);
    } else {
      // b is a: say so, and the two copies share their base, row step and bounds (registers).
      return AsyncCopyA<T, BN, BK, C::LDB, kThreads>(a + w.kb, N, w.kl, K, w.col0);  // k sliced as A's
    }
  }();
  auto issue = [&](int t) {
    if (t < tiles) {
      T* slot = smem + (t % STAGES) * C::kStageElems;
      copy_a.copy(slot, t * BK);
      copy_b.copy(slot + C::kAElems, t * BK);
    }
    cp_async_commit();
  };

  // This thread's outputs: rows wm + lm + 8i (i < TM), columns wn + ln·V + kSubN·j' + e.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int lm = lane / C::kLanesN, ln = lane % C::kLanesN;
  const int wm = (warp / C::kWarpsN) * WM, wn = (warp % C::kWarpsN) * WN;
  // Its A vectors: rows wm + lm + 8i. The swizzle repeats every 8 rows (kPeriod), so chunk q
  // of row wm + lm + 8i is at(wm + lm, q·V) + 8i·BK: one offset per q, the rest immediates.
  static_assert(C::ALayout::kPeriod == 8, "thread rows 8 apart share their swizzle");
  const int a_row = wm + lm;
  const int b_col = wn + ln * V;

  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

#pragma unroll
  for (int t = 0; t < STAGES - 1; ++t) issue(t);
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of tile t have landed ...
    __syncthreads();              // ... and everyone's; everyone is also done with tile t - 1
    issue(t + STAGES - 1);
    const T* as = smem + (t % STAGES) * C::kStageElems;
    const T* bs = as + C::kAElems;
#pragma unroll
    for (int q = 0; q < BK / V; ++q) {
      T ra[TM][V];  // V consecutive k of each of the thread's rows
#pragma unroll
      for (int i = 0; i < TM; ++i) load_vec(ra[i], as + C::ALayout::at(a_row, q * V) + 8 * i * BK);
#pragma unroll
      for (int kk = 0; kk < V; ++kk) {
        T rb[TN];
#pragma unroll
        for (int j = 0; j < TN / V; ++j) load_vec(rb + j * V, bs + (q * V + kk) * C::LDB + b_col + j * C::kSubN);
        // Serpentine (as CUTLASS's SIMT MMA): the last operand of one row (column) is the first
        // of the next, so consecutive FFMAs share an operand the reuse cache can hold.
#pragma unroll
        for (int o = 0; o < TM * TN; ++o) {
          const int outer = ORDER == FmaOrder::rows ? o / TN : o / TM;
          const int inner = ORDER == FmaOrder::rows ? o % TN : o % TM;
          const int n = ORDER == FmaOrder::rows ? TN : TM;
          const int in = outer % 2 ? n - 1 - inner : inner;
          const int i = ORDER == FmaOrder::rows ? outer : in, j = ORDER == FmaOrder::rows ? in : outer;
          acc[i][j] += ra[i][kk] * rb[j];  // one k-ordered chain per output
        }
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the ring becomes the C tile

  T* const cs = smem;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      C::Staged::put(cs, wm + lm + 8 * i, b_col + (j / V) * C::kSubN + j % V, acc[i][j]);
  __syncthreads();
  C::Staged::template store_tile<TRIANGLE>(cs, c, M, N, w);
#endif
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, BSource BS,
          bool VEC, bool TRIANGLE, FmaOrder ORDER = FmaOrder::rows>
constexpr auto kernel_for = kernel_swizzled<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS, VEC, TRIANGLE, ORDER>;

// Past 48 KiB a kernel must opt in to dynamic shared memory (set once, outside the timed launch).
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES,
          BSource BS = BSource::kn, bool TRIANGLE = false, FmaOrder ORDER = FmaOrder::rows>
void prepare() {
  allow_smem(Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS>::kSmemBytes,
             {kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS, true, TRIANGLE, ORDER>,
              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BS, false, TRIANGLE, ORDER>});
  splitk_reduce_programmatic_here<T>();
}

// C = A·B in `splits` slices of k (1: straight into C; more: partial tiles into the workspace,
// then splitk_reduce). `splits` must be what workspace_bytes was computed for.
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES,
          FmaOrder ORDER = FmaOrder::rows>
void launch_split(const GemmArgs<T>& g, int splits, cudaStream_t s) {
  using C = Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn>;
  const auto kernel = vec_io_ok(g, /*need_a=*/true)
                          ? kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn, true, false, ORDER>
                          : kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn, false, false, ORDER>;
  launch_split_k(g, BM, BN, BK, splits, kernel, C::kThreads, C::kSmemBytes, s);
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES,
          FmaOrder ORDER = FmaOrder::rows>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  launch_split<T, BM, BN, BK, WM, WN, TM, TN, STAGES, ORDER>(g, 1, s);
}

// One configuration as a variant; `name` spells it (a string literal).
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES,
          FmaOrder ORDER = FmaOrder::rows>
GemmVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "gemm9 + A untransposed in 16-byte cp.async (swizzled tile), rasterised blocks, C "
                   "stored through shared memory"},
          .needs = needs_sm80(kFeatureCpAsync, Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn>::kSmemBytes,
                              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn, true, false, ORDER>),
          .launch = launch<T, BM, BN, BK, WM, WN, TM, TN, STAGES, ORDER>,
          .prepare = prepare<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn, false, ORDER>};
}

// The same configuration with k split where its tiles alone would not fill the GPU
// (splitk_splits in gemm_schedule.cuh: the rule depends on M, N, K only), partial tiles in the
// workspace, then splitk_reduce. Its rounding depth is the split's: a chain of at most k_split
// products, then one addition per further slice.
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
int splits(GemmShape sh, long long fill_sms = gemm_plan::kFillSMs) {
  return splitk_splits(sh, BM, BN, BK, Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn>::kMinBlocks, fill_sms);
}
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
GemmVariant<T> variant_splitk(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "split-K: slices of k in blockIdx.z, partial tiles in the workspace, an ordered "
                   "reduction (no atomics)"},
          .needs = needs_sm80(kFeatureCpAsync, Config<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn>::kSmemBytes,
                              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, BSource::kn, true, false>),
          .launch = [](const GemmArgs<T>& g, cudaStream_t s) {
            launch_split<T, BM, BN, BK, WM, WN, TM, TN, STAGES>(
                g, splits<T, BM, BN, BK, WM, WN, TM, TN, STAGES>({g.M, g.N, g.K}), s);
          },
          .workspace_bytes = [](GemmShape sh) {
            return splitk_workspace<T>(sh, splits<T, BM, BN, BK, WM, WN, TM, TN, STAGES>(sh), BK);
          },
          .rounding_depth = [](GemmShape sh) {
            return splitk_depth(sh.K, splits<T, BM, BN, BK, WM, WN, TM, TN, STAGES>(sh), BK);
          },
          .prepare = prepare<T, BM, BN, BK, WM, WN, TM, TN, STAGES>};
}

}  // namespace kl::gemm10
