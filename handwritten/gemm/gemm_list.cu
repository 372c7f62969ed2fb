// The gemm family's hand-written ladder, in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/gemm_args.hpp"
#include "handwritten/gemm/gemm_ladder_tiles.hpp"
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
#include "handwritten/gemm/gemm13_small_tile.cuh"
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

using namespace tiles;

// A CUDA-core tile's variant name, "<step>_<BM>x<BN>x<BK>_w<WM>x<WN>_t<TM>x<TN>_s<STAGES>", built
// from the parameters the variant is instantiated with (C: a tiles::Fma).
template <class C>
std::string_view fma_name(std::string_view step, std::string_view suffix = {}) {
  return keep_name(tile_name(step, KL_FMA_TILE(C)) + std::string(suffix));
}
// A DMMA tile's (C: a tiles::Dmma): no thread tile (the mma fragments are fixed), the mma's K
// instead, "<step>_<BM>x<BN>x<BK>_w<WM>x<WN>_s<STAGES>_k<MMA_K>".
template <class C>
std::string_view dmma_name(std::string_view step) {
  return keep_name(std::string(step) + "_" + dims_name(C::BM, C::BN, C::BK) + "_w" + dims_name(C::WM, C::WN) + "_s" +
                   std::to_string(C::STAGES) + "_k" + std::to_string(C::MMA_K));
}

template <class T, class C>
GemmVariant<T> gemm9_at() {
  return gemm9::variant<T, KL_FMA_TILE(C)>(fma_name<C>("gemm9_pipelined"));
}
template <class T, class C, gemm10::FmaOrder O = gemm10::FmaOrder::rows>
GemmVariant<T> gemm10_at() {
  return gemm10::variant<T, KL_FMA_TILE(C), O>(fma_name<C>("gemm10_swizzled", O == gemm10::FmaOrder::cols ? "_colwise" : ""));
}
template <class T, class C>
GemmVariant<T> gemm10_splitk_at() {
  return gemm10::variant_splitk<T, KL_FMA_TILE(C)>(fma_name<C>("gemm10_splitk"));
}
template <class C>
std::string_view gemm12_name() {
  return fma_name<C>("gemm12_fragment_prefetch");
}
template <class T, class C>
GemmVariant<T> gemm12_at() {
  return gemm12::variant<T, KL_FMA_TILE(C)>(gemm12_name<C>());
}
template <class C>
GemmVariant<double> gemm11_at() {
  return gemm11::variant<KL_DMMA_TILE(C)>(dmma_name<C>("gemm11_dmma"));
}
template <class C>
std::string_view gemm11_pf_name() {
  return keep_name(std::string(dmma_name<C>("gemm11_dmma")) + "_pf");
}
template <class C>
GemmVariant<double> gemm11_pf_at() {
  return gemm11_pf::variant<KL_DMMA_TILE(C)>(gemm11_pf_name<C>());
}
template <class C>
GemmVariant<double> gemm11_pf_stream_at() {
  return gemm11_pf::variant_stream<KL_DMMA_TILE(C)>(keep_name(std::string(gemm11_pf_name<C>()) + "_streamk"));
}
#if defined(KL_BUILD_SM90A)
// gemm13's and gemm14's fallback steps (their Fallback structs' tiles), by their names in this list.
template <class T>
GemmVariant<T> falling_back_to(GemmVariant<T> v, std::string_view fallback) {
  v.fallback = fallback;
  return v;
}
GemmVariant<float> gemm13_at(GemmVariant<float> form) {
  return falling_back_to(std::move(form), gemm12_name<gemm13::Fallback>());
}
std::string_view gemm14_name() {
  return dmma_name<Gemm14Tile>("gemm14_dmma_tma");
}
GemmVariant<double> gemm14_at() {
  return falling_back_to(gemm14::variant<gemm14::kListedStages, gemm14::kListedDepth>(gemm14_name()),
                         gemm11_pf_name<gemm14::Fallback>());
}
GemmVariant<double> gemm14_stream_at() {
  return falling_back_to(gemm14::variant_stream<gemm14::kListedStages, gemm14::kListedDepth>(
                             keep_name(std::string(gemm14_name()) + "_streamk")),
                         gemm11_pf_name<gemm14::Fallback>());
}
#endif
template <class C>
GemmVariant<double> gemm11_splitk_at() {
  return gemm11::variant_splitk<KL_DMMA_TILE(C)>(dmma_name<C>("gemm11_dmma_splitk"));
}

}  // namespace

// The last step's tile configurations (block tile BMxBNxBK, warp tile, thread tile, stages):
// compare measures them side by side; docs/sgemm-ladder.md says which wins where.
template <class T>
void append_pipelined(std::vector<GemmVariant<T>>& v) {
  if constexpr (sizeof(T) == 4) {
    v.push_back(gemm9_at<T, Gemm9Tile128k8>());
    v.push_back(gemm9_at<T, Gemm9Tile128>());
    v.push_back(gemm9_at<T, Fma<128, 128, 32, 64, 32, 8, 8, 3>>());
    v.push_back(gemm9_at<T, Fma<128, 256, 8, 64, 64, 8, 16, 3>>());
    v.push_back(gemm9_at<T, Gemm10Tile64>());
    v.push_back(gemm9_at<T, Gemm12Tile256>());
    v.push_back(gemm9_at<T, Gemm9Tile64k8>());  // cuBLAS's few-wave FFMA tiles
    v.push_back(gemm9_at<T, Gemm9Tile32x128k8>());
    v.push_back(gemm9_at<T, Gemm9Tile128x64k8>());
    v.push_back(gemm9_at<T, Gemm9Tile64x128k8>());
    v.push_back(gemm9_at<T, Gemm9Tile32x64k8>());
  } else {
    v.push_back(gemm9_at<T, Fma<64, 64, 8, 32, 16, 4, 4, 3>>());
    v.push_back(gemm9_at<T, Gemm9Tile128k8>());
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
    v.push_back(gemm10_at<T, Gemm9Tile128>());
    v.push_back(gemm10_at<T, Gemm9Tile128, gemm10::FmaOrder::cols>());
    v.push_back(gemm10_at<T, Fma<128, 128, 32, 64, 32, 8, 8, 3>>());
    v.push_back(gemm10_at<T, Fma<128, 256, 16, 64, 64, 8, 16, 3>>());
    v.push_back(gemm10_at<T, Gemm10Tile64>());
    v.push_back(gemm10_splitk_at<T, Gemm10Tile64>());
    v.push_back(gemm10_at<T, Gemm10Tile32>());
    v.push_back(gemm10_at<T, Gemm10Tile128x32>());
    v.push_back(gemm10_at<T, Gemm10Tile32x128>());
    v.push_back(gemm10_at<T, Gemm10Tile32x64k8>());  // gemm9's 32 × 64 × 8 with C staged
    v.push_back(gemm10_at<T, Gemm10Tile64x128k8>());  // and its 64 × 128 × 8
    // gemm12: the register fragments double-buffered across the tile boundary, on gemm9's best
    // tile (two blocks per SM cover each other's boundaries) and on cuBLAS's 256 × 128 tile (one
    // block per SM: nobody covers them); gemm9's 256x128x16 configuration is that tile without it.
    v.push_back(gemm12_at<T, Gemm9Tile128>());
    v.push_back(gemm12_at<T, Gemm12Tile256>());
#if defined(KL_BUILD_SM90A)
    // gemm13 (sm_90a: only in builds that name it, see CMakeLists.txt), its forms said in
    // gemm13_config.hpp (docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM")
    v.push_back(gemm13_at(gemm13::ring_variant<gemm13::R232>()));         // TMA ring, producer warpgroup, setmaxnreg
    v.push_back(gemm13_at(gemm13::transpose_a_variant<gemm13::R232At>()));  // ... whose producer warpgroup also transposes A
    v.push_back(gemm13_at(gemm13::splitk_variant<gemm13::R232At>()));       // ... with k split where its tiles leave SMs idle
    v.push_back(gemm13_at(gemm13::stream_variant<gemm13::R232At>()));       // ... as stream-K: every SM the same k tiles
    v.push_back(gemm13_at(gemm13::r0_variant<gemm13::R0>()));               // an ablation: no producer warpgroup
    // ... which at a 64² tile is a step of its own: several blocks an SM, k split where they leave SMs idle
    v.push_back(gemm13_at(gemm13::small_variant<gemm13::Small64>()));
    v.push_back(gemm13_at(gemm13::small_splitk_variant<gemm13::Small64>()));
    v.push_back(gemm13_at(gemm13::small_variant<gemm13::Small64s3>()));
    v.push_back(gemm13_at(gemm13::small_splitk_variant<gemm13::Small64s3>()));
    v.push_back(gemm13_at(gemm13::cluster_variant<gemm13::R232C2>()));      // an ablation: clusters of two tiles, B multicast
    v.push_back(gemm13::ragged_variant<gemm13::R232Ragged>());              // an ablation: the ring filled by cp.async, not TMA
#endif
  } else {
    v.push_back(gemm10_at<T, Gemm9Tile128k8>());
    v.push_back(gemm11_at<Gemm11Tile128k4>());
    v.push_back(gemm11_at<Gemm11Tile128>());
    v.push_back(gemm11_at<Dmma<128, 128, 16, 64, 32, 4, 16>>());
    v.push_back(gemm11_at<Dmma<128, 128, 32, 64, 32, 3, 8>>());
    v.push_back(gemm11_at<Gemm11Tile64>());
    v.push_back(gemm11_at<Gemm11Tile32>());  // small products: more tiles, no split
    v.push_back(gemm11_at<Gemm11Tile64x128>());  // a few waves: twice the 64² tile's outputs
    // gemm12's fragment schedule on the 64² DMMA tile (the trial of other tiles, k16, BK = 32 and
    // 6 stages around it: docs/sgemm-ladder.md) and on the 128² tile with
    // m16n8k4 (k8's two fragment sets would not fit in 255 registers; 128 × 64 with 2 blocks per
    // SM was tried too: docs/sgemm-ladder.md, "Every shape class")
    v.push_back(gemm11_pf_at<Gemm11Tile64>());
    v.push_back(gemm11_pf_at<Gemm11Tile32x128>());  // ... its warps as a row or a column
    v.push_back(gemm11_pf_at<Gemm11Tile128x32>());
    v.push_back(gemm11_pf_at<Gemm11Tile64x128k4>());
    v.push_back(gemm11_pf_at<Gemm11Tile64k16>());  // m16n8k16 on a k tile of 32
    v.push_back(gemm11_pf_at<Gemm11Tile32x64k16>());
    v.push_back(gemm11_pf_at<Gemm11Tile128k4>());
    // and as stream-K where its tiles leave the last wave part-empty (4096³: 7.8 waves)
    v.push_back(gemm11_pf_stream_at<Gemm11Tile128k4>());
    v.push_back(gemm11_splitk_at<Gemm11Tile128>());
#if defined(KL_BUILD_SM90A)
    // gemm14 (sm_90a, as gemm13): the 128² DMMA tile fed by TMA, its copies out of the DMMA warps
    v.push_back(gemm14_at());
    v.push_back(gemm14_stream_at());  // ... as stream-K: every SM the same k tiles
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
