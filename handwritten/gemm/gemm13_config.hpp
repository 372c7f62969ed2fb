// gemm13's geometry (handwritten/gemm/gemm13_tma_warpspecialized.cuh and the steps after it): the tile, the lane grid,
// the TMA boxes and swizzle, the shared-memory layout of the stages, the staging buffers and the
// barriers, the setmaxnreg split and the barrier arrival counts, as compile-time functions of the
// template arguments; the variant's name built from them; the forms the gemm list registers.
// Host-compilable (no CUDA headers), so the host suite checks every registered form without a GPU
// (tests/host/test_gemm13_config.cpp): its name, shared memory within Hopper's 227 KiB, the
// register split within the 64 K file, each thread's rows covering its warp tile once, the
// transposing producer's chunks landing once.
#pragma once

#include "common/config_name.hpp"

#include <cstddef>
#include <string>

#if defined(__CUDACC__)
#define KL_G13_HD __host__ __device__
#else
#define KL_G13_HD
#endif

namespace kl::gemm13 {

// The parameters (what the kernel's template arguments are): block tile BM × BN × BK, warp tile
// WM × WN, thread tile TM × TN, STAGES ring slots; REGS: the FMA warps' registers under
// setmaxnreg (0: no producer warpgroup); CLUSTER_M: 2 for the cluster form; TRANSPOSE_A: the
// stage holds A as [k][m], which the producer warpgroup writes; RAGGED: it fills the whole stage
// with 4-byte cp.async from the operands as they lie (any N, K and base) instead of TMA, an
// ablation (gemm13_ragged.cuh).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int REGS_, int CLUSTER_M_ = 1,
          bool TRANSPOSE_A_ = false, bool RAGGED_ = false>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_, STAGES = STAGES_;
  static constexpr int REGS = REGS_, CLUSTER_M = CLUSTER_M_;
  static constexpr bool TRANSPOSE_A = TRANSPOSE_A_, RAGGED = RAGGED_;
  // The variant's name: the tile's (common/config_name.hpp), then the form: "_r<REGS>", "_at"
  // (TRANSPOSE_A), "_ragged" (RAGGED), "_c<CLUSTER_M>" (clusters).
  static std::string name() {
    return tile_name("gemm13_tma_warpspecialized", BM, BN, BK, WM, WN, TM, TN, STAGES) + "_r" + std::to_string(REGS) +
           (TRANSPOSE_A ? "_at" : "") + (RAGGED ? "_ragged" : "") + (CLUSTER_M > 1 ? "_c" + std::to_string(CLUSTER_M) : "");
  }

  static constexpr bool SETMAXNREG = REGS != 0;
  static_assert(BK == 8 || BK == 16 || BK % 32 == 0, "A box rows of 32, 64 or 128 bytes (a TMA swizzle each)");
  static constexpr int kLanesM = WM / TM, kLanesN = WN / TN;
  static_assert(kLanesM * kLanesN == 32 && WM % TM == 0 && WN % TN == 0 && TN % 4 == 0, "lane grid");
  // A thread's rows are lm + kLanesM·i (lm = lane % kLanesM): one A load reads kLanesM
  // consecutive rows, which the swizzle spreads over distinct bank groups. Their swizzle term is
  // x(lm) ^ xi(i) with disjoint bits when kLanesM rows span a power of two of 128-byte lines.
  static constexpr int kLinesPerLaneBlock = kLanesM * (BK < 32 ? BK : 32) * 4 / 128;
  static_assert(kLinesPerLaneBlock >= 1 && (kLinesPerLaneBlock & (kLinesPerLaneBlock - 1)) == 0, "power of two");
  KL_G13_HD static constexpr int row_swizzle(int i) { return (kLinesPerLaneBlock * i) & ((BK < 32 ? BK : 32) / 4 - 1); }
  static_assert(BM % WM == 0 && BN % WN == 0 && BM <= 256 && BN <= 256, "TMA boxes of at most 256");
  static constexpr int kWarpsN = BN / WN, kConsumerWarps = (BM / WM) * (BN / WN);
  static constexpr int kConsumers = 32 * kConsumerWarps;
  // The producer: a whole warpgroup (setmaxnreg works per warpgroup), or without setmaxnreg
  // thread 0 of the FMA warps (no extra warp: see the header comment).
  static constexpr int kThreads = kConsumers + (SETMAXNREG ? 128 : 0);
  static constexpr int kLag = STAGES >= 3 ? 2 : 1;  // inline producer: refill the slot of tile t - kLag
  static_assert(!SETMAXNREG || kConsumers % 128 == 0, "whole consumer warpgroups");
  // A comes in boxes of at most 32 k (128-byte rows, the widest swizzle): BK / kABoxK of them,
  // one after the other in the stage.
  static constexpr int kABoxK = BK < 32 ? BK : 32, kABoxes = BK / kABoxK;
  static constexpr int kRowBytes = kABoxK * 4;                   // one row of an A box
  static constexpr int kSwizzleMask = kRowBytes / 16 - 1;        // 1, 3, 7: address bits 7.. → 4..
  static constexpr int kABoxBytes = BM * kRowBytes;
  // The pitch of a [k][m] A row in the stage: BM floats, or in the ragged form BM + 4, so that the
  // producer's 4-byte copies of 8 k × 4 rows (one warp's, ragged_a) land in 32 different banks.
  static constexpr int kAPitch = RAGGED ? BM + 4 : BM;
  static constexpr int kABytes = BK * kAPitch * 4, kBBytes = BK * BN * 4;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static_assert(RAGGED || (kStageBytes % 1024 == 0 && kABytes % 1024 == 0), "swizzled tiles on 1024-byte boundaries");
  // Transposing form (TRANSPOSE_A): TMA lands A's tile in a staging buffer after the stages
  // (the swizzled [m][k] boxes above); the producer warpgroup rewrites it into the stage as
  // [k][m] (BK rows of BM floats), which the FMA warps read like B.
  static_assert(!TRANSPOSE_A || (SETMAXNREG && CLUSTER_M == 1 && TM % 4 == 0),
                "the producer warpgroup transposes; 4 consecutive rows per A load");
  // Two staging buffers where they fit in 227 KiB (the copy of tile t + 2 then flies while tile
  // t + 1 is transposed), else one.
  static constexpr int kStagingOffset = STAGES * kStageBytes;
  static constexpr int kStaging = !TRANSPOSE_A || RAGGED ? 0 : kStagingOffset + 2 * kABytes + (2 * STAGES + 2) * 8 <= 227 * 1024 ? 2 : 1;
  static constexpr int kBarrierOffset = kStagingOffset + kStaging * kABytes;
  // full[STAGES], empty[STAGES], and for TRANSPOSE_A one barrier per staging buffer
  static constexpr std::size_t kSmemBytes = std::size_t(kBarrierOffset) + (2 * STAGES + kStaging) * 8;
  // The blocks an SM holds at once, by shared memory (Hopper's 228 KiB an SM, of which 1 KiB is
  // reserved per block) and threads (2048 an SM): the _r0 kernel's launch bound, and the blocks
  // per SM its split-K fill rule counts.
  static constexpr int kSmemPerSm = 228 * 1024, kSmemReservedPerBlock = 1024;
  static constexpr int kResidentBlocks = kSmemPerSm / int(kSmemBytes + kSmemReservedPerBlock) < 2048 / kThreads
                                             ? kSmemPerSm / int(kSmemBytes + kSmemReservedPerBlock)
                                             : 2048 / kThreads;
  // TMA's swizzle of an A box row m (kRowBytes bytes at m·kRowBytes from a 1024-byte boundary):
  // the 16-byte chunk c of the row lies at chunk c ^ row_swizzle_of(m) (address bits 7.. XORed
  // into bits 4..).
  KL_G13_HD static constexpr int row_swizzle_of(int m) { return ((m * kRowBytes) >> 7) & kSwizzleMask; }
  // A thread's row i within its warp tile: lm + kLanesM·i, or with A transposed groups of 4
  // consecutive rows (one LDS.128 of a [k][m] row): 4·lm + 4·kLanesM·(i / 4) + i % 4.
  KL_G13_HD static constexpr int row_in_warp(int lm, int i) {
    return TRANSPOSE_A ? 4 * lm + 4 * kLanesM * (i / 4) + i % 4 : lm + kLanesM * i;
  }
  // setmaxnreg: the FMA warps grow to REGS registers, the producer warpgroup gives back what that
  // takes from the 168 per thread a block of 384 threads starts with (multiples of 8, >= 24).
  static constexpr int kRegsConsumer = REGS;
  static constexpr int kRegsProducer = (kThreads * (65536 / kThreads / 8 * 8) - kConsumers * REGS) / 128 / 8 * 8;
  static_assert(!SETMAXNREG || (REGS % 8 == 0 && REGS <= 256 && kRegsProducer >= 24), "setmaxnreg counts");
  // Cluster form (CLUSTER_M = 2): each CTA's producer loads BK / CLUSTER_M rows of k of the B
  // tile and multicasts them to every CTA of the pair; a slot is free once the FMA warps of all
  // CLUSTER_M CTAs have left it.
  static_assert(CLUSTER_M == 1 || CLUSTER_M == 2, "pairs of vertically adjacent tiles, or none");
  static constexpr int kBPartK = BK / CLUSTER_M, kBPartBytes = kBPartK * BN * 4;
  static_assert(BK % CLUSTER_M == 0 && kBPartBytes % 128 == 0, "B parts on 128-byte boundaries");
  // Transposing form: every FMA thread arrives on empty[s] and every producer thread on full[s],
  // each releasing its own shared-memory accesses (the stage's A is written by threads, not by
  // TMA, so a warp's __syncwarp + one lane's arrive would leave racecheck a read/write pair it
  // cannot order).
  static constexpr int kEmptyArrivals = TRANSPOSE_A ? kConsumers : CLUSTER_M * kConsumerWarps;
  static constexpr int kFullArrivals = TRANSPOSE_A ? 128 : 1;

  // Ragged form (RAGGED, gemm13_ragged_producer.cuh): producer thread p (warp w = p / 32, lane l)
  // copies 4-byte elements. Of A, copy (j, c) is row 32w + 4j + l / 8 at k 8c + l % 8: a warp's
  // copy reads 8 consecutive k (one 32-byte sector) of 4 rows, and with kAPitch's 4 extra floats
  // writes 32 different banks. Of B, copy (i, q) is k row 8w + i at column 32q + l: a warp's copy
  // reads and writes 128 consecutive bytes. Every element of the stage is copied once (the host
  // suite checks both).
  static_assert(!RAGGED || (TRANSPOSE_A && BM == 128 && BK == 32 && BN % 32 == 0), "4 warps of 32 A rows, 8 B k rows each");
  static constexpr int kRaggedARows = BM / 16, kRaggedAK = BK / 8, kRaggedBK = BK / 4, kRaggedBCols = BN / 32;
  struct Element {
    int row, col;  // A: (m, k); B: (k, n)
  };
  KL_G13_HD static constexpr Element ragged_a(int p, int j, int c) { return {32 * (p / 32) + 4 * j + p % 32 / 8, 8 * c + p % 8}; }
  KL_G13_HD static constexpr Element ragged_b(int p, int i, int q) { return {8 * (p / 32) + i, 32 * q + p % 32}; }
};

// The forms the gemm list registers (sm_90a builds), each said once: the list, gemm_auto and the
// host suite name them (docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM").
// _r232 (gemm13_tma_warpspecialized.cuh): TMA ring, a producer warpgroup, FMA warpgroups grown to
// 232 registers by setmaxnreg.
using R232 = Config<256, 128, 32, 64, 64, 8, 16, 4, 232>;
// _r232_at (gemm13_transpose_a.cuh, and as split-K and stream-K, gemm13_stream_k.cuh): the
// producer warpgroup also transposes A to [k][m]; 128 × 256 tiles (half the A).
using R232At = Config<128, 256, 32, 64, 64, 8, 16, 4, 232, 1, true>;
// _r232_at_ragged (gemm13_ragged.cuh), an ablation: _r232_at's ring, FMA warps and tile, its
// stages filled by the producer warpgroup's cp.async instead of TMA.
using R232Ragged = Config<128, 256, 32, 64, 64, 8, 16, 4, 232, 1, true, true>;
// _r0, an ablation (gemm13_ablations.cuh): the same ring without the producer warpgroup (thread 0
// of the FMA warps issues the copies; no setmaxnreg).
using R0 = Config<256, 128, 32, 64, 64, 8, 16, 4, 0>;
// _r0 at a 64² tile (gemm13_small_tile.cuh): the products whose 128 × 256 tiles leave SMs idle or
// make a ragged last wave, three (four stages) or four (three stages) blocks an SM, 16 × 64 warps.
using Small64 = Config<64, 64, 32, 16, 64, 4, 8, 4, 0>;
using Small64s3 = Config<64, 64, 32, 16, 64, 4, 8, 3, 0>;
// _r232_c2, an ablation (gemm13_ablations.cuh): _r232 in clusters of two vertically adjacent
// tiles, each B tile multicast to both.
using R232C2 = Config<256, 128, 32, 64, 64, 8, 16, 4, 232, 2>;

}  // namespace kl::gemm13
