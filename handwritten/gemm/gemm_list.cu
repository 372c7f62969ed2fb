// The gemm family's hand-written ladder, in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/gemm_args.hpp"
#include "handwritten/gemm/gemm6_regblock2d.cuh"
#include "handwritten/gemm/gemm7_vectorized.cuh"
#include "handwritten/gemm/gemm8_warptiled.cuh"
#include "handwritten/gemm/gemm9_pipelined.cuh"
#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm11_dmma_prefetch.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm_auto.cuh"
#include "handwritten/gemm/gemm_shallow_k.cuh"
#include "handwritten/gemm/gemm_thin_k.cuh"
#if defined(KL_BUILD_SM90A)
#include "handwritten/gemm/gemm13_variants.cuh"
#include "handwritten/gemm/gemm14_dmma_tma.cuh"
#endif
#include "handwritten/gemm/gemm_global_16x16.cuh"
#include "handwritten/gemm/gemm_global_32x32.cuh"
#include "handwritten/gemm/gemm_sdk_tiles_004.cuh"
#include "handwritten/gemm/gemm_smem1_transposed.cuh"
#include "handwritten/gemm/gemm_smem2_padded.cuh"
#include "handwritten/gemm/gemm_smem3_natural.cuh"
#include "handwritten/gemm/gemm_smem4_ilp2.cuh"
#include "handwritten/gemm/gemm_smem5_ilp4.cuh"
#include "handwritten/gemm/gemm_smem_16x16.cuh"

namespace kl {

namespace {

// One tile configuration of the last steps, its parameters said once: the variant and its name
// ("<step>_<BM>x<BN>x<BK>_w<WM>x<WN>_t<TM>x<TN>_s<STAGES>") both come from them.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_>
struct Tile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_, STAGES = STAGES_;
  static std::string_view name(std::string_view step, std::string_view suffix = {}) {
    return keep_name(tile_name(step, BM, BN, BK, WM, WN, TM, TN, STAGES) + std::string(suffix));
  }
};
// gemm11's DMMA tiles: no thread tile (the mma fragments are fixed), the mma's K instead.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MMA_K_>
struct DmmaTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_, MMA_K = MMA_K_;
  static std::string_view name(std::string_view step) {
    return keep_name(std::string(step) + "_" + dims_name(BM, BN, BK) + "_w" + dims_name(WM, WN) + "_s" +
                     std::to_string(STAGES) + "_k" + std::to_string(MMA_K));
  }
};

template <class T, class C>
GemmVariant<T> gemm9_at() {
  return gemm9::variant<T, C::BM, C::BN, C::BK, C::WM, C::WN, C::TM, C::TN, C::STAGES>(C::name("gemm9_pipelined"));
}
template <class T, class C, gemm10::FmaOrder O = gemm10::FmaOrder::rows>
GemmVariant<T> gemm10_at() {
  return gemm10::variant<T, C::BM, C::BN, C::BK, C::WM, C::WN, C::TM, C::TN, C::STAGES, O>(
      C::name("gemm10_swizzled", O == gemm10::FmaOrder::cols ? "_colwise" : ""));
}
template <class T, class C>
GemmVariant<T> gemm10_splitk_at() {
  return gemm10::variant_splitk<T, C::BM, C::BN, C::BK, C::WM, C::WN, C::TM, C::TN, C::STAGES>(C::name("gemm10_splitk"));
}
template <class C>
std::string_view gemm12_name() {
  return C::name("gemm12_fragment_prefetch");
}
template <class T, class C>
GemmVariant<T> gemm12_at() {
  return gemm12::variant<T, C::BM, C::BN, C::BK, C::WM, C::WN, C::TM, C::TN, C::STAGES>(gemm12_name<C>());
}
template <class C>
GemmVariant<double> gemm11_at() {
  return gemm11::variant<C::BM, C::BN, C::BK, C::WM, C::WN, C::STAGES, C::MMA_K>(C::name("gemm11_dmma"));
}
template <class C>
std::string_view gemm11_pf_name() {
  return keep_name(std::string(C::name("gemm11_dmma")) + "_pf");
}
template <class C>
GemmVariant<double> gemm11_pf_at() {
  return gemm11_pf::variant<C::BM, C::BN, C::BK, C::WM, C::WN, C::STAGES, C::MMA_K>(gemm11_pf_name<C>());
}
template <class C>
GemmVariant<double> gemm11_pf_stream_at() {
  return gemm11_pf::variant_stream<C::BM, C::BN, C::BK, C::WM, C::WN, C::STAGES, C::MMA_K>(
      keep_name(std::string(gemm11_pf_name<C>()) + "_streamk"));
}
#if defined(KL_BUILD_SM90A)
// gemm13's and gemm14's fallback steps (their Fallback structs' tiles), by their names in this list.
template <class T>
GemmVariant<T> falling_back_to(GemmVariant<T> v, std::string_view fallback) {
  v.fallback = fallback;
  return v;
}
template <class F = gemm13::Fallback>
std::string_view gemm13_fallback() {
  return gemm12_name<Tile<F::BM, F::BN, F::BK, F::WM, F::WN, F::TM, F::TN, F::STAGES>>();
}
template <class F = gemm14::Fallback>
std::string_view gemm14_fallback() {
  return gemm11_pf_name<DmmaTile<F::BM, F::BN, F::BK, F::WM, F::WN, F::STAGES, F::MMA_K>>();
}
GemmVariant<float> gemm13_at(GemmVariant<float> form) {
  return falling_back_to(std::move(form), gemm13_fallback());
}
template <int STAGES, int KD, class C = gemm14::Config<STAGES, KD>>
std::string_view gemm14_name() {
  return DmmaTile<C::BM, C::BN, C::BK, C::WM, C::WN, C::STAGES, 4>::name("gemm14_dmma_tma");  // m16n8k4
}
template <int STAGES, int KD>
GemmVariant<double> gemm14_at() {
  return falling_back_to(gemm14::variant<STAGES, KD>(gemm14_name<STAGES, KD>()), gemm14_fallback());
}
template <int STAGES, int KD>
GemmVariant<double> gemm14_stream_at() {
  return falling_back_to(gemm14::variant_stream<STAGES, KD>(keep_name(std::string(gemm14_name<STAGES, KD>()) + "_streamk")),
                         gemm14_fallback());
}
#endif
template <class C>
GemmVariant<double> gemm11_splitk_at() {
  return gemm11::variant_splitk<C::BM, C::BN, C::BK, C::WM, C::WN, C::STAGES, C::MMA_K>(C::name("gemm11_dmma_splitk"));
}

}  // namespace

// The last step's tile configurations (block tile BMxBNxBK, warp tile, thread tile, stages):
// compare measures them side by side; docs/sgemm-ladder.md says which wins where.
template <class T>
void append_pipelined(std::vector<GemmVariant<T>>& v) {
  if constexpr (sizeof(T) == 4) {
    v.push_back(gemm9_at<T, Tile<128, 128, 8, 64, 32, 8, 8, 3>>());
    v.push_back(gemm9_at<T, Tile<128, 128, 16, 64, 32, 8, 8, 3>>());
    v.push_back(gemm9_at<T, Tile<128, 128, 32, 64, 32, 8, 8, 3>>());
    v.push_back(gemm9_at<T, Tile<128, 256, 8, 64, 64, 8, 16, 3>>());
    v.push_back(gemm9_at<T, Tile<64, 64, 16, 32, 32, 4, 8, 4>>());
    v.push_back(gemm9_at<T, Tile<256, 128, 16, 64, 64, 16, 8, 4>>());  // gemm12's tile
  } else {
    v.push_back(gemm9_at<T, Tile<64, 64, 8, 32, 16, 4, 4, 3>>());
    v.push_back(gemm9_at<T, Tile<128, 128, 8, 64, 32, 8, 8, 3>>());
  }
}

// The last steps (docs/sgemm-ladder.md). gemm10, float: the 128×128×16 tile of gemm9's best at
// two blocks per SM (128 registers), with its FFMAs row by row and (_colwise) column by column
// (does the FFMA stream's order move the dispatch stalls that are gemm9's gap to cuBLAS?);
// BK = 32 for half the per-tile overhead (copies, barrier, slot addresses) per FFMA; 128×256
// with 8 × 16 outputs per thread (more FFMA in the k loop's SASS) at one block per SM; 64×64
// for outputs with few tiles (1000³, 513×257×129), with and without split-K. Double: gemm9's
// best tile, for the ladder's continuity (the FMA units' last step).
// gemm11 (double only): the same 128×128×16 DMMA tile with each of Hopper's three f64 mma
// shapes, so one run says which feeds the tensor cores best; BK = 32 for half the barriers;
// 64×64 for outputs with few tiles; the 128×128 tile with split-K for outputs of fewer tiles
// than SMs (1000³: 64 tiles, 2 slices). gemm_auto picks among these by shape.
template <class T>
void append_last_steps(std::vector<GemmVariant<T>>& v) {
  if constexpr (sizeof(T) == 4) {
    v.push_back(gemm10_at<T, Tile<128, 128, 16, 64, 32, 8, 8, 3>>());
    v.push_back(gemm10_at<T, Tile<128, 128, 16, 64, 32, 8, 8, 3>, gemm10::FmaOrder::cols>());
    v.push_back(gemm10_at<T, Tile<128, 128, 32, 64, 32, 8, 8, 3>>());
    v.push_back(gemm10_at<T, Tile<128, 256, 16, 64, 64, 8, 16, 3>>());
    v.push_back(gemm10_at<T, Tile<64, 64, 16, 32, 32, 4, 8, 4>>());
    v.push_back(gemm10_splitk_at<T, Tile<64, 64, 16, 32, 32, 4, 8, 4>>());
    v.push_back(gemm10_at<T, Tile<32, 32, 16, 16, 16, 2, 4, 4>>());  // products of even fewer 64² tiles than SMs
    // gemm12: the register fragments double-buffered across the tile boundary, on gemm9's best
    // tile (two blocks per SM cover each other's boundaries) and on cuBLAS's 256 × 128 tile (one
    // block per SM: nobody covers them); gemm9's 256x128x16 configuration is that tile without it.
    v.push_back(gemm12_at<T, Tile<128, 128, 16, 64, 32, 8, 8, 3>>());
    v.push_back(gemm12_at<T, Tile<256, 128, 16, 64, 64, 16, 8, 4>>());
#if defined(KL_BUILD_SM90A)
    // gemm13 (sm_90a: only in builds that name it, see CMakeLists.txt), its forms said in
    // gemm13_config.hpp (docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM")
    v.push_back(gemm13_at(gemm13::ring_variant<gemm13::R232>()));         // TMA ring, producer warpgroup, setmaxnreg
    v.push_back(gemm13_at(gemm13::transpose_a_variant<gemm13::R232At>()));  // ... whose producer warpgroup also transposes A
    v.push_back(gemm13_at(gemm13::splitk_variant<gemm13::R232At>()));       // ... with k split where its tiles leave SMs idle
    v.push_back(gemm13_at(gemm13::stream_variant<gemm13::R232At>()));       // ... as stream-K: every SM the same k tiles
    v.push_back(gemm13_at(gemm13::r0_variant<gemm13::R0>()));               // an ablation: no producer warpgroup
    v.push_back(gemm13_at(gemm13::cluster_variant<gemm13::R232C2>()));      // an ablation: clusters of two tiles, B multicast
#endif
  } else {
    v.push_back(gemm10_at<T, Tile<128, 128, 8, 64, 32, 8, 8, 3>>());
    v.push_back(gemm11_at<DmmaTile<128, 128, 16, 64, 32, 4, 4>>());
    v.push_back(gemm11_at<DmmaTile<128, 128, 16, 64, 32, 4, 8>>());
    v.push_back(gemm11_at<DmmaTile<128, 128, 16, 64, 32, 4, 16>>());
    v.push_back(gemm11_at<DmmaTile<128, 128, 32, 64, 32, 3, 8>>());
    v.push_back(gemm11_at<DmmaTile<64, 64, 16, 32, 32, 4, 8>>());
    v.push_back(gemm11_at<DmmaTile<32, 32, 16, 16, 16, 4, 8>>());  // small products: more tiles, no split
    // gemm12's fragment schedule on the 64² DMMA tile (the trial of other tiles, k16, BK = 32 and
    // 6 stages around it: docs/sgemm-ladder.md) and on the 128² tile with
    // m16n8k4 (k8's two fragment sets would not fit in 255 registers; 128 × 64 with 2 blocks per
    // SM was tried too: docs/sgemm-ladder.md, "Every shape class")
    v.push_back(gemm11_pf_at<DmmaTile<64, 64, 16, 32, 32, 4, 8>>());
    v.push_back(gemm11_pf_at<DmmaTile<128, 128, 16, 64, 32, 4, 4>>());
    // and as stream-K where its tiles leave the last wave part-empty (4096³: 7.8 waves)
    v.push_back(gemm11_pf_stream_at<DmmaTile<128, 128, 16, 64, 32, 4, 4>>());
    v.push_back(gemm11_splitk_at<DmmaTile<128, 128, 16, 64, 32, 4, 8>>());
#if defined(KL_BUILD_SM90A)
    // gemm14 (sm_90a, as gemm13): the 128² DMMA tile fed by TMA, its copies out of the DMMA warps
    v.push_back(gemm14_at<gemm14::kListedStages, gemm14::kListedDepth>());
    v.push_back(gemm14_stream_at<gemm14::kListedStages, gemm14::kListedDepth>());  // ... as stream-K: every SM the same k tiles
#endif
  }
  v.push_back(gemm_thin_k::variant<T>());  // no tiles for a thin K (gemm_auto's pick at K <= 4)
  v.push_back(gemm_shallow_k::variant<T>());  // one-shot tiles for a shallow K, whole-line stores
  v.push_back(gemm_auto::variant<T>());
}

template <class T>
std::vector<GemmVariant<T>> gemm_handwritten() {
  std::vector<GemmVariant<T>> v = {
      gemm_global16::variant<T>(),  // 000: naive, 16x16
      gemm_global32::variant<T>(),  // 001: GLOBAL, 32x32
      gemm_smem16::variant<T>(),    // 000: shared tiles 16x16
      gemm_smem1::variant<T>(),     // 001: SMEM-1, transposed tiles (bank conflicts)
      gemm_smem2::variant<T>(),     // 001: SMEM-2, padded
      gemm_smem3::variant<T>(),     // 001: SMEM-3, natural indexing
      gemm_smem4::variant<T>(),     // 001: SMEM-4, 2 outputs per thread
      gemm_smem5::variant<T>(),     // 001: SMEM-5, 4 outputs per thread
      gemm_sdk004::variant<T>(),    // 004: Multiplica_Matrices_SM
      // beyond the documents: the SGEMM ladder (docs/sgemm-ladder.md)
      gemm6::variant<T>(),  // 2D register blocking
      gemm7::variant<T>(),  // 16-byte loads/stores, transposed A tile
      gemm8::variant<T>(),  // warp tiling
  };
  append_pipelined(v);   // gemm9: cp.async pipeline, a few tile configurations
  append_last_steps(v);  // gemm10 (swizzled A), gemm11 (FP64 tensor cores), gemm_auto
  return v;
}

template std::vector<GemmVariant<float>> gemm_handwritten<float>();
template std::vector<GemmVariant<double>> gemm_handwritten<double>();

}  // namespace kl
