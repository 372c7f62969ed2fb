// gemm_auto — beyond the documents: the ladder used as a library. One entry that picks, from the
// shape alone, which of the last steps' configurations runs (as cuBLAS's heuristics pick a
// kernel); every configuration it can pick is also in the list under its own name.
//
// Lesson: no one tile is best for every shape (docs/sgemm-ladder.md, "Picking the tile
// configuration"): a large tile does more FMAs per load and per instruction but gives fewer
// blocks, and a product whose output has few tiles leaves SMs idle however deep K is. The rule
// (T128 = tiles of 128 × 128 in the output; "fill" = about 128 SMs × the blocks of the
// configuration one SM holds, gemm_schedule.cuh's splitk_splits):
//
//   float  0. tiles of 256 × 128 >= 128 (one block per SM fills the GPU) and gemm12's 16-byte
//             path applies (N a multiple of 4, aligned B and C): gemm12 256×128×16, 4 stages,
//             register fragments prefetched across tiles. Measured on the H100 (session trials,
//             results/h100/trials/e_gemm12_stages.md): 92.0-93.3% of cuBLAS at 2048³-8192³ against
//             gemm9 128×128×16's 87-88%;
//          1. T128 >= 256 (the 128² tile's fill: two blocks per SM): the 128×128×16 tile,
//             3 stages, unsplit: gemm9's where its 16-byte path applies (N a multiple of 4,
//             aligned B and C), gemm10's otherwise. Measured on the H100: with 16-byte copies
//             gemm9 beat gemm10 (87.0% against 82.4% of cuBLAS at 4096³, 88.4% against 83.5% at
//             8192³, 87.8% against 83.1% at 2048³); on the element path gemm10 was 2.65× faster
//             (4097×4095×17: 51.0 against 135.3 µs; why is not established: neither was
//             profiled there);
//          2. otherwise gemm10 64×64×16, 4 stages (four blocks per SM), k split in slices until
//             about 512 blocks, each slice about 4 k tiles deep or more, at most 16 slices.
//   double 1. T128 >= 32: gemm11 128×128×16 DMMA m16n8k8, 4 stages (one block per SM), split
//             toward 128 blocks: it moves half the bytes per multiply-add of the 64 × 64 tile
//             (0.125 against 0.25 byte from L2 per FMA: at the DMMA rate the small tile would
//             need ~8 TB/s of L2 bandwidth), so it is worth splitting k for;
//          2. below 32 tiles the large tile's slices would be too few or too shallow: gemm11
//             64×64×16 k8 (two blocks per SM), split toward 256 blocks.
// Split partial tiles go to the workspace and an ordered reduction adds them (deterministic).
//
// The choice reads M, N, K and the element type, and for the large float tiles whether the 16-byte
// path applies (each kernel gives the same bits on either of its paths). Examples: float 2048³
// takes gemm12 (128 tiles of 256 × 128); 4097×4095×17 the 128² tile unsplit (1056 tiles, no
// 16-byte rows); float 1000³ the small one
// in 2 slices (256 tiles of 64² → 512 blocks), double 1000³ the large one in 2 slices (64 tiles
// → 128 blocks); 513×257×129 the small one in 3 slices of 48 (45 tiles → 135 blocks); 4096×1×4096 in 4 (double)
// or 8 (float) slices. Every configuration it can choose is in the list under its own name
// (gemm10_swizzled_64x64x16_w32x32_t4x8_s4 is the small float tile unsplit, gemm10_splitk_64x64x16_w32x32_t4x8_s4 split
// by the same rule), so a run shows what each choice costs.
// Its rounding depth is the chosen split's (gemm_schedule.cuh, splitk_depth), K without one.
#pragma once

#include "handwritten/gemm/gemm8_warptiled.cuh"
#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm9_pipelined.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm_thin_k.cuh"
#include "handwritten/gemv/gemv7_warps_per_row.cuh"
#include "handwritten/gemv/gevm5_fitted_tiles.cuh"
#include "handwritten/gemv/gevm6_cluster_slabs.cuh"

#include <type_traits>

namespace kl::gemm_auto {

using namespace gemm_detail;

constexpr int kLarge = 128, kSmall = 64, kBK = 16;  // the two tiles (both 16 deep)

// What this device runs (issue 21), asked once: the rule above picks only among the steps that
// run here. The cp.async steps need 8.0 and an image built for 8.0 or newer (their bodies are
// guarded: a compute_75 image has them empty), each configuration its shared memory (gemm12's
// 256 × 128 tile 97 KB, gemm11's 128 × 128 DMMA tile 146 KB: more than 8.6/8.9/12.0's 99 KB).
// Otherwise:
//   - no cp.async (7.5, or a build whose image here is compute_75): gemm8 (its configuration in
//     the list: 128 × 128 × 8 float, 64 × 64 × 8 double), no split;
//   - double on a GPU without FP64 tensor cores (8.6, 8.9, 12.0, where DMMA runs at a small
//     fraction of the A100/H100 rate): gemm9's FMA tile 128 × 128 × 8, 3 stages, no split
//     (not measured on such a GPU; the DMMA rows of the same run show what DMMA costs there);
//   - float where gemm12's tile does not fit: rule 1's 128 × 128 × 16 tile.
struct Here {
  bool cp_async = false, huge = false, dmma = false, dmma_large = false;
};
inline const Here& here() {
  static const Here h = [] {
    using P12 = gemm9::Pipeline<float, 256, 128, 16, 64, 64, 16, 8, 4>;
    using C11 = gemm11::Config<128, 128, 16, 64, 32, 4, 8, gemm11::BLayout::kn>;
    Here r;
    r.cp_async = kernel_runs_here(reinterpret_cast<const void*>(gemm9::kernel_for<float, 128, 128, 16, 64, 32, 8, 8, 3, true>), 80);
    r.huge = r.cp_async && P12::kSmemBytes <= device_smem_optin();
    const int cc = device_cc();
    r.dmma = r.cp_async && (cc == 80 || cc == 90 || cc == 100);  // the FP64 tensor cores
    r.dmma_large = r.dmma && C11::kSmemBytes <= device_smem_optin();
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
enum class Shape { gemv, gevm, thin_k, tiled };
constexpr int kThinK = 4;
inline Shape shape_class(GemmShape s) {
  if (s.N == 1) return Shape::gemv;  // M = N = 1 too: a dot product (gemv7 splits a lone row)
  if (s.M == 1) return Shape::gevm;
  if (s.K <= kThinK) return Shape::thin_k;
  return Shape::tiled;
}
// gemv: gemv7 with 4 loads in flight (105% of cublasSgemv at 16384², 117% at 4097 × 1023 on the
// H100, results/h100/session28/default.md). gevm: gevm6 (one launch, the slabs' sums through
// distributed shared memory) where clusters run, else gevm5 with 4 loads in flight, A streamed.
template <class T>
const MatVecVariant<T>& gemv_step() {
  static const MatVecVariant<T> v = gemv7::variant<T, 4, false>("gemv7_warps_per_row_u4");
  return v;
}
template <class T>
const MatVecVariant<T>& gevm_step() {
  static const MatVecVariant<T> v =
      kernel_runs_here(reinterpret_cast<const void*>(gevm6::gevm_cluster_slabs<T, 32, 4, true, true>), 90)
          ? gevm6::variant<T, 4, true>("gevm6_cluster_slabs_u4_cs")
          : gevm5::variant<T, 4, true>("gevm5_fitted_tiles_u4_cs");
  return v;
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
// a wave counts as full at 15/16 of it (2048³ has 128 tiles of 256 × 128 for 132 SMs: gemm12
// there measured 92.0% of cuBLAS against gemm9's 87.8%, results/h100/trials/e_gemm12_stages.md).
inline long long fill_sms() { return static_cast<long long>(sm_count()) * 15 / 16; }

template <class T>
bool large_tile(GemmShape s) {
  const long long tiles = static_cast<long long>(ceil_div(s.M, kLarge)) * ceil_div(s.N, kLarge);
  return tiles >= (std::is_same_v<T, float> ? 2 * fill_sms() : 32);
}
// gemm12's 256 × 128 tile, one block per SM: enough of them to fill the GPU (float only).
inline bool huge_tile(GemmShape s) {
  return static_cast<long long>(ceil_div(s.M, 256)) * ceil_div(s.N, 128) >= fill_sms();
}
template <class T>
int splits(GemmShape s) {
  if (!here().cp_async) return 1;  // gemm8
  if constexpr (std::is_same_v<T, float>) {
    return large_tile<T>(s) ? 1 : gemm10::splits<float, 64, 64, 16, 32, 32, 4, 8, 4>(s, sm_count());
  } else {
    if (!here().dmma) return 1;  // gemm9's FMA tile
    return large_tile<T>(s) && here().dmma_large ? gemm11::splits<128, 128, 16, 64, 32, 4, 8>(s, sm_count())
                                                 : gemm11::splits<64, 64, 16, 32, 32, 4, 8>(s, sm_count());
  }
}

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  const GemmShape sh{g.M, g.N, g.K};
  switch (shape_class(sh)) {
    case Shape::gemv: return gemv_step<T>().launch(gemv_args(g), s);
    case Shape::gevm: return gevm_step<T>().launch(gevm_args(g), s);
    case Shape::thin_k: return gemm_thin_k::launch<T>(g, s);
    case Shape::tiled: break;
  }
  const Here& h = here();
  if constexpr (std::is_same_v<T, float>) {
    const bool vec = vec_io_ok(g, /*need_a=*/false);
    if (!h.cp_async) gemm8::launch<float, 128, 128, 8, 64, 32, 8, 8>(g, s);
    else if (!large_tile<T>(sh)) gemm10::launch_split<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, splits<T>(sh), s);
    else if (vec && huge_tile(sh) && h.huge) gemm12::launch<float, 256, 128, 16, 64, 64, 16, 8, 4>(g, s);
    else if (vec) gemm9::launch<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, s);
    else gemm10::launch_split<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, 1, s);
  } else {
    if (!h.cp_async) gemm8::launch<double, 64, 64, 8, 32, 16, 4, 4>(g, s);
    else if (!h.dmma) gemm9::launch<double, 128, 128, 8, 64, 32, 8, 8, 3>(g, s);
    else if (large_tile<T>(sh) && h.dmma_large) gemm11::launch_split<128, 128, 16, 64, 32, 4, 8>(g, splits<T>(sh), s);
    else gemm11::launch_split<64, 64, 16, 32, 32, 4, 8>(g, splits<T>(sh), s);
  }
}

// The shared-memory opt-in of every configuration the rule can pick on this device.
template <class T>
void prepare() {
  const Here& h = here();
  if (!h.cp_async) return;  // gemm8: static shared memory only
  if constexpr (std::is_same_v<T, float>) {
    if (h.huge) gemm12::prepare<float, 256, 128, 16, 64, 64, 16, 8, 4>();
    gemm9::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm10::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm10::prepare<float, 64, 64, 16, 32, 32, 4, 8, 4>();
  } else if (!h.dmma) {
    gemm9::prepare<double, 128, 128, 8, 64, 32, 8, 8, 3>();
  } else {
    if (h.dmma_large) gemm11::prepare<128, 128, 16, 64, 32, 4, 8>();
    gemm11::prepare<64, 64, 16, 32, 32, 4, 8>();
  }
}

template <class T>
std::size_t workspace_bytes(GemmShape sh) {
  const auto ws = [](const MatVecVariant<T>& v, MatrixShape m) { return v.workspace_bytes ? v.workspace_bytes(m) : 0; };
  switch (shape_class(sh)) {
    case Shape::gemv: return ws(gemv_step<T>(), gemv_shape(sh));
    case Shape::gevm: return ws(gevm_step<T>(), gevm_shape(sh));
    case Shape::thin_k: return 0;
    case Shape::tiled: break;
  }
  return splitk_workspace<T>(sh, splits<T>(sh), kBK);
}
template <class T>
double rounding_depth(GemmShape sh) {
  switch (shape_class(sh)) {
    case Shape::gemv: return gemv_step<T>().rounding_depth(gemv_shape(sh));
    case Shape::gevm: return gevm_step<T>().rounding_depth(gevm_shape(sh));
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
