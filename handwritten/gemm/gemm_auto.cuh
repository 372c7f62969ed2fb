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

#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm9_pipelined.cuh"
#include "handwritten/gemm/gemm11_dmma.cuh"
#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"

#include <type_traits>

namespace kl::gemm_auto {

using namespace gemm_detail;

constexpr int kLarge = 128, kSmall = 64, kBK = 16;  // the two tiles (both 16 deep)

template <class T>
bool large_tile(GemmShape s) {
  const long long tiles = static_cast<long long>(ceil_div(s.M, kLarge)) * ceil_div(s.N, kLarge);
  return tiles >= (std::is_same_v<T, float> ? 2 * gemm_plan::kFillSMs : 32);
}
// gemm12's 256 × 128 tile, one block per SM: enough of them to fill the GPU (float only).
inline bool huge_tile(GemmShape s) {
  return static_cast<long long>(ceil_div(s.M, 256)) * ceil_div(s.N, 128) >= gemm_plan::kFillSMs;
}
template <class T>
int splits(GemmShape s) {
  if constexpr (std::is_same_v<T, float>) {
    return large_tile<T>(s) ? 1 : gemm10::splits<float, 64, 64, 16, 32, 32, 4, 8, 4>(s);
  } else {
    return large_tile<T>(s) ? gemm11::splits<128, 128, 16, 64, 32, 4, 8>(s)
                            : gemm11::splits<64, 64, 16, 32, 32, 4, 8>(s);
  }
}

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  const GemmShape sh{g.M, g.N, g.K};
  if constexpr (std::is_same_v<T, float>) {
    const bool vec = vec_io_ok(g, /*need_a=*/false);
    if (!large_tile<T>(sh)) gemm10::launch_split<float, 64, 64, 16, 32, 32, 4, 8, 4>(g, splits<T>(sh), s);
    else if (vec && huge_tile(sh)) gemm12::launch<float, 256, 128, 16, 64, 64, 16, 8, 4>(g, s);
    else if (vec) gemm9::launch<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, s);
    else gemm10::launch_split<float, 128, 128, 16, 64, 32, 8, 8, 3>(g, 1, s);
  } else {
    if (large_tile<T>(sh)) gemm11::launch_split<128, 128, 16, 64, 32, 4, 8>(g, splits<T>(sh), s);
    else gemm11::launch_split<64, 64, 16, 32, 32, 4, 8>(g, splits<T>(sh), s);
  }
}

template <class T>
void prepare() {
  if constexpr (std::is_same_v<T, float>) {
    gemm12::prepare<float, 256, 128, 16, 64, 64, 16, 8, 4>();
    gemm9::prepare<float, 128, 128, 16, 64, 32, 8, 8, 3>();
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
                   "picks tile and split-K by shape (M, N, K, type only; rule in gemm_auto.cuh)"},
          .launch = launch<T>,
          .workspace_bytes = [](GemmShape sh) { return splitk_workspace<T>(sh, splits<T>(sh), kBK); },
          .rounding_depth = [](GemmShape sh) { return splitk_depth(sh.K, splits<T>(sh), kBK); },
          .prepare = prepare<T>};
}

}  // namespace kl::gemm_auto
