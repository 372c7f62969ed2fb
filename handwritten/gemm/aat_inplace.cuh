// aat_inplace — beyond the documents: A·Aᵀ by the best gemm step, with Aᵀ read in place.
//
// Lesson: document 000 stops at 16 × 16 shared tiles (aat_smem_padded: far behind cuBLAS at
// every size, the H100 default run). The matrix-product ladder already has the fast kernels;
// what A·Aᵀ needs is only a second operand that is A's own buffer read as its transpose, with no
// copy of Aᵀ made first (a copy would move 2·M·K elements through DRAM for nothing). Column j
// of Aᵀ is row j of A, so the "B tile" of output columns col0.. is rows col0.. of A:
//   * float, gemm10: its B tile must be bs[k][n] (a thread reads TN consecutive n for one k), so
//     rows of A are copied transposed, element by element (gemm9's A copy, AsyncCopyA); A itself
//     stays gemm10's swizzled 16-byte tile;
//   * double, gemm11 (FP64 tensor cores): `mma ... .row.col` wants B "column-major", i.e. each
//     of its columns contiguous in k, which is exactly a row of A: the B tile is copied like the
//     A tile ([n][k], 16-byte cp.async, padded for conflict-free fragments). A·Aᵀ is the
//     layout the tensor cores like best.
// Everything else (pipeline, rasterised blocks, the epilogue) is the gemm
// step's. The profiler should show the gemm step's counters, with float's copy instructions up
// (2 element copies per thread per k in the B tile) and its rate a few percent below gemm10's.
// The next step (aat_triangle) computes only one triangle.
//
// Edges: any M, K >= 1 (the gemm kernels' edge rules); 16-byte copies of A when K is a
// multiple of the vector width and A is aligned.
#pragma once

#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm11_dmma_prefetch.cuh"
#include "handwritten/gemm/gemm_ladder_tiles.hpp"

#include <type_traits>

namespace kl::aat_steps {

using namespace gemm_detail;

// One configuration of each gemm step with B = rows of A, one triangle or all of C: its Config
// (C) and its kernel for either copy path (fn<VEC>), from one tile (gemm_ladder_tiles.hpp).
// float: gemm10, FFMAs column by column (T: a tiles::Fma).
template <class T, bool TRIANGLE>
struct Gemm10RowsOfA {
  using C = gemm10::Config<float, KL_FMA_TILE(T), gemm10::BSource::rows_of_a>;
  template <bool VEC>
  static constexpr auto fn =
      gemm10::kernel_for<float, KL_FMA_TILE(T), gemm10::BSource::rows_of_a, VEC, TRIANGLE, gemm10::FmaOrder::cols>;
};
// double: gemm11's DMMA tile, B read as n × k (T: a tiles::Dmma).
template <class T, bool TRIANGLE>
struct Gemm11Nk {
  using C = gemm11::Config<KL_DMMA_TILE(T), gemm11::BLayout::nk>;
  template <bool VEC>
  static constexpr auto fn = gemm11::kernel_for<KL_DMMA_TILE(T), gemm11::BLayout::nk, VEC, TRIANGLE>;
};

// double: the same DMMA tile with gemm12's fragment schedule (gemm11_dmma_prefetch.cuh).
template <class T, bool TRIANGLE>
struct Gemm11PfNk {
  using C = gemm11::Config<KL_DMMA_TILE(T), gemm11::BLayout::nk>;
  template <bool VEC>
  static constexpr auto fn = gemm11_pf::kernel_for<KL_DMMA_TILE(T), VEC, gemm11::BLayout::nk, TRIANGLE>;
};

// The kernel of tile TILE × TILE for element type T (PF: the prefetching DMMA kernel; double only).
template <class T, int TILE, bool TRIANGLE, bool PF = false>
struct Kernel;

// float: the element-wise transposing copy of the second tile costs registers; with the FFMAs
// column by column the 128 × 128 kernel fits two blocks per SM (128 registers) without spills
// (row by row, nvcc 13 spills 12 bytes in it: the build's -warn-spills would say so).
template <bool TRIANGLE>
struct Kernel<float, 128, TRIANGLE> : Gemm10RowsOfA<tiles::Gemm9Tile128, TRIANGLE> {};
template <bool TRIANGLE>
struct Kernel<float, 64, TRIANGLE> : Gemm10RowsOfA<tiles::Gemm10Tile64, TRIANGLE> {};
template <bool TRIANGLE>
struct Kernel<double, 128, TRIANGLE> : Gemm11Nk<tiles::Gemm11Tile128, TRIANGLE> {};
// 96 × 96 (4 warps of 48 × 48, 3 stages: two blocks per SM in 184 KB of shared memory): 253
// triangle tiles at 2048², one wave of two blocks per SM, 0.17 byte from L2 per multiply-add
// (64²: 0.25; 128²: 0.125 but 136 tiles for 132 SMs at one block each).
template <bool TRIANGLE>
struct Kernel<double, 96, TRIANGLE> : Gemm11Nk<tiles::Dmma<96, 96, 16, 48, 48, 3, 8>, TRIANGLE> {};
template <bool TRIANGLE>
struct Kernel<double, 64, TRIANGLE> : Gemm11Nk<tiles::Gemm11Tile64, TRIANGLE> {};
// 32 × 32 (4 warps of 16 × 16, 38 KB): at 1000² the 64² triangle has 136 tiles for 132 SMs that
// hold two of its blocks each (half of them idle); the 32² one has 528 tiles of blocks five
// times smaller (gemm_auto's small DMMA tile: slower per flop than 64² at 1000³, in
// the H100 default run; docs/sgemm-ladder.md, "Every shape class", A·Aᵀ at 1000²).
template <bool TRIANGLE>
struct Kernel<double, 32, TRIANGLE> : Gemm11Nk<tiles::Gemm11Tile32, TRIANGLE> {};
template <bool TRIANGLE>
struct Kernel<double, 64, TRIANGLE, true> : Gemm11PfNk<tiles::Gemm11Tile64, TRIANGLE> {};
template <bool TRIANGLE>
struct Kernel<double, 32, TRIANGLE, true> : Gemm11PfNk<tiles::Gemm11Tile32, TRIANGLE> {};

// float: gemm10's cp.async; double: gemm11's FP64 tensor-core mma (both from 8.0).
template <class T, int TILE, bool TRIANGLE, bool PF = false>
Requirements needs() {
  using Kn = Kernel<T, TILE, TRIANGLE, PF>;
  return needs_sm80(std::is_same_v<T, double> ? kFeatureFp64Mma : kFeatureCpAsync, Kn::C::kSmemBytes, Kn::template fn<true>);
}

template <class T, int TILE, bool TRIANGLE, bool PF = false>
void prepare() {
  using Kn = Kernel<T, TILE, TRIANGLE, PF>;
  allow_smem(Kn::C::kSmemBytes, {Kn::template fn<true>, Kn::template fn<false>});
  splitk_reduce_programmatic_here<T>();
}

// C (M × M) = A·Aᵀ: the gemm kernel with b = A (N = M, the second operand's rows are A's), all
// of k in one slice. TRIANGLE: only the tiles (i, j), i <= j, each also written mirrored.
template <class T, int TILE, bool TRIANGLE, bool PF = false>
void launch(const AatArgs<T>& g, cudaStream_t s) {
  using Kn = Kernel<T, TILE, TRIANGLE, PF>;
  const auto kernel = g.K % kVec<T> == 0 && aligned16(g.A) ? Kn::template fn<true> : Kn::template fn<false>;
  const dim3 grid = TRIANGLE ? triangle_grid(g.M, TILE) : aat_grid(g.M, TILE);
  kernel<<<grid, Kn::C::kThreads, Kn::C::kSmemBytes, s>>>(g.A, g.A, g.C, g.M, g.M, g.K, g.K, 0);
  KL_CHECK_LAUNCH();
}

// The triangle with k split (aat_triangle_splitk): `splits` slices of k in blockIdx.z, each
// slice's tiles written as computed and mirrored into its own M × M slice of the workspace (so
// every element of every slice is written), then splitk_reduce adds the slices in order. The
// split fills the GPU where the triangle alone has too few tiles (1000² in 64² tiles: 136 tiles
// for 132 SMs that hold 4 (float) or 2 (double) blocks each). Its rule reads the device's
// multiprocessor count (gemm_plan::splitk_splits_for with the triangle's tile count).
template <class T, int TILE>
int triangle_splits(AatShape s) {
  using C = typename Kernel<T, TILE, true>::C;
  return gemm_plan::splitk_splits_for(gemm_plan::triangle_tiles(s.M, TILE), s.K, C::BK, C::kMinBlocks, sm_count());
}
template <class T, int TILE>
std::size_t triangle_workspace(AatShape s) {
  return gemm_plan::splitk_workspace({s.M, s.M, s.K}, triangle_splits<T, TILE>(s), Kernel<T, TILE, true>::C::BK, sizeof(T));
}
template <class T, int TILE>
double triangle_depth(AatShape s) {
  return gemm_plan::splitk_depth(s.K, triangle_splits<T, TILE>(s), Kernel<T, TILE, true>::C::BK);
}
template <class T, int TILE>
void launch_triangle_split(const AatArgs<T>& g, cudaStream_t s) {
  using Kn = Kernel<T, TILE, true>;
  const int bk = Kn::C::BK, splits = triangle_splits<T, TILE>({g.M, g.K});
  const int ks = k_per_split(g.K, splits, bk), used = used_splits(g.K, splits, bk);
  const std::size_t mm = static_cast<std::size_t>(g.M) * g.M;
  T* out = used > 1 ? static_cast<T*>(g.workspace) : g.C;
  const auto kernel = g.K % kVec<T> == 0 && aligned16(g.A) ? Kn::template fn<true> : Kn::template fn<false>;
  dim3 grid = triangle_grid(g.M, TILE);
  grid.z = static_cast<unsigned>(used);
  kernel<<<grid, Kn::C::kThreads, Kn::C::kSmemBytes, s>>>(g.A, g.A, out, g.M, g.M, g.K, ks, used > 1 ? mm : 0);
  KL_CHECK_LAUNCH();
  if (used > 1) launch_splitk_reduce(out, g.C, mm, used, s);
}

}  // namespace kl::aat_steps

namespace kl::aat_inplace {

// float: gemm10's 128×128×16 tile; double: gemm11's 128×128×16 DMMA tile (m16n8k8).
template <class T>
AatVariant<T> variant() {
  return {.info = {"aat_gemm_inplace", "beyond the document (after 000's matMult)",
                   "the best gemm step with A's buffer as the second operand, read as its transpose (no copy)"},
          .needs = aat_steps::needs<T, 128, false>(),
          .launch = aat_steps::launch<T, 128, false>,
          .prepare = aat_steps::prepare<T, 128, false>};
}

}  // namespace kl::aat_inplace
