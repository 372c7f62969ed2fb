// gemm_auto — beyond the documents: the ladder used as a library. One entry that picks, from the
// shape and the device, which step runs (as cuBLAS's heuristics pick a kernel); every step it can
// pick is also in a list under its own name, so a run shows what each choice costs, and
// docs/sgemm-ladder.md ("Every shape class", "gemm_auto's rules") holds the measurements each
// rule rests on.
//
// Lesson: no one kernel is best for every shape. First the shape's class, then, for a real
// matrix product, the tile:
//
//   class   N = 1: y = A·x, gemv7 (4 loads in flight) with A as its matrix and B as x;
//           M = 1: y = x·B, gevm6 with B as its matrix: _c256 (256-byte tiles, 32 loads in
//           flight, at most one block per SM) where its slabs hold two whole rounds of loads,
//           else _c128; gevm5 where clusters do not run;
//           K <= 4: gemm_thin_k (a store stream: no tiles, 16-byte stores).
//   float   0. k not shallow (gemm_plan::shallow_k: K > 64), tiles of 256 × 128 >= a wave (one
//              block per SM) and gemm12's 16-byte path applies (N a multiple of 4, aligned B and
//              C): gemm13 (TMA, a producer warpgroup that also transposes A) where the build has
//              sm_90a and the device is 9.0, gemm12 where TMA cannot describe the operands or
//              the build lacks sm_90a; otherwise gemm12 256×128×16, 4 stages;
//           1. tiles of 128² >= two waves: the 128×128×16 tile, 3 stages, unsplit: gemm9's where
//              its 16-byte path applies; gemm10's otherwise, unless k is shallow;
//           2. otherwise gemm10 64×64×16, 4 stages (four blocks per SM), k split into the number
//              of slices (1 to 16) a time model puts first (gemm_plan::splitk_model_us: k tiles
//              per slice × the busiest SM's co-resident blocks, plus the reduction's launch and
//              bytes); a shallow product with the 16-byte path takes gemm9's 64² tile instead
//              (its blocks are mostly prologue and epilogue, where gemm9's direct 16-byte copies
//              beat gemm10's swizzled A), and a shallow one without it stays on gemm10's 64² tile
//              at any size (the 128² tile's longer prologue is not amortised over a few k tiles).
//   double  (FP64 tensor cores) 0. k not shallow, 128² tiles >= a wave and the device's shared
//              memory holds the tile (146 KB): gemm11 128×128×16 DMMA m16n8k4 with its fragments
//              prefetched (m16n8k8's two fragment sets spill at this tile);
//           1. 64² tiles >= a wave: gemm11 64×64×16 DMMA m16n8k8, unsplit, its fragments
//              prefetched across k tiles (gemm11_dmma_prefetch.cuh) unless k is shallow, where
//              there is no next tile to overlap and the prefetch's prologue is pure cost;
//           2. fewer: the 32 × 32 tile (four times the blocks), split only where even its tiles
//              are short of a wave and the time model (with the k tile's time in proportion to
//              the tile's area) puts a split first.
// "A wave" is 15/16 of the device's multiprocessors; the split reads the multiprocessor count
// too. Split partial tiles go to the workspace and an ordered reduction adds them
// (deterministic). Its rounding depth is the chosen step's (the matrix-vector steps' trees, the
// split's slices, K otherwise). The rules' arithmetic is gemm_plan.hpp's, host-checked in
// tests/host/test_gemm_plan.cpp with the choice measured for each shape class.
#pragma once

#include "handwritten/gemm/gemm8_warptiled.cuh"
#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm9_pipelined.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm11_dmma_prefetch.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm_thin_k.cuh"
#include "handwritten/gemv/gemv7_warps_per_row.cuh"
#include "handwritten/gemv/gevm5_fitted_tiles.cuh"
#include "handwritten/gemv/gevm6_cluster_slabs.cuh"
#if defined(KL_BUILD_SM90A)
#include "handwritten/gemm/gemm13_tma_warpspecialized.cuh"
#endif

#include <type_traits>

namespace kl::gemm_auto {

using namespace gemm_detail;

constexpr int kLarge = 128, kSmall = 64, kBK = 16;  // the two tiles (both 16 deep)

// What this device runs (issue 21), asked once: the rule above picks only among the steps that
// run here. The cp.async steps need 8.0 and an image built for 8.0 or newer (their bodies are
// guarded: a compute_75 image has them empty), each configuration its shared memory (gemm12's
// 256 × 128 tile 97 KB: more than 8.6/8.9/12.0's 99 KB; gemm11's tiles 74 and 38 KB fit all).
// Otherwise:
//   - no cp.async (7.5, or a build whose image here is compute_75): gemm8 (its configuration in
//     the list: 128 × 128 × 8 float, 64 × 64 × 8 double), no split;
//   - double on a GPU without FP64 tensor cores (8.6, 8.9, 12.0, where DMMA runs at a small
//     fraction of the A100/H100 rate): gemm9's FMA tile 128 × 128 × 8, 3 stages, no split
//     (not measured on such a GPU; the DMMA rows of the same run show what DMMA costs there);
//   - float where gemm12's tile does not fit: rule 1's 128 × 128 × 16 tile.
struct Here {
  bool cp_async = false, huge = false, dmma = false, dmma_large = false, tma = false;
};
// The double tiles (gemm11_pf's Config: the shared memory each needs).
using DmmaLarge = gemm11::Config<128, 128, 16, 64, 32, 4, 4, gemm11::BLayout::kn>;
#if defined(KL_BUILD_SM90A)
using Gemm13 = gemm13::R232At;  // gemm13's fastest form in the list (sm_90a builds only)
#endif
inline const Here& here() {
  static const Here h = [] {
    using P12 = gemm9::Pipeline<float, 256, 128, 16, 64, 64, 16, 8, 4>;
    Here r;
    r.cp_async = kernel_runs_here(reinterpret_cast<const void*>(gemm9::kernel_for<float, 128, 128, 16, 64, 32, 8, 8, 3, true>), 80);
    r.huge = r.cp_async && P12::kSmemBytes <= device_smem_optin();
    const int cc = device_cc();
    r.dmma = r.cp_async && (cc == 80 || cc == 90 || cc == 100);  // the FP64 tensor cores
    r.dmma_large = r.dmma && DmmaLarge::kSmemBytes <= device_smem_optin();
#if defined(KL_BUILD_SM90A)
    r.tma = r.huge && kernel_runs_here(reinterpret_cast<const void*>(gemm13::kernel_for<Gemm13>), 90) &&
            Gemm13::kSmemBytes <= device_smem_optin();
#endif
    return r;
  }();
  return h;
}

// ---- shape classes (before any tile is considered) ---------------------------------------------
// A product with one output column (N = 1) is y = A·x with x = B: the gemv family's problem, with
// A (M × K) as its matrix; one output row (M = 1) is y = x·B with x = A: gevm's, with B (K × N) as
// its matrix. Both are streams over one matrix (K·N or M·K elements read once), which the tiled
// steps cannot be: a 128-wide tile holds one useful column (N = 1) or row (M = 1). They go to the
// matrix-vector families' fastest steps, called with the product's own buffers (no copy, no
// transpose: A's rows are gemv's rows, B's rows gevm's rows). A product with K <= kThinK is a
// store stream (K multiply-adds per output): gemm_thin_k.
// The class, and the wave below, are gemm_plan.hpp's (host-checked in tests/host/test_gemm_plan.cpp).
using Shape = gemm_plan::ShapeClass;
using gemm_plan::shape_class;
// gemv: gemv7 with 4 loads in flight (docs/gemv.md). gevm: gevm6 _c128 (one launch, the slabs'
// sums through distributed shared memory, 128 bytes of a row per tile, 8 loads in flight) or its
// deep form _c256 where clusters run, else gevm5 with 4 loads in flight, A streamed.
template <class T>
const MatVecVariant<T>& gemv_step() {
  static const MatVecVariant<T> v = gemv7::variant<T, 4, false>("gemv7_warps_per_row_u4");
  return v;
}
// Where clusters run and a slab of gevm6's deep plan holds two whole rounds of its 32 loads
// (gevm_plan::deep_pays; docs/gemv.md, "gevm: y = x·A"), gevm6 _c256 instead of _c128.
template <class T>
const MatVecVariant<T>& gevm_step(MatrixShape m) {
  static const bool clusters =
      kernel_runs_here(reinterpret_cast<const void*>(gevm6::gevm_cluster_slabs<T, 32, 8, true, true>), 90);
  static const MatVecVariant<T> narrow = gevm6::variant<T, 8, true, gevm6::kNarrowPlan>("gevm6_cluster_slabs_u8_cs_c128");
  static const MatVecVariant<T> deep = gevm6::variant<T, gevm_plan::kDeepLoads, true, gevm6::kDeepPlan, 1>(
      "gevm6_cluster_slabs_u32_cs_c256");
  static const MatVecVariant<T> fallback = gevm5::variant<T, 4, true>("gevm5_fitted_tiles_u4_cs");
  if (!clusters) return fallback;
  return gevm6::deep_pays<T>(m) ? deep : narrow;
}
// The matrix-vector problem a product of class gemv or gevm is.
inline MatrixShape gemv_shape(GemmShape s) { return {s.M, s.K}; }
inline MatrixShape gevm_shape(GemmShape s) { return {s.K, s.N}; }
template <class T>
MatVecArgs<T> gemv_args(const GemmArgs<T>& g) { return {g.A, g.B, g.C, g.M, g.K, g.workspace}; }
template <class T>
MatVecArgs<T> gevm_args(const GemmArgs<T>& g) { return {g.B, g.A, g.C, g.K, g.N, g.workspace}; }

// ---- tiled products ------------------------------------------------------------------------------
// "Fills the GPU" reads the multiprocessor count off the device (132 on the H100 and the H200);
// a wave counts as full at 15/16 of it (gemm_plan::wave: 2048³ has 128 tiles of 256 × 128 for
// 132 SMs, and gemm12 there beats the smaller tiles; docs/sgemm-ladder.md, "gemm12: fragments
// across the tile boundary, on cuBLAS's tile").
inline long long fill_sms() { return gemm_plan::wave(sm_count()); }

template <class T>
bool large_tile(GemmShape s) {  // float's 128² tile: two blocks per SM, two waves of them
  return gemm_plan::tiles_of(s, kLarge, kLarge) >= 2 * fill_sms();
}
// double on the FP64 tensor cores: gemm11_pf's 128 × 128 tile where it fills a wave and fits,
// else the 64 × 64 one where that does, else gemm11's 32 × 32 tile (four times the tiles), split
// only where even those are too few (gemm_plan::dmma_tile, host-checked).
inline int dmma_tile(GemmShape s) { return gemm_plan::dmma_tile(s, sm_count(), here().dmma_large); }
// gemm12's 256 × 128 tile, one block per SM: enough of them to fill the GPU (float only).
inline bool huge_tile(GemmShape s) { return gemm_plan::tiles_of(s, 256, 128) >= fill_sms(); }
template <class T>
int splits(GemmShape s) {
  if (!here().cp_async) return 1;  // gemm8
  if constexpr (std::is_same_v<T, float>) {
    return large_tile<T>(s) ? 1 : gemm10::splits_modeled<float, 64, 64, 16, 32, 32, 4, 8, 4>(s, sm_count());
  } else {
    if (!here().dmma || !gemm_plan::dmma_split_k(s, sm_count(), here().dmma_large)) return 1;  // gemm9's FMA tile; unsplit
    return gemm11::splits_modeled<32, 32, 16, 16, 16, 4, 8>(s, sm_count());
  }
}

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  const GemmShape sh{g.M, g.N, g.K};
  switch (shape_class(sh)) {
    case Shape::gemv: return gemv_step<T>().launch(gemv_args(g), s);
    case Shape::gevm: return gevm_step<T>(gevm_shape(sh)).launch(gevm_args(g), s);
    case Shape::thin_k: return gemm_thin_k::launch<T>(g, s);
    case Shape::tiled: break;
  }
  const Here& h = here();
  if constexpr (std::is_same_v<T, float>) {
    const bool vec = vec_io_ok(g, /*need_a=*/false), shallow = gemm_plan::shallow_k(sh);
    if (!h.cp_async) gemm8::launch<float, 128, 128, 8, 64, 32, 8, 8>(g, s);
    else if (shallow && vec && !large_tile<T>(sh)) gemm9::launch<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, s);
    else if (!large_tile<T>(sh) || (shallow && !vec))  // shallow: splits() is 1 on a large shape
      gemm10::launch_split<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, splits<T>(sh), s);
#if defined(KL_BUILD_SM90A)
    else if (vec && !shallow && huge_tile(sh) && h.tma) gemm13::launch<Gemm13>(g, s);  // gemm12 where TMA cannot
#endif
    else if (vec && !shallow && huge_tile(sh) && h.huge) gemm12::launch<float, 256, 128, 16, 64, 64, 16, 8, 4>(g, s);
    else if (vec) gemm9::launch<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, s);
    else gemm10::launch_split<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, 1, s);
  } else {
    if (!h.cp_async) gemm8::launch<double, 64, 64, 8, 32, 16, 4, 4>(g, s);
    else if (!h.dmma) gemm9::launch<double, 128, 128, 8, 64, 32, 8, 8, 3>(g, s);
    else if (const int tile = dmma_tile(sh); tile == 128) gemm11_pf::launch<128, 128, 16, 64, 32, 4, 4>(g, s);
    else if (tile == 64 && gemm_plan::dmma_prefetch(sh)) gemm11_pf::launch<64, 64, 16, 32, 32, 4, 8>(g, s);
    else if (tile == 64) gemm11::launch<64, 64, 16, 32, 32, 4, 8>(g, s);
    else gemm11::launch_split<32, 32, 16, 16, 16, 4, 8>(g, splits<T>(sh), s);
  }
}

// The shared-memory opt-in of every configuration the rule can pick on this device.
template <class T>
void prepare() {
  const Here& h = here();
  if (!h.cp_async) return;  // gemm8: static shared memory only
  if constexpr (std::is_same_v<T, float>) {
    if (h.huge) gemm12::prepare<float, 256, 128, 16, 64, 64, 16, 8, 4>();
#if defined(KL_BUILD_SM90A)
    if (h.tma) gemm13::prepare<Gemm13>();
#endif
    gemm9::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm9::prepare<float, 64, 64, 16, 32, 32, 4, 8, 4>();
    gemm10::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm10::prepare<float, 64, 64, 16, 32, 32, 4, 8, 4>();
  } else if (!h.dmma) {
    gemm9::prepare<double, 128, 128, 8, 64, 32, 8, 8, 3>();
  } else {
    if (h.dmma_large) gemm11_pf::prepare<128, 128, 16, 64, 32, 4, 4>();
    gemm11_pf::prepare<64, 64, 16, 32, 32, 4, 8>();
    gemm11::prepare<64, 64, 16, 32, 32, 4, 8>();
    gemm11::prepare<32, 32, 16, 16, 16, 4, 8>();
  }
}

template <class T>
std::size_t workspace_bytes(GemmShape sh) {
  const auto ws = [](const MatVecVariant<T>& v, MatrixShape m) { return v.workspace_bytes ? v.workspace_bytes(m) : 0; };
  switch (shape_class(sh)) {
    case Shape::gemv: return ws(gemv_step<T>(), gemv_shape(sh));
    case Shape::gevm: return ws(gevm_step<T>(gevm_shape(sh)), gevm_shape(sh));
    case Shape::thin_k: return 0;
    case Shape::tiled: break;
  }
  return splitk_workspace<T>(sh, splits<T>(sh), kBK);
}
template <class T>
double rounding_depth(GemmShape sh) {
  switch (shape_class(sh)) {
    case Shape::gemv: return gemv_step<T>().rounding_depth(gemv_shape(sh));
    case Shape::gevm: return gevm_step<T>(gevm_shape(sh)).rounding_depth(gevm_shape(sh));
    case Shape::thin_k: return sh.K;
    case Shape::tiled: break;
  }
  return splitk_depth(sh.K, splits<T>(sh), kBK);
}

template <class T>
GemmVariant<T> variant() {
  return {.info = {"gemm_auto", "beyond the documents",
                   "by shape class (gemv / gevm / thin K / tiled), then tile and split-K (rule in gemm_auto.cuh), among the steps this GPU runs"},
          .launch = launch<T>,
          .workspace_bytes = workspace_bytes<T>,
          .rounding_depth = rounding_depth<T>,
          .prepare = prepare<T>};
}

}  // namespace kl::gemm_auto
