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
// step on the shapes they were written from and missed by more than 3% on many shapes of a fresh
// sweep of odd ones (docs/sgemm-ladder.md, "gemm_auto: measured, not ruled"): tile quantisation, co-resident blocks, the prologue of a few k tiles and
// the 16-byte paths interact too finely for a handful of thresholds. So, as cuBLASLt's algorithm
// search and PyTorch's TunableOp do, gemm_auto measures:
//
//   1. the candidates: the steps this device, build and these buffers can run (float: gemm10 64²
//      unsplit and split, gemm10 128², gemm10 32² where 64² tiles make less than two waves or M or N is at most 32, gemm9 64² (on
//      its element path too), and where B and C
//      take 16-byte accesses gemm9 128² with 8- and 16-deep k tiles and gemm12 256 × 128, gemm13
//      where TMA describes the operands on an sm_90a build (unsplit, split where its tiles leave
//      SMs idle, stream-K where they leave the last wave part-empty); double on the FP64 tensor cores: gemm11 32² unsplit and
//      split, 64² with and without its fragment prefetch, 128² prefetched where it fits, unsplit
//      and, where its tiles leave the last wave part-empty, stream-K, and that tile fed by TMA,
//      gemm14, where TMA describes A and B on an sm_90a build, unsplit and stream-K by the same
//      rule); in both
//      types gemm_shallow_k where K is one of its chunks (64 floats, 48 doubles);
//   2. a time model (gemm_plan::step_model_us: waves of co-resident blocks × (a block's fixed
//      cost + its k tiles) + bytes moved + a split's reduction, constants fitted per step)
//      shortlists those within gemm_plan::kShortlist of its best (gemm_shallow_k, the 32² tile,
//      the stream-K forms and gemm14, which it has no constants for yet, always);
//   3. tune (Variant::tune: once per shape and path, outside any timed region, on the caller's
//      buffers) runs each shortlisted step, the GPU at rest before each, and keeps the fastest
//      for this device, shape and path; launch only looks the choice up and enqueues it. Where
//      nothing was measured (a caller that never tunes, a stream being captured,
//      KL_GEMM_AUTO_TUNE=0) launch runs the model's first.
//
// Without cp.async (7.5) the one step is gemm8; double without FP64 tensor cores (8.6, 8.9, 12.0)
// takes gemm9's FMA tile. Split partial tiles go to the workspace (sized for the largest split
// it may take) and an ordered reduction adds them (deterministic). Its rounding depth is the
// class's step's, K for a tiled product (every candidate's depth is at most that).
#pragma once

#include "common/l2_flush.cuh"
#include "handwritten/gemm/gemm_auto_plan.hpp"
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
#include "handwritten/gemm/gemm13_variants.cuh"
#include "handwritten/gemm/gemm14_dmma_tma.cuh"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kl::gemm_auto {

using namespace gemm_detail;

constexpr int kBK = 16;  // the k tile of the split steps (gemm10 64², gemm11 32²)

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
using DmmaLarge = gemm11::Config<128, 128, 16, 64, 32, 4, 4, gemm11::BLayout::kn>;
static_assert(DmmaLarge::BM == gemm_plan::kG11Bm && DmmaLarge::BN == gemm_plan::kG11Bn,
              "gemm_plan's stream-K rule for gemm11 is this tile's");
#if defined(KL_BUILD_SM90A)
using Gemm13 = gemm13::R232At;  // gemm13's fastest form in the list (sm_90a builds only)
constexpr int kGemm14Stages = gemm14::kListedStages, kGemm14Depth = gemm14::kListedDepth;  // gemm14's in the list
using Gemm14 = gemm14::Config<kGemm14Stages, kGemm14Depth>;
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
    r.tma = r.huge && kernel_runs_here(reinterpret_cast<const void*>(gemm13::kernel_transpose_a<Gemm13>), 90) &&
            Gemm13::kSmemBytes <= device_smem_optin();
    r.tma_dmma = r.dmma_large && kernel_runs_here(reinterpret_cast<const void*>(gemm14::kernel_for<kGemm14Stages, kGemm14Depth>), 90) &&
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
// The class is gemm_plan.hpp's (host-checked in tests/host/test_gemm_plan.cpp).
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

// ---- tiled products: the steps, the model, the measured choice -------------------------------
using gemm_plan::Step;
using Choice = gemm_plan::StepChoice;
static_assert(gemm10::Config<float, 64, 64, 16, 32, 32, 4, 8, 4, gemm10::BSource::kn>::kMinBlocks == gemm_plan::kSplit64Blocks);
static_assert(gemm11::Config<32, 32, 16, 16, 16, 4, 8, gemm11::BLayout::kn>::kMinBlocks == gemm_plan::kSplitDmma32Blocks);
#if defined(KL_BUILD_SM90A)
static_assert(Gemm13::BM == gemm_plan::kG13Bm && Gemm13::BN == gemm_plan::kG13Bn && Gemm13::BK == gemm_plan::kG13Bk);
#endif
static_assert(gemm_shallow_k::kMaxK<float> == gemm_plan::kShallowMaxK(false) && gemm_shallow_k::kMaxK<double> == gemm_plan::kShallowMaxK(true));

// This device's features for these buffers (gemm_plan::AutoFeatures).
template <class T>
gemm_plan::AutoFeatures features(bool vec, bool tma) {
  const Here& h = here();
  return {.vec = vec, .tma = tma && (std::is_same_v<T, double> ? h.tma_dmma : h.tma), .huge = h.huge,
          .dmma_large = h.dmma_large, .sms = sm_count()};
}
template <class T>
std::vector<Choice> shortlist(GemmShape sh, bool vec, bool tma) {
  return gemm_plan::auto_shortlist(sh, std::is_same_v<T, double>, features<T>(vec, tma));
}

template <class T>
void run(Choice c, const GemmArgs<T>& g, cudaStream_t s) {
  if constexpr (std::is_same_v<T, float>) {
    switch (c.step) {
      case Step::g9_64: return gemm9::launch<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, s);
      case Step::g10_64: return gemm10::launch_split<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, c.splits, s);
      case Step::g10_32: return gemm10::launch_split<float, 32, 32, 16, 16, 16, 2, 4, 4>(g, 1, s);
      case Step::g9_128x8: return gemm9::launch<float, 128, 128, 8, 64, 32, 8, 8, 3>(g, s);
      case Step::g9_128x16: return gemm9::launch<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, s);
      case Step::g10_128: return gemm10::launch_split<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, 1, s);
      case Step::g12: return gemm12::launch<float, 256, 128, 16, 64, 64, 16, 8, 4>(g, s);
#if defined(KL_BUILD_SM90A)
      case Step::g13: return gemm13::launch_split<Gemm13>(g, c.splits, s);
      case Step::g13_stream: return gemm13::launch_stream<Gemm13>(g, s);
#endif
      case Step::shallow: return gemm_shallow_k::launch<float>(g, s);
      default: break;
    }
  } else {
    switch (c.step) {
      case Step::g11_32: return gemm11::launch_split<32, 32, 16, 16, 16, 4, 8>(g, c.splits, s);
      case Step::g11_64: return gemm11::launch<64, 64, 16, 32, 32, 4, 8>(g, s);
      case Step::g11_64pf: return gemm11_pf::launch<64, 64, 16, 32, 32, 4, 8>(g, s);
      case Step::g11_128pf: return gemm11_pf::launch<128, 128, 16, 64, 32, 4, 4>(g, s);
      case Step::g11_stream: return gemm11_pf::launch_stream<128, 128, 16, 64, 32, 4, 4>(g, s);
#if defined(KL_BUILD_SM90A)
      case Step::g14: return gemm14::launch<kGemm14Stages, kGemm14Depth>(g, s);
      case Step::g14_stream: return gemm14::launch_stream<kGemm14Stages, kGemm14Depth>(g, s);
#endif
      case Step::shallow: return gemm_shallow_k::launch<double>(g, s);
      default: break;
    }
  }
  throw std::logic_error("gemm_auto: a step not built for this type");
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
  if constexpr (std::is_same_v<T, float>) return gemm13::tma_ok(g);
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
// KL_GEMM_AUTO_TRACE=1: tune prints each step's median to stderr (why it chose what it chose).
inline bool trace_on() {
  static const bool on = [] {
    const char* e = std::getenv("KL_GEMM_AUTO_TRACE");
    return e && std::string_view(e) == "1";
  }();
  return on;
}
// A switch, not a table indexed by the enum: a step added to gemm_plan::Step without a name here
// is a -Wswitch warning, not a wrong name in the trace.
inline const char* step_name(Step s) {
  switch (s) {
    case Step::g9_64: return "gemm9_64";
    case Step::g10_64: return "gemm10_64";
    case Step::g10_32: return "gemm10_32";
    case Step::g9_128x8: return "gemm9_128x8";
    case Step::g9_128x16: return "gemm9_128x16";
    case Step::g10_128: return "gemm10_128";
    case Step::g12: return "gemm12";
    case Step::g13: return "gemm13";
    case Step::g13_stream: return "gemm13_stream";
    case Step::g11_32: return "gemm11_32";
    case Step::g11_64: return "gemm11_64";
    case Step::g11_64pf: return "gemm11_64pf";
    case Step::g11_128pf: return "gemm11_128pf";
    case Step::g11_stream: return "gemm11_stream";
    case Step::g14: return "gemm14";
    case Step::g14_stream: return "gemm14_stream";
    case Step::shallow: return "gemm_shallow_k";
  }
  return "?";
}
// Whether tune measures (KL_GEMM_AUTO_TUNE=0: the model's first, as without tune).
inline bool tuning_on() {
  static const bool on = [] {
    const char* e = std::getenv("KL_GEMM_AUTO_TUNE");
    return !(e && std::string_view(e) == "0");
  }();
  return on;
}

// The steps of the shortlist timed on the caller's buffers as the runner times a variant
// (compare/core/timing.cu): one step at a time, two untimed runs, then samples, each the runner's
// read flush of the L2 (twice its size, common/l2_flush.cuh) and two events around one run, waited
// for (cold inputs; the run's own kernels back to back behind the flush), until a tenth of a second
// or 75 samples (at least 7); each step's median. The model's first is kept unless another step's
// median is more than kTuneMargin below its own. Timed in rounds over the steps instead, each run
// after another step's, the power-capped large DGEMMs ranked the 64² and 128² DMMA tiles the other
// way from the runner's samples, so each step is timed as the runner times it, after itself. Before
// each step the GPU rests as long as the step before it ran: without the rest a DGEMM step timed
// after a few others read much slower than when timed first (the board's power limit holds its
// clock down once the load is sustained), and tune ranked the steps by their place in the list; the
// runner's samples of a step follow its validation, an idle GPU (docs/sgemm-ladder.md, "tune's
// rest"). The choice is kept for this device, shape and path. Outside any timed region
// (Variant::tune); a stream being captured cannot be timed, so nothing is chosen there. The flush
// buffer is allocated per tuned shape and freed after it (one cudaMalloc per shape, outside any
// timed region): kept for the process it would hold twice the L2 of the caller's memory for good.
// Where it cannot be had (a full GPU), the runs go unflushed.
constexpr double kTuneMargin = 0.015;
// At most this many samples a step: a product of a few microseconds reaches the cap long before
// the tenth of a second, and its median's spread shrinks as the square root of the samples; 75
// cost it a few milliseconds of tuning. (The rows where gemm_auto still reads a few per cent
// behind a listed step are the same size or a step whose samples fall in two modes:
// docs/sgemm-ladder.md, "gemm_auto: measured, not ruled".)
constexpr std::size_t kTuneSamples = 75;
template <class T>
void tune(const GemmArgs<T>& g, cudaStream_t s) {
  if (shape_class({g.M, g.N, g.K}) != Shape::tiled || !here().cp_async || !tuning_on()) return;
  if constexpr (std::is_same_v<T, double>)
    if (!here().dmma) return;
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  KL_CUDA_CHECK(cudaStreamIsCapturing(s, &capturing));
  if (capturing != cudaStreamCaptureStatusNone) return;
  const Key k = key_of(g);
  {
    std::lock_guard<std::mutex> lock(choices_mutex());
    if (const auto it = choices<T>().find(k); it != choices<T>().end() && it->second.measured) return;
  }
  const std::vector<Choice> list = shortlist<T>({g.M, g.N, g.K}, k.vec, k.tma);
  Choice best = list.front();
  if (list.size() > 1) {
    cudaEvent_t e0, e1;
    KL_CUDA_CHECK(cudaEventCreate(&e0));
    KL_CUDA_CHECK(cudaEventCreate(&e1));
    int dev = 0, l2 = 0;
    KL_CUDA_CHECK(cudaGetDevice(&dev));
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    const std::size_t flush_bytes = (2 * static_cast<std::size_t>(l2) + 15) / 16 * 16;
    void* flush = nullptr;
    if (cudaMalloc(&flush, flush_bytes + 16) != cudaSuccess) {
      cudaGetLastError();  // not sticky: time unflushed
      flush = nullptr;
    }
    const auto timed = [&](const Choice& c) {
      if (flush) read_through(flush, flush_bytes, reinterpret_cast<unsigned*>(static_cast<char*>(flush) + flush_bytes), s);
      KL_CUDA_CHECK(cudaEventRecord(e0, s));
      run<T>(c, g, s);
      KL_CUDA_CHECK(cudaEventRecord(e1, s));
      KL_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      KL_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      return static_cast<double>(ms);
    };
    double best_ms = 0;
    std::chrono::duration<double> busy{0};  // how long the step before ran
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::this_thread::sleep_for(busy);  // the rest (see above)
      const auto t0 = std::chrono::steady_clock::now();
      timed(list[i]);  // the runner's two warm-up runs (the first also loads the module)
      timed(list[i]);
      std::vector<double> ms;
      double total = 0;
      while (ms.size() < kTuneSamples && (ms.size() < 7 || total < 100.0)) total += ms.emplace_back(timed(list[i]));
      busy = std::chrono::steady_clock::now() - t0;
      const std::size_t mid = ms.size() / 2;
      std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(mid), ms.end());
      const double median = ms[mid];
      if (i == 0) best_ms = median * (1 - kTuneMargin);  // the model's first, with its margin
      else if (median < best_ms) best = list[i], best_ms = median;
      if (trace_on())
        std::fprintf(stderr, "gemm_auto tune %dx%dx%d%s%s: %s/%d median %.4f ms of %zu\n", g.M, g.N, g.K, k.vec ? " vec" : "",
                     k.tma ? " tma" : "", step_name(list[i].step), list[i].splits, median, ms.size());
    }
    KL_CUDA_CHECK(cudaEventDestroy(e0));
    KL_CUDA_CHECK(cudaEventDestroy(e1));
    if (flush) KL_CUDA_CHECK(cudaFree(flush));
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
    if (!h.dmma) return gemm9::launch<double, 128, 128, 8, 64, 32, 8, 8, 3>(g, s);
  }
  run<T>(choice_for(g), g, s);
}

// The shared-memory opt-in of every configuration the rule can pick on this device.
template <class T>
void prepare() {
  const Here& h = here();
  if (!h.cp_async) return;  // gemm8: static shared memory only
  gemm_shallow_k::prepare<T>();
  if constexpr (std::is_same_v<T, float>) {
    if (h.huge) gemm12::prepare<float, 256, 128, 16, 64, 64, 16, 8, 4>();
#if defined(KL_BUILD_SM90A)
    if (h.tma) gemm13::prepare_stream<Gemm13>();  // its unsplit, split and stream-K kernels
#endif
    gemm9::prepare<float, 128, 128, 8, 64, 32, 8, 8, 3>();
    gemm9::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm9::prepare<float, 64, 64, 16, 32, 32, 4, 8, 4>();
    gemm10::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm10::prepare<float, 64, 64, 16, 32, 32, 4, 8, 4>();
    gemm10::prepare<float, 32, 32, 16, 16, 16, 2, 4, 4>();
  } else if (!h.dmma) {
    gemm9::prepare<double, 128, 128, 8, 64, 32, 8, 8, 3>();
  } else {
    if (h.dmma_large) gemm11_pf::prepare_stream<128, 128, 16, 64, 32, 4, 4>();  // unsplit and stream-K
#if defined(KL_BUILD_SM90A)
    if (h.tma_dmma) gemm14::prepare_stream<kGemm14Stages, kGemm14Depth>();  // unsplit and stream-K
#endif
    gemm11_pf::prepare<64, 64, 16, 32, 32, 4, 8>();
    gemm11::prepare<64, 64, 16, 32, 32, 4, 8>();
    gemm11::prepare<32, 32, 16, 16, 16, 4, 8>();
  }
}

// The largest workspace any of its split counts needs (the choice is made later, by tune).
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
  for (int n : gemm_plan::auto_split_counts(sh, std::is_same_v<T, double>, sm_count()))
    bytes = std::max(bytes, splitk_workspace<T>(sh, n, kBK));
  if constexpr (std::is_same_v<T, float>) {  // gemm13's split and stream-K (candidates only where TMA applies)
    bytes = std::max(bytes, splitk_workspace<T>(sh, gemm_plan::g13_splits(sh, sm_count()), gemm_plan::kG13Bk));
    if (gemm_plan::g13_stream_pays(sh, sm_count()))
      bytes = std::max(bytes, gemm_plan::g13_stream_workspace(sh, sm_count(), sizeof(T)));
  } else if (gemm_plan::g11_stream_pays(sh, sm_count())) {  // gemm11's and gemm14's stream-K (where the tile fits)
    bytes = std::max(bytes, gemm11_pf::stream_workspace<128, 128, 16, 64, 32, 4, 4>(sh));
#if defined(KL_BUILD_SM90A)
    bytes = std::max(bytes, gemm14::stream_workspace<kGemm14Depth>(sh));
#endif
  }
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
                   "by shape class (gemv / gevm / thin K / tiled), then tile and split-K (rule in gemm_auto.cuh), among the steps this GPU runs"},
          .launch = launch<T>,
          .workspace_bytes = workspace_bytes<T>,
          .rounding_depth = rounding_depth<T>,
          .prepare = prepare<T>,
          .tune = tune<T>};
}

}  // namespace kl::gemm_auto
