// gemm_auto's steps for a tiled product: one row each, said once. Adding a step is one row here
// (and one in the host suite's measurements where it should be found); everything else is derived
// from the table:
//   gemm_auto_plan.hpp (host-checked)  the candidates, the shortlist and its order, the names;
//   gemm_auto.cuh                      the dispatch, the preparation, the workspace.
// Each row is a configuration the gemm list also registers, under the name the row gives (the
// host suite checks every name against the list), so a run shows what each choice costs.
//
// Columns:
//   step      the row's id (gemm_plan::Step)
//   T         element type
//   name      the list's name of the same configuration (the time model's data rows use it too)
//   tile      its tile, named once (gemm_ladder_tiles.hpp; gemm13's in gemm13_config.hpp): its
//             BM, BN and BK are the time model's and the split plans'; the launch, prepare and
//             workspace columns call it C
//   needs     what the device, build and buffers must allow (kNeeds*: 16-byte B and C, gemm12's
//             shared memory, TMA descriptors on an sm_90a build (gemm13's through padded copies
//             where the operands' rows are ragged), gemm11's 128² tile)
//   applies   whether the shape calls for it (gemm_auto_plan.hpp's predicates)
//   splits    the slice counts it may take (Splits: one; by the time model; by the model and the
//             list's fill rule; by the fill rule at one block per SM), with its blocks per SM
//   rank      where tune measures it (Rank: by its own modelled time; or just before the row it
//             names, always or where stream_first, because it runs that row's tile with less work)
//   launch    what runs it: an expression of g (the GemmArgs), n (the slices) and s (the stream)
//   prepare   its one-time host work (shared-memory opt-in, the TMA encoder)
//   workspace the bytes it needs for n slices of shape sh on sms multiprocessors
// The launch, prepare and workspace columns are expanded only by gemm_auto.cuh (the kernels'
// headers are not included here). KL_SM90A(expr, otherwise): expr in builds that name sm_90a.
#pragma once

#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm_ladder_tiles.hpp"

// clang-format off
#define KL_GEMM_AUTO_STEPS(X)                                                                                              \
  /* ---- float: gemm10 64² (split as the model or the fill rule says), 128², gemm9, gemm12, gemm13 ---- */              \
  X(g10_64, float, "gemm10_swizzled_64x64x16_w32x32_t4x8_s4", tiles::Gemm10Tile64, kNeedsNothing, always,               \
    (Splits{Splits::modeled_and_fill, 4}), (Rank{Rank::own}),                                                         \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, n, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()),                 \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(float)))                                                          \
  X(g10_128, float, "gemm10_swizzled_128x128x16_w64x32_t8x8_s3", tiles::Gemm9Tile128, kNeedsNothing, always,            \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, 1, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()), 0)              \
  /* on its element path too: at small shapes it beats gemm10's 64² */                                                 \
  X(g9_64, float, "gemm9_pipelined_64x64x16_w32x32_t4x8_s4", tiles::Gemm10Tile64, kNeedsNothing, always,                \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  /* the larger gemm9 tiles and gemm12 only on their 16-byte paths */                                                  \
  X(g9_128x8, float, "gemm9_pipelined_128x128x8_w64x32_t8x8_s3", tiles::Gemm9Tile128k8, kNeedsVec, always,              \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  X(g9_128x16, float, "gemm9_pipelined_128x128x16_w64x32_t8x8_s3", tiles::Gemm9Tile128, kNeedsVec, always,              \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  X(g12, float, "gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4", tiles::Gemm12Tile256, kNeedsVec | kNeedsHuge,    \
    always, (Splits{Splits::one}), (Rank{Rank::own}),                                                                  \
    (gemm12::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm12::prepare<float, KL_FMA_TILE(C)>()), 0)                       \
  /* gemm13 unsplit, and split where its tiles leave SMs idle (the fill rule at one block per SM); any N and K: */    \
  /* ragged operands copied padded behind the partial products (gemm_pad_plan.hpp) */                                  \
  X(g13, float, "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at", gemm13::R232At, kNeedsTma, always,    \
    (Splits{Splits::fill, 1}), (Rank{Rank::own}),                                                                      \
    KL_SM90A(gemm13::launch_split<C>(g, n, s), throw_not_built()),                                                     \
    KL_SM90A((gemm13::prepare<C, gemm13::kernel_transpose_a<C>>()), throw_not_built()),                                \
    KL_SM90A(gemm13::split_workspace<C>(sh, n), 0))                                                                    \
  /* ... and as stream-K where its tiles leave the last wave part-empty */                                             \
  X(g13_stream, float, "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at_streamk", gemm13::R232At,        \
    kNeedsTma, stream_pays, (Splits{Splits::one}), (Rank{Rank::before_if_stream_first,                                 \
    "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at"}),                                                 \
    KL_SM90A(gemm13::launch_stream<C>(g, s), throw_not_built()), KL_SM90A(gemm13::prepare_stream<C>(), throw_not_built()), \
    KL_SM90A(gemm13::stream_workspace<C>(sh), 0))                                                                      \
  /* gemm13's ring at a 64² tile, several blocks an SM (shared memory sets how many), split by the fill rule */       \
  /* at those blocks where they leave SMs idle; measured wherever the GPU's data has no row for them */               \
  X(g13s_64, float, "gemm13_tma_warpspecialized_64x64x32_w16x64_t4x8_s4_r0", gemm13::Small64, kNeedsTma, always,      \
    (Splits{Splits::fill, gemm13::Small64::kResidentBlocks}), (Rank{Rank::own}),                                     \
    KL_SM90A(gemm13::launch_small<C>(g, n, s), throw_not_built()), KL_SM90A(gemm13::prepare_small<C>(), throw_not_built()), \
    KL_SM90A(gemm13::split_workspace<C>(sh, n), 0))                                                                    \
  X(g13s_64s3, float, "gemm13_tma_warpspecialized_64x64x32_w16x64_t4x8_s3_r0", gemm13::Small64s3, kNeedsTma, always,  \
    (Splits{Splits::fill, gemm13::Small64s3::kResidentBlocks}), (Rank{Rank::own}),                                   \
    KL_SM90A(gemm13::launch_small<C>(g, n, s), throw_not_built()), KL_SM90A(gemm13::prepare_small<C>(), throw_not_built()), \
    KL_SM90A(gemm13::split_workspace<C>(sh, n), 0))                                                                    \
  X(shallow, float, "gemm_shallow_k", tiles::NoTile, kNeedsNothing, shallow_fits, (Splits{Splits::one}),         \
    (Rank{Rank::own}), gemm_shallow_k::launch<float>(g, s), gemm_shallow_k::prepare<float>(), 0)                       \
  /* gemm10's 32² tile where 64² tiles make less than two waves, or M or N fills less than half a 64-wide tile */      \
  X(g10_32, float, "gemm10_swizzled_32x32x16_w16x16_t2x4_s4", tiles::Gemm10Tile32, kNeedsNothing, few_64_tiles,         \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, 1, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()), 0)              \
  /* gemm10's 64² warps in a column or a row, modelled with the 64² tile's constants (kModelLike), */                  \
  /* k split by the fill rule where a thin product's tiles leave SMs idle */                                           \
  X(g10_128x32, float, "gemm10_swizzled_128x32x16_w32x32_t4x8_s4", tiles::Gemm10Tile128x32, kNeedsNothing, always,      \
    (Splits{Splits::fill, 4}), (Rank{Rank::own}),                                                                      \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, n, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()),                \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(float)))                                                          \
  X(g10_32x128, float, "gemm10_swizzled_32x128x16_w32x32_t4x8_s4", tiles::Gemm10Tile32x128, kNeedsNothing, always,      \
    (Splits{Splits::fill, 4}), (Rank{Rank::own}),                                                                      \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, n, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()),                \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(float)))                                                          \
  /* gemm9's few-wave k8 tiles (cuBLAS's FFMA shapes); measured wherever the GPU's data has no row for them */        \
  X(g9_64k8, float, "gemm9_pipelined_64x64x8_w16x64_t4x8_s3", tiles::Gemm9Tile64k8, kNeedsNothing, always,               \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  X(g9_32x128k8, float, "gemm9_pipelined_32x128x8_w16x64_t4x8_s3", tiles::Gemm9Tile32x128k8, kNeedsNothing, always,      \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  X(g9_128x64k8, float, "gemm9_pipelined_128x64x8_w32x64_t8x8_s3", tiles::Gemm9Tile128x64k8, kNeedsNothing, always,      \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  X(g9_64x128k8, float, "gemm9_pipelined_64x128x8_w32x64_t8x8_s3", tiles::Gemm9Tile64x128k8, kNeedsNothing, always,      \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  X(g9_32x64k8, float, "gemm9_pipelined_32x64x8_w16x64_t4x8_s3", tiles::Gemm9Tile32x64k8, kNeedsNothing, always,         \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm9::launch<float, KL_FMA_TILE(C)>(g, s)), (gemm9::prepare<float, KL_FMA_TILE(C)>()), 0)                         \
  /* gemm9's 32 × 64 × 8 and 64 × 128 × 8 as gemm10, C staged, where C's rows take no 16-byte stores; measured */   \
  /* wherever the GPU's data has no row for them */                                                                    \
  X(g10_32x64k8, float, "gemm10_swizzled_32x64x8_w32x32_t4x8_s3", tiles::Gemm10Tile32x64k8, kNeedsNothing,             \
    c_unvectorised,                                                                                                    \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, 1, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()), 0)              \
  X(g10_64x128k8, float, "gemm10_swizzled_64x128x8_w64x32_t8x8_s3", tiles::Gemm10Tile64x128k8, kNeedsNothing,          \
    c_unvectorised,                                                                                                    \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm10::launch_split<float, KL_FMA_TILE(C)>(g, 1, s)), (gemm10::prepare<float, KL_FMA_TILE(C)>()), 0)              \
  /* ---- double on the FP64 tensor cores: gemm11 32² and gemm11_pf 64² (split as the model or the fill rule */         \
  /* says), gemm11 64², 128², gemm14 ---- */                                                                            \
  X(g11_32, double, "gemm11_dmma_32x32x16_w16x16_s4_k8", tiles::Gemm11Tile32, kNeedsNothing, always,                    \
    (Splits{Splits::modeled_and_fill, 2}), (Rank{Rank::own}),                                                          \
    (gemm11::launch_split<KL_DMMA_TILE(C)>(g, n, s)), (gemm11::prepare<KL_DMMA_TILE(C)>()),                             \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(double)))                                                         \
  X(g11_64, double, "gemm11_dmma_64x64x16_w32x32_s4_k8", tiles::Gemm11Tile64, kNeedsNothing, always,                    \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm11::launch<KL_DMMA_TILE(C)>(g, s)), (gemm11::prepare<KL_DMMA_TILE(C)>()), 0)                                   \
  X(g11_64pf, double, "gemm11_dmma_64x64x16_w32x32_s4_k8_pf", tiles::Gemm11Tile64, kNeedsNothing, always,               \
    (Splits{Splits::modeled_and_fill, 2}), (Rank{Rank::own}),                                                          \
    (gemm11_pf::launch_split<KL_DMMA_TILE(C)>(g, n, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()),                       \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(double)))                                                         \
  /* gemm11_pf's 64² warps as a row or a column (modelled like g11_64pf until fitted), k split as gemm10's */          \
  X(g11_32x128pf, double, "gemm11_dmma_32x128x16_w32x32_s4_k8_pf", tiles::Gemm11Tile32x128, kNeedsNothing, always,     \
    (Splits{Splits::fill, 2}), (Rank{Rank::own}),                                                                      \
    (gemm11_pf::launch_split<KL_DMMA_TILE(C)>(g, n, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()),                      \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(double)))                                                         \
  X(g11_128x32pf, double, "gemm11_dmma_128x32x16_w32x32_s4_k8_pf", tiles::Gemm11Tile128x32, kNeedsNothing, always,     \
    (Splits{Splits::fill, 2}), (Rank{Rank::own}),                                                                      \
    (gemm11_pf::launch_split<KL_DMMA_TILE(C)>(g, n, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()),                      \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(double)))                                                         \
  /* 64 × 128 (gemm11 k8, gemm11_pf k4) and m16n8k16 on a k tile of 32 (gemm11_pf 64², 32 × 64): cuBLAS's */        \
  /* few-wave DMMA tiles; measured wherever the GPU's data has no row for them */                                      \
  X(g11_64x128, double, "gemm11_dmma_64x128x16_w32x64_s3_k8", tiles::Gemm11Tile64x128, kNeedsNothing, always,           \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm11::launch<KL_DMMA_TILE(C)>(g, s)), (gemm11::prepare<KL_DMMA_TILE(C)>()), 0)                                   \
  X(g11_64x128pf, double, "gemm11_dmma_64x128x16_w32x64_s3_k4_pf", tiles::Gemm11Tile64x128k4, kNeedsNothing, always,    \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm11_pf::launch<KL_DMMA_TILE(C)>(g, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()), 0)                             \
  X(g11_64k16pf, double, "gemm11_dmma_64x64x32_w32x32_s3_k16_pf", tiles::Gemm11Tile64k16, kNeedsNothing, always,        \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm11_pf::launch<KL_DMMA_TILE(C)>(g, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()), 0)                             \
  X(g11_32x64k16pf, double, "gemm11_dmma_32x64x32_w16x32_s3_k16_pf", tiles::Gemm11Tile32x64k16, kNeedsNothing, always,  \
    (Splits{Splits::fill, 2}), (Rank{Rank::own}),                                                                      \
    (gemm11_pf::launch_split<KL_DMMA_TILE(C)>(g, n, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()),                      \
    gemm_plan::splitk_workspace(sh, n, C::BK, sizeof(double)))                                                         \
  X(g11_128pf, double, "gemm11_dmma_128x128x16_w64x32_s4_k4_pf", tiles::Gemm11Tile128k4, kNeedsDmmaLarge, always,       \
    (Splits{Splits::one}), (Rank{Rank::own}),                                                                          \
    (gemm11_pf::launch<KL_DMMA_TILE(C)>(g, s)), (gemm11_pf::prepare<KL_DMMA_TILE(C)>()), 0)                             \
  X(g11_stream, double, "gemm11_dmma_128x128x16_w64x32_s4_k4_pf_streamk", tiles::Gemm11Tile128k4, kNeedsDmmaLarge,      \
    stream_pays, (Splits{Splits::one}), (Rank{Rank::own}),                                                             \
    (gemm11_pf::launch_stream<KL_DMMA_TILE(C)>(g, s)), (gemm11_pf::prepare_stream<KL_DMMA_TILE(C)>()),                  \
    (gemm11_pf::stream_workspace<KL_DMMA_TILE(C)>(sh)))                                                                \
  /* gemm11_pf's 128² tile fed by TMA: measured just before that tile (its stream-K form between, or first) */          \
  X(g14, double, "gemm14_dmma_tma_128x128x32_w64x32_s3_k4", tiles::Gemm14Tile, kNeedsDmmaLarge | kNeedsTma, always,     \
    (Splits{Splits::one}), (Rank{Rank::before, "gemm11_dmma_128x128x16_w64x32_s4_k4_pf"}),                             \
    KL_SM90A((gemm14::launch<C::STAGES, C::BK>(g, s)), throw_not_built()),                                             \
    KL_SM90A((gemm14::prepare<C::STAGES, C::BK>()), throw_not_built()), 0)                                             \
  X(g14_stream, double, "gemm14_dmma_tma_128x128x32_w64x32_s3_k4_streamk", tiles::Gemm14Tile,                          \
    kNeedsDmmaLarge | kNeedsTma, stream_pays, (Splits{Splits::one}),                                                   \
    (Rank{Rank::before, "gemm11_dmma_128x128x16_w64x32_s4_k4_pf"}),                                                    \
    KL_SM90A((gemm14::launch_stream<C::STAGES, C::BK>(g, s)), throw_not_built()),                                      \
    KL_SM90A((gemm14::prepare_stream<C::STAGES, C::BK>()), throw_not_built()),                                         \
    KL_SM90A(gemm14::stream_workspace<C::BK>(sh), 0))                                                                  \
  X(shallow_double, double, "gemm_shallow_k", tiles::NoTile, kNeedsNothing, shallow_fits, (Splits{Splits::one}), \
    (Rank{Rank::own}), gemm_shallow_k::launch<double>(g, s), gemm_shallow_k::prepare<double>(), 0)
// clang-format on
