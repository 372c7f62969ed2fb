// gemm_auto — beyond the documents: the ladder used as a library. One entry that picks, from the
// shape alone, which of the last steps' configurations runs (as cuBLAS's heuristics pick a
// kernel); every configuration it can pick is also in the list under its own name.
//
// Lesson: no one tile is best for every shape (docs/sgemm-ladder.md, "Picking the tile
// configuration"): a large tile does more FMAs per load and per instruction but gives fewer
// blocks, and a product whose output has few tiles leaves SMs idle however deep K is. The rule:
//
//   1. If the output has at least kFillBlocks (256) tiles of 128 × 128, run the large tile
//      (float: gemm10 128×128×16, 3 stages; double: gemm11 128×128×16 DMMA m16n8k8, 4 stages).
//      256 tiles is about two blocks per SM on a 132-SM H100: every SM busy, and the last wave
//      a small part of the time.
//   2. Otherwise run the 64 × 64 tile (gemm10 64×64×16, 4 stages; gemm11 64×64×16 k8), with k
//      split in slices (splitk_splits, gemm_schedule.cuh) until there are about kFillBlocks
//      blocks, each slice about 4 k tiles deep or more, at most 16 slices; the partial tiles
//      go to the workspace and an ordered reduction adds them (deterministic).
//
// The choice reads M, N, K and the element type only (the copy path inside each kernel follows
// the alignment, and gives the same bits either way). Examples: 2048³ and 4097×4095×17 take the
// large tile (256 and 1056 tiles), 1000³ the small one without a split (256 tiles of 64²),
// 513×257×129 the small one in 3 slices of 48 (45 tiles → 135 blocks), 4096×1×4096 in 4 slices.
// Its rounding depth is the chosen split's (gemm_schedule.cuh, splitk_depth), K without one.
#pragma once

#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"

#include <type_traits>

namespace kl::gemm_auto {

using namespace gemm_detail;

constexpr int kLarge = 128, kSmall = 64, kBK = 16;  // the two tiles (both 16 deep)

inline bool large_tile(GemmShape s) {
  return static_cast<long long>(ceil_div(s.M, kLarge)) * ceil_div(s.N, kLarge) >= kFillBlocks;
}
inline int splits(GemmShape s) { return large_tile(s) ? 1 : splitk_splits(s, kSmall, kSmall, kBK); }

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  const GemmShape sh{g.M, g.N, g.K};
  if constexpr (std::is_same_v<T, float>) {
    if (large_tile(sh)) gemm10::launch_split<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, 1, s);
    else gemm10::launch_split<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, splits(sh), s);
  } else {
    if (large_tile(sh)) gemm11::launch_split<128, 128, 16, 64, 32, 4, 8>(g, 1, s);
    else gemm11::launch_split<64, 64, 16, 32, 32, 4, 8>(g, splits(sh), s);
  }
}

template <class T>
void prepare() {
  if constexpr (std::is_same_v<T, float>) {
    gemm10::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
    gemm10::prepare<float, 64, 64, 16, 32, 32, 4, 8, 4>();
  } else {
    gemm11::prepare<128, 128, 16, 64, 32, 4, 8>();
    gemm11::prepare<64, 64, 16, 32, 32, 4, 8>();
  }
}

template <class T>
GemmVariant<T> variant() {
  return {.info = {"gemm_auto", "beyond the documents",
                   "picks the tile by shape (>= 256 tiles of 128x128: large; else 64x64 with split-K)"},
          .launch = launch<T>,
          .workspace_bytes = [](GemmShape sh) { return splitk_workspace<T>(sh, splits(sh), kBK); },
          .rounding_depth = [](GemmShape sh) { return splitk_depth(sh.K, splits(sh), kBK); },
          .prepare = prepare<T>};
}

}  // namespace kl::gemm_auto
