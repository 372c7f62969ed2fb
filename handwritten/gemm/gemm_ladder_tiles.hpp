// The tiles of the last steps that more than one place runs, each written once and named after the
// step whose tile it is: the gemm list registers them (handwritten/gemm/gemm_list.cu, which also
// builds each variant's name from the same parameters), gemm_auto's table runs them
// (gemm_auto_steps.hpp), the A·Aᵀ steps reuse them (aat_inplace.cuh), and gemm13 and gemm14 fall
// back to them. A tile only one place runs is written there, as a Fma or Dmma of its own.
// Host-compilable (no includes): the host suite's plan reads the tiles' sizes too.
#pragma once

namespace kl::tiles {

// A CUDA-core tile (gemm8 to gemm12, float A·Aᵀ): block tile BM × BN × BK, warp tile WM × WN,
// thread tile TM × TN, STAGES pipeline stages.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_>
struct Fma {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_, STAGES = STAGES_;
};
// An FP64 tensor-core tile (gemm11, gemm11_pf, gemm14, double A·Aᵀ): no thread tile (the mma's
// fragments fix what a lane holds), the mma's K instead (m16n8k<MMA_K>).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MMA_K_>
struct Dmma {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_, MMA_K = MMA_K_;
};
// No tile (gemm_shallow_k's rows in gemm_auto's table, whose plan reads a row's tile sizes).
struct NoTile {
  static constexpr int BM = 0, BN = 0, BK = 0;
};

// A tile's parameters as the template arguments of its step's kernel, launcher or Config, in the
// order every step takes them: gemm10::launch<float, KL_FMA_TILE(Gemm10Tile64)>(g, s).
#define KL_FMA_TILE(C) C::BM, C::BN, C::BK, C::WM, C::WN, C::TM, C::TN, C::STAGES
#define KL_DMMA_TILE(C) C::BM, C::BN, C::BK, C::WM, C::WN, C::STAGES, C::MMA_K

// ---- float, on the CUDA cores -----------------------------------------------------------------
// gemm9's first tile (BK = 8): its list's first configuration, gemm_auto's on the element path,
// and double's FMA tile on a GPU without FP64 tensor cores.
using Gemm9Tile128k8 = Fma<128, 128, 8, 64, 32, 8, 8, 3>;
// gemm9's best tile, at two blocks per SM: gemm10's and gemm12's first, float A·Aᵀ's 128².
using Gemm9Tile128 = Fma<128, 128, 16, 64, 32, 8, 8, 3>;
// gemm10's tile for products of few tiles, at four blocks per SM (unsplit and split-K; gemm9's
// too, and float A·Aᵀ's 64²).
using Gemm10Tile64 = Fma<64, 64, 16, 32, 32, 4, 8, 4>;
// gemm10's tile for products of even fewer 64² tiles than SMs.
using Gemm10Tile32 = Fma<32, 32, 16, 16, 16, 2, 4, 4>;
// The 64² tile's four 32 × 32 warps stacked in a column (128 × 32) or a row (32 × 128): the same
// work per block and the same ring, for products where one side leaves 64-wide tiles part-empty
// or the 64² grid ends a wave on few blocks, and the other tiling fills the SMs more evenly.
using Gemm10Tile128x32 = Fma<128, 32, 16, 32, 32, 4, 8, 4>;
using Gemm10Tile32x128 = Fma<32, 128, 16, 32, 32, 4, 8, 4>;
// gemm12's tile, cuBLAS's 256 × 128 at one block per SM (gemm9's too; gemm13's fallback).
using Gemm12Tile256 = Fma<256, 128, 16, 64, 64, 16, 8, 4>;
// gemm9 at the k tile of 8 with 128 threads in 3 stages, the shape of the FFMA tiles cuBLAS's
// heuristic takes on products of a few waves: 64 × 64 and 32 × 128 with 16 × 64 warps (each
// thread 4 × 8), 128 × 64 and 64 × 128 with 32 × 64 warps (each thread 8 × 8), and 32 × 64 with
// two 16 × 64 warps. Small blocks, many per SM, a short prologue for a shallow K; any N (gemm9's
// element path).
using Gemm9Tile64k8 = Fma<64, 64, 8, 16, 64, 4, 8, 3>;
using Gemm9Tile32x128k8 = Fma<32, 128, 8, 16, 64, 4, 8, 3>;
using Gemm9Tile128x64k8 = Fma<128, 64, 8, 32, 64, 8, 8, 3>;
using Gemm9Tile64x128k8 = Fma<64, 128, 8, 32, 64, 8, 8, 3>;
using Gemm9Tile32x64k8 = Fma<32, 64, 8, 16, 64, 4, 8, 3>;
// The 32 × 64 × 8 tile as gemm10 (two 32 × 32 warps: its warps are 8 × 4 lanes): C through shared
// memory. Where N is not a multiple of 4, gemm9 writes C in 4-byte stores whose lanes lie 4
// elements apart, so a warp's store touches 16 sectors for 128 bytes; on a shallow K that write
// is a large part of the product, and cuBLAS's kernel of this tile stages C as gemm10 does.
using Gemm10Tile32x64k8 = Fma<32, 64, 8, 32, 32, 4, 8, 3>;
// gemm9's 64 × 128 × 8 as gemm10 (two 64 × 32 warps, each thread 8 × 8), for the same reason on
// products of more tiles (two blocks an SM: gemm10's Config says why).
using Gemm10Tile64x128k8 = Fma<64, 128, 8, 64, 32, 8, 8, 3>;

// ---- double, on the FP64 tensor cores ---------------------------------------------------------
// gemm11's 128² tile with m16n8k8 (its split-K form, double A·Aᵀ's 128²) and with m16n8k4 (the
// one gemm11_pf's two fragment sets fit in 255 registers with: its stream-K form, gemm14's
// fallback, gemm_auto's).
using Gemm11Tile128 = Dmma<128, 128, 16, 64, 32, 4, 8>;
using Gemm11Tile128k4 = Dmma<128, 128, 16, 64, 32, 4, 4>;
// gemm11's tiles for products of few tiles (gemm11 and gemm11_pf; double A·Aᵀ's 64² and 32²).
using Gemm11Tile64 = Dmma<64, 64, 16, 32, 32, 4, 8>;
using Gemm11Tile32 = Dmma<32, 32, 16, 16, 16, 4, 8>;
// The 64² tile's four 32 × 32 DMMA warps stacked in a row or a column, as gemm10's 32 × 128 and
// 128 × 32: the same work per block and the same ring, another cut of the product (gemm11_pf).
using Gemm11Tile32x128 = Dmma<32, 128, 16, 32, 32, 4, 8>;
using Gemm11Tile128x32 = Dmma<128, 32, 16, 32, 32, 4, 8>;
// 64 × 128 with four 32 × 64 DMMA warps in 3 stages: twice the 64² tile's outputs per block for
// products of a few waves, where the 128² tile leaves SMs idle and the 64² tile reloads A and B
// twice as often (gemm11 with m16n8k8; gemm11_pf with m16n8k4, as its 128² tile, whose warps
// hold as many outputs: two fragment sets fit in 255 registers only with k4).
using Gemm11Tile64x128 = Dmma<64, 128, 16, 32, 64, 3, 8>;
using Gemm11Tile64x128k4 = Dmma<64, 128, 16, 32, 64, 3, 4>;
// m16n8k16 on a k tile of 32 in 3 stages (gemm11_pf), cuBLAS's small sm_90 DMMA tiles: half the
// mma instructions of m16n8k8 and half the barriers of a k tile of 16 per FLOP, on the 64² tile
// and on 32 × 64 (for a small M: twice the 32² tile's outputs per block).
using Gemm11Tile64k16 = Dmma<64, 64, 32, 32, 32, 3, 16>;
using Gemm11Tile32x64k16 = Dmma<32, 64, 32, 16, 32, 3, 16>;
// gemm14's tile: gemm11_pf's 128² tile with a k tile of 32 in 3 ring slots (gemm14::Config fixes
// the rest and checks it against this).
using Gemm14Tile = Dmma<128, 128, 32, 64, 32, 3, 4>;

}  // namespace kl::tiles
