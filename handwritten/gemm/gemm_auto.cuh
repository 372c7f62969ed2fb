// gemm_auto — beyond the documents: the ladder used as a library. One entry that picks, from the
// shape, the buffers and the device, which step runs; every step it can pick is also in the list
// under its own name, so a run shows what each choice costs, and docs/sgemm-ladder.md ("Every
// shape class", "gemm_auto's rules") holds the measurements the choice rests on.
//
// Lesson: no one kernel is best for every shape, and no simple rule says which is. First the
// shape's class, where one step always wins:
//
//   N = 1: y = A·x, gemv7 (4 loads in flight) with A as its matrix and B as x;
//   M = 1: y = x·B, gevm6 with B as its matrix: _c256 (256-byte tiles, 32 loads in flight, at
//          most one block per SM) where its slabs hold two whole rounds of loads, else _c128;
//          gevm5 where clusters do not run;
//   K <= 4: gemm_thin_k (a store stream: no tiles, 16-byte stores).
//
// Then, for a real matrix product, the tile. Rules written from measurements picked the fastest
// step on the shapes they were written from and missed on many shapes of a fresh sweep of odd
// ones (docs/sgemm-ladder.md, "gemm_auto: measured, not ruled"): tile quantisation, co-resident
// blocks, the prologue of a few k tiles and the 16-byte paths interact too finely for a handful of
// thresholds. So, as cuBLASLt's algorithm search and PyTorch's TunableOp do, gemm_auto measures:
//
//   1. the candidates: the rows of its table of steps (gemm_auto_steps.hpp: each a configuration
//      of the list, with what it needs and when the shape calls for it) that this device, build
//      and these buffers allow, each with the slice counts it may take;
//   2. a time model (gemm_plan::step_model_us: waves of co-resident blocks × (a block's fixed
//      cost + its k tiles) + bytes moved + a split's reduction, constants fitted per step and per
//      GPU, gemm_auto_models.hpp) shortlists those within gemm_plan::kShortlist of its best; the
//      steps it has no constants for are always measured (where their row says, just before the
//      step whose tile they run); on a GPU without a model, every candidate is;
//   3. tune (Variant::tune: once per shape and path, outside any timed region, on the caller's
//      buffers) has the runner's Measure time each shortlisted step, and keeps the fastest for
//      this device, shape and path; launch only looks the choice up and enqueues it. Where
//      nothing was measured (a caller that never tunes or lends no Measure, KL_GEMM_AUTO_TUNE=0
//      in the runner) launch runs the shortlist's first.
//
// Without cp.async (7.5) the one step is gemm8; double without FP64 tensor cores (8.6, 8.9, 12.0)
// takes gemm9's FMA tile. Split partial tiles go to the workspace (sized for the largest split
// it may take) and an ordered reduction adds them (deterministic). Its rounding depth is the
// class's step's, K for a tiled product (every candidate's depth is at most that).
#pragma once

#include "handwritten/gemm/gemm_auto_models.hpp"
#include "handwritten/gemm/gemm_auto_plan.hpp"
#include "handwritten/gemm/gemm_ladder_tiles.hpp"
#include "handwritten/gemm/gemm8_warptiled.cuh"
#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm9_pipelined.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm11_dmma_prefetch.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm_shallow_k.cuh"
#include "handwritten/gemm/gemm_thin_k.cuh"
#include "handwritten/gemv/gemv7_warps_per_row.cuh"
#include "handwritten/gemv/gevm5_fitted_tiles.cuh"
#include "handwritten/gemv/gevm6_cluster_slabs.cuh"
#if defined(KL_BUILD_SM90A)
#include "handwritten/gemm/gemm13_small_tile.cuh"
#include "handwritten/gemm/gemm14_dmma_tma.cuh"
#endif

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kl::gemm_auto {

using namespace gemm_detail;

// What this device runs, asked once: gemm_auto picks only among the steps that run here. The cp.async steps need 8.0 and an image built for 8.0 or newer (their bodies are
// guarded: a compute_75 image has them empty), each configuration its shared memory (gemm12's
// 256 × 128 tile 97 KB: more than 8.6/8.9/12.0's 99 KB; gemm11's tiles 74 and 38 KB fit all).
// Otherwise:
//   - no cp.async (7.5, or a build whose image here is compute_75): gemm8 (its configuration in
//     the list: 128 × 128 × 8 float, 64 × 64 × 8 double), no split;
//   - double on a GPU without FP64 tensor cores (8.6, 8.9, 12.0, where DMMA runs at a small
//     fraction of the A100/H100 rate): gemm9's FMA tile 128 × 128 × 8, 3 stages, no split
//     (not measured on such a GPU; the DMMA rows of the same run show what DMMA costs there);
//   - float where gemm12's tile does not fit: no gemm12 (nor gemm13) among the candidates.
struct Here {
  bool cp_async = false, huge = false, dmma = false, dmma_large = false, tma = false, tma_dmma = false;
};
// The double tiles (gemm11_pf's Config: the shared memory each needs).
using DmmaLarge = gemm11::Config<KL_DMMA_TILE(tiles::Gemm11Tile128k4), gemm11::BLayout::kn>;
#if defined(KL_BUILD_SM90A)
using Gemm13 = gemm13::R232At;  // gemm13's form in the table (sm_90a builds only)
using Gemm14 = gemm14::Config<gemm14::kListedStages, gemm14::kListedDepth>;  // gemm14's
#endif
inline const Here& here() {
  static const Here h = [] {
    using P12 = gemm9::Pipeline<float, KL_FMA_TILE(tiles::Gemm12Tile256)>;
    Here r;
    r.cp_async = kernel_runs_here(reinterpret_cast<const void*>(gemm9::kernel_for<float, KL_FMA_TILE(tiles::Gemm9Tile128), true>), 80);
    r.huge = r.cp_async && P12::kSmemBytes <= device_smem_optin();
    const int cc = device_cc();
    r.dmma = r.cp_async && (cc == 80 || cc == 90 || cc == 100);  // the FP64 tensor cores
    r.dmma_large = r.dmma && DmmaLarge::kSmemBytes <= device_smem_optin();
#if defined(KL_BUILD_SM90A)
    r.tma = r.huge && kernel_runs_here(reinterpret_cast<const void*>(gemm13::kernel_transpose_a<Gemm13>), 90) &&
            Gemm13::kSmemBytes <= device_smem_optin();
    r.tma_dmma = r.dmma_large &&
                 kernel_runs_here(reinterpret_cast<const void*>(gemm14::kernel_for<gemm14::kListedStages, gemm14::kListedDepth>), 90) &&
                 Gemm14::kSmemBytes <= device_smem_optin();
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
// The class is gemm_auto_plan.hpp's (host-checked in tests/host/test_gemm_plan.cpp).
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

// ---- tiled products: the table's steps, the model, the measured choice -------------------------
// The steps are gemm_auto_steps.hpp's table: gemm_plan derives the candidates and the shortlist
// from it (host-checked), this file what each row runs, prepares and needs (its launch, prepare
// and workspace columns).
using gemm_plan::Step;
using Choice = gemm_plan::StepChoice;
#if defined(KL_BUILD_SM90A)
#define KL_SM90A(expr, otherwise) expr
#else
#define KL_SM90A(expr, otherwise) otherwise
#endif
[[noreturn]] inline void throw_not_built() { throw std::logic_error("gemm_auto: a step this build does not have"); }

// What a row of type T runs (n slices of g on stream s), prepares, and needs of the workspace.
template <class T>
struct StepOps {
  Step step;
  void (*run)(const GemmArgs<T>& g, int n, cudaStream_t s);
  void (*prepare)();
  std::size_t (*workspace)(GemmShape sh, int n, long long sms);
};
template <class T>
const std::vector<StepOps<T>>& step_ops() {
  static const std::vector<StepOps<T>> ops = [] {
    std::vector<StepOps<T>> v;
#define KL_AUTO_STEP_OPS(id, type, name, tile, needs, applies, splits, rank, launch, prepare_, workspace)             \
  if constexpr (std::is_same_v<T, type>)                                                                              \
    v.push_back({Step::id,                                                                                            \
                 [](const GemmArgs<T>& g, int n, cudaStream_t s) {                                                    \
                   using C [[maybe_unused]] = tile;                                                                   \
                   (void)n, (void)g, (void)s;                                                                         \
                   launch;                                                                                            \
                 },                                                                                                   \
                 [] {                                                                                                 \
                   using C [[maybe_unused]] = tile;                                                                   \
                   prepare_;                                                                                          \
                 },                                                                                                   \
                 [](GemmShape sh, int n, long long sms) -> std::size_t {                                              \
                   using C [[maybe_unused]] = tile;                                                                   \
                   (void)sh, (void)n, (void)sms;                                                                      \
                   return workspace;                                                                                  \
                 }});
    KL_GEMM_AUTO_STEPS(KL_AUTO_STEP_OPS)
#undef KL_AUTO_STEP_OPS
    return v;
  }();
  return ops;
}
template <class T>
const StepOps<T>& ops_of(Step step) {
  for (const StepOps<T>& o : step_ops<T>())
    if (o.step == step) return o;
  throw std::logic_error("gemm_auto: a step not built for this type");
}
#undef KL_SM90A
// The table's split counts assume each split step's blocks per SM, and gemm_shallow_k's one chunk.
static_assert(gemm10::Config<float, KL_FMA_TILE(tiles::Gemm10Tile64), gemm10::BSource::kn>::kMinBlocks ==
              gemm_plan::row_of(Step::g10_64).splits.blocks);
static_assert(gemm11::Config<KL_DMMA_TILE(tiles::Gemm11Tile32), gemm11::BLayout::kn>::kMinBlocks ==
              gemm_plan::row_of(Step::g11_32).splits.blocks);
static_assert(gemm_shallow_k::kMaxK<float> == gemm_plan::kShallowMaxK(false) && gemm_shallow_k::kMaxK<double> == gemm_plan::kShallowMaxK(true));

// This GPU's time model (gemm_auto_models.hpp), asked once: none where the GPU has no data file.
inline const gemm_plan::GpuModel* here_model() {
  static const gemm_plan::GpuModel* m = [] {
    int dev = 0;
    KL_CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p{};
    KL_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    return gemm_plan::model_for(p.name);
  }();
  return m;
}
// This device's features for these buffers (gemm_plan::AutoFeatures).
template <class T>
gemm_plan::AutoFeatures features(bool vec, bool tma) {
  const Here& h = here();
  return {.vec = vec, .tma = tma && (std::is_same_v<T, double> ? h.tma_dmma : h.tma), .huge = h.huge,
          .dmma_large = h.dmma_large, .sms = sm_count(), .model = here_model()};
}
template <class T>
std::vector<Choice> shortlist(GemmShape sh, bool vec, bool tma) {
  return gemm_plan::auto_shortlist(sh, std::is_same_v<T, double>, features<T>(vec, tma));
}

template <class T>
void run(Choice c, const GemmArgs<T>& g, cudaStream_t s) {
  ops_of<T>(c.step).run(g, c.splits, s);
}

// The measured choices, per device, shape and path (tune writes them, launch reads them).
struct Key {
  int device, M, N, K;
  bool vec, tma;
  bool operator<(const Key& o) const {
    return std::tie(device, M, N, K, vec, tma) < std::tie(o.device, o.M, o.N, o.K, o.vec, o.tma);
  }
};
inline std::mutex& choices_mutex() {
  static std::mutex m;
  return m;
}
// Each key's choice, and whether tune measured it (false: the model's first, kept so that launch
// does not rebuild the shortlist on every call; tune still measures that key).
struct Chosen {
  Choice choice;
  bool measured;
};
template <class T>
std::map<Key, Chosen>& choices() {
  static std::map<Key, Chosen> m;
  return m;
}
template <class T>
bool tma_path(const GemmArgs<T>& g) {
#if defined(KL_BUILD_SM90A)
  if constexpr (std::is_same_v<T, float>) return gemm13::tma_runs(g);  // through padded copies where needed
  else return gemm14::tma_ok(g);
#endif
  (void)g;
  return false;
}
template <class T>
Key key_of(const GemmArgs<T>& g) {
  int dev = 0;
  KL_CUDA_CHECK(cudaGetDevice(&dev));
  return {dev, g.M, g.N, g.K, vec_io_ok(g, /*need_a=*/false), tma_path(g)};
}
// What launch runs for a tiled product: the measured choice where tune made one for this shape
// and path, else the model's first.
template <class T>
Choice choice_for(const GemmArgs<T>& g) {
  const Key k = key_of(g);
  std::lock_guard<std::mutex> lock(choices_mutex());
  auto& m = choices<T>();
  if (const auto it = m.find(k); it != m.end()) return it->second.choice;
  const Choice first = shortlist<T>({g.M, g.N, g.K}, k.vec, k.tma).front();
  m.emplace(k, Chosen{first, false});
  return first;
}
// A step's name in the trace: its name in the gemm list (the table's string literal, so
// NUL-terminated).
inline const char* step_name(Step s) { return gemm_plan::row_of(s).name.data(); }
// The steps of the shortlist, each timed by the runner's Measure (common/variant.hpp: its one
// sampling loop, cold L2, the GPU at rest before each step as long as the step before it ran:
// compare/core/tune_measure.hpp says why). The model's first is kept unless another step's median
// is more than kTuneMargin below its own. The choice is kept for this device, shape and path.
// Without a Measure nothing is chosen, and launch runs the model's first.
constexpr double kTuneMargin = 0.015;
template <class T>
void tune(const GemmArgs<T>& g, cudaStream_t, const Measure& measure) {
  if (!measure || shape_class({g.M, g.N, g.K}) != Shape::tiled || !here().cp_async) return;
  if constexpr (std::is_same_v<T, double>)
    if (!here().dmma) return;
  const Key k = key_of(g);
  {
    std::lock_guard<std::mutex> lock(choices_mutex());
    if (const auto it = choices<T>().find(k); it != choices<T>().end() && it->second.measured) return;
  }
  const std::vector<Choice> list = shortlist<T>({g.M, g.N, g.K}, k.vec, k.tma);
  Choice best = list.front();
  if (list.size() > 1) {
    double best_ms = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string label = std::string(step_name(list[i].step)) + "/" + std::to_string(list[i].splits);
      const double median = measure(label.c_str(), [&](cudaStream_t st) { run<T>(list[i], g, st); });
      if (i == 0) best_ms = median * (1 - kTuneMargin);  // the model's first, with its margin
      else if (median < best_ms) best = list[i], best_ms = median;
    }
  }
  std::lock_guard<std::mutex> lock(choices_mutex());
  choices<T>()[k] = Chosen{best, true};
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
    if (!h.cp_async) return gemm8::launch<float, 128, 128, 8, 64, 32, 8, 8>(g, s);
  } else {
    if (!h.cp_async) return gemm8::launch<double, 64, 64, 8, 32, 16, 4, 4>(g, s);
    if (!h.dmma) return gemm9::launch<double, KL_FMA_TILE(tiles::Gemm9Tile128k8)>(g, s);
  }
  run<T>(choice_for(g), g, s);
}

// The shared-memory opt-in of every configuration the rule can pick on this device: every row of
// the table this device allows.
template <class T>
void prepare() {
  const Here& h = here();
  (void)here_model();       // the device's name, asked here, outside any launch
  if (!h.cp_async) return;  // gemm8: static shared memory only
  if constexpr (std::is_same_v<T, double>) {
    if (!h.dmma) return gemm9::prepare<double, KL_FMA_TILE(tiles::Gemm9Tile128k8)>();
  }
  const bool tma = std::is_same_v<T, double> ? h.tma_dmma : h.tma;
  const unsigned have = (h.huge ? gemm_plan::kNeedsHuge : 0u) | (tma ? gemm_plan::kNeedsTma : 0u) |
                        (h.dmma_large ? gemm_plan::kNeedsDmmaLarge : 0u);
  for (Step step : gemm_plan::auto_prepared(std::is_same_v<T, double>, have)) ops_of<T>(step).prepare();
}

// The largest workspace any step it may pick needs, with any of its split counts (the choice is
// made later, by tune).
template <class T>
std::size_t workspace_bytes(GemmShape sh) {
  const auto ws = [](const MatVecVariant<T>& v, MatrixShape m) { return v.workspace_bytes ? v.workspace_bytes(m) : 0; };
  switch (shape_class(sh)) {
    case Shape::gemv: return ws(gemv_step<T>(), gemv_shape(sh));
    case Shape::gevm: return ws(gevm_step<T>(gevm_shape(sh)), gevm_shape(sh));
    case Shape::thin_k: return 0;
    case Shape::tiled: break;
  }
  if (!here().cp_async || (std::is_same_v<T, double> && !here().dmma)) return 0;
  std::size_t bytes = 0;
  const long long sms = sm_count();
  for (const Choice& c : gemm_plan::auto_workspace_choices(sh, std::is_same_v<T, double>, sms))
    bytes = std::max(bytes, ops_of<T>(c.step).workspace(sh, c.splits, sms));
  return bytes;
}
// A tiled product's depth is K: every step it may pick runs one k-ordered chain per output or a
// split whose depth is at most that (gemm_plan::splitk_depth <= K; stream-K's segments likewise,
// gemm13::variant_stream, gemm11_pf::variant_stream, gemm14::variant_stream), so the unsplit chain's bound holds for the one tune picks.
template <class T>
double rounding_depth(GemmShape sh) {
  switch (shape_class(sh)) {
    case Shape::gemv: return gemv_step<T>().rounding_depth(gemv_shape(sh));
    case Shape::gevm: return gevm_step<T>(gevm_shape(sh)).rounding_depth(gevm_shape(sh));
    case Shape::thin_k: return sh.K;
    case Shape::tiled: break;
  }
  return sh.K;
}

template <class T>
GemmVariant<T> variant() {
  return {.info = {"gemm_auto", "beyond the documents",
                   "by shape class (gemv / gevm / thin K / tiled), then the steps its time model shortlists, each timed once on the problem (tune), the fastest kept"},
          .launch = launch<T>,
          .workspace_bytes = workspace_bytes<T>,
          .rounding_depth = rounding_depth<T>,
          .prepare = prepare<T>,
          .tune = tune<T>};
}

}  // namespace kl::gemm_auto
