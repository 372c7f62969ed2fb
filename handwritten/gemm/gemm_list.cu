// The gemm family's hand-written ladder, in ladder order. One line per variant.
#include "handwritten/gemm/gemm_args.hpp"
#include "handwritten/gemm/gemm6_regblock2d.cuh"
#include "handwritten/gemm/gemm7_vectorized.cuh"
#include "handwritten/gemm/gemm8_warptiled.cuh"
#include "handwritten/gemm/gemm9_pipelined.cuh"
#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm_auto.cuh"
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

// The last step's tile configurations (block tile BMxBNxBK, warp tile, thread tile, stages):
// compare measures them side by side; docs/sgemm-ladder.md says which wins where.
template <class T>
void append_pipelined(std::vector<GemmVariant<T>>& v) {
  if constexpr (sizeof(T) == 4) {
    v.push_back(gemm9::variant<T, 128, 128, 8, 64, 32, 8, 8, 3>("gemm9_pipelined_128x128x8_s3"));
    v.push_back(gemm9::variant<T, 128, 128, 16, 64, 32, 8, 8, 3>("gemm9_pipelined_128x128x16_s3"));
    v.push_back(gemm9::variant<T, 128, 128, 32, 64, 32, 8, 8, 3>("gemm9_pipelined_128x128x32_s3"));
    v.push_back(gemm9::variant<T, 128, 256, 8, 64, 64, 8, 16, 3>("gemm9_pipelined_128x256x8_s3"));
    v.push_back(gemm9::variant<T, 64, 64, 16, 32, 32, 4, 8, 4>("gemm9_pipelined_64x64x16_s4"));
    v.push_back(gemm9::variant<T, 256, 128, 16, 64, 64, 16, 8, 4>("gemm9_pipelined_256x128x16_s4"));  // gemm12's tile
  } else {
    v.push_back(gemm9::variant<T, 64, 64, 8, 32, 16, 4, 4, 3>("gemm9_pipelined_64x64x8_s3"));
    v.push_back(gemm9::variant<T, 128, 128, 8, 64, 32, 8, 8, 3>("gemm9_pipelined_128x128x8_s3"));
  }
}

// The last steps (docs/sgemm-ladder.md). gemm10, float: the 128×128×16 tile of gemm9's best at
// two blocks per SM (128 registers), with its FFMAs row by row and (_colwise) column by column
// (does the FFMA stream's order move the dispatch stalls that are gemm9's gap to cuBLAS?);
// BK = 32 for half the per-tile overhead (copies, barrier, slot addresses) per FFMA; 128×256
// with 8 × 16 outputs per thread (91% FFMA in the k loop's SASS) at one block per SM; 64×64
// for outputs with few tiles (1000³, 513×257×129), with and without split-K. Double: gemm9's
// best tile, for the ladder's continuity (the FMA units' last step).
// gemm11 (double only): the same 128×128×16 DMMA tile with each of Hopper's three f64 mma
// shapes, so one run says which feeds the tensor cores best; BK = 32 for half the barriers;
// 64×64 for outputs with few tiles; the 128×128 tile with split-K for outputs of fewer tiles
// than SMs (1000³: 64 tiles, 2 slices). gemm_auto picks among these by shape.
template <class T>
void append_last_steps(std::vector<GemmVariant<T>>& v) {
  if constexpr (sizeof(T) == 4) {
    v.push_back(gemm10::variant<T, 128, 128, 16, 64, 32, 8, 8, 3>("gemm10_swizzled_128x128x16_s3"));
    v.push_back(gemm10::variant<T, 128, 128, 16, 64, 32, 8, 8, 3, gemm10::FmaOrder::cols>(
        "gemm10_swizzled_128x128x16_s3_colwise"));
    v.push_back(gemm10::variant<T, 128, 128, 32, 64, 32, 8, 8, 3>("gemm10_swizzled_128x128x32_s3"));
    v.push_back(gemm10::variant<T, 128, 256, 16, 64, 64, 8, 16, 3>("gemm10_swizzled_128x256x16_s3"));
    v.push_back(gemm10::variant<T, 64, 64, 16, 32, 32, 4, 8, 4>("gemm10_swizzled_64x64x16_s4"));
    v.push_back(gemm10::variant_splitk<T, 64, 64, 16, 32, 32, 4, 8, 4>("gemm10_splitk_64x64x16_s4"));
    // gemm12: the register fragments double-buffered across the tile boundary, on gemm9's best
    // tile (two blocks per SM cover each other's boundaries) and on cuBLAS's 256 × 128 tile (one
    // block per SM: nobody covers them); gemm9_pipelined_256x128x16_s4 is that tile without it.
    v.push_back(gemm12::variant<T, 128, 128, 16, 64, 32, 8, 8, 3>("gemm12_fragment_prefetch_128x128x16_s3"));
    v.push_back(gemm12::variant<T, 256, 128, 16, 64, 64, 16, 8, 4>("gemm12_fragment_prefetch_256x128x16_s4"));
  } else {
    v.push_back(gemm10::variant<T, 128, 128, 8, 64, 32, 8, 8, 3>("gemm10_swizzled_128x128x8_s3"));
    v.push_back(gemm11::variant<128, 128, 16, 64, 32, 4, 4>("gemm11_dmma_128x128x16_s4_k4"));
    v.push_back(gemm11::variant<128, 128, 16, 64, 32, 4, 8>("gemm11_dmma_128x128x16_s4_k8"));
    v.push_back(gemm11::variant<128, 128, 16, 64, 32, 4, 16>("gemm11_dmma_128x128x16_s4_k16"));
    v.push_back(gemm11::variant<128, 128, 32, 64, 32, 3, 8>("gemm11_dmma_128x128x32_s3_k8"));
    v.push_back(gemm11::variant<64, 64, 16, 32, 32, 4, 8>("gemm11_dmma_64x64x16_s4_k8"));
    v.push_back(gemm11::variant_splitk<128, 128, 16, 64, 32, 4, 8>("gemm11_dmma_splitk_128x128x16_s4_k8"));
  }
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
