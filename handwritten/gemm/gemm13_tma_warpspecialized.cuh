// gemm13_tma_warpspecialized — beyond the documents, Hopper (sm_90): gemm12's FFMA product with
// the tile traffic moved off the FMA warps: TMA tile loads, an mbarrier ring, a producer warpgroup.
//
// Status (issue 25): in the gemm list only in builds whose architectures name sm_90a (e.g.
// -DCMAKE_CUDA_ARCHITECTURES="90a-real;90-virtual"; CMakeLists.txt defines KL_BUILD_SM90A): its
// fast forms need setmaxnreg, and the default build (90) would give them 168 registers and spills.
// In compare on the H100 (docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM"), the form whose producer warpgroup also
// transposes A (_r232_at, 128 × 256 tiles): 100.7% / 100.1% / 101.0% of cublasSgemm at 2048³ /
// 4096³ / 8192³; _r232 (FMA warps read A as TMA lands it) 94.1% / 95.0% / 96.5%; without the
// producer warpgroup (_r0) 88.9% / 87.0% / 87.3% (docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM").
// gemm_auto takes _r232_at there. The GPU suite passes every form (81 of 81 cases,
// warp-arrive.log, before.log); compute-sanitizer's memcheck, racecheck and synccheck are clean
// over them (before.log; final.log for _r232_at as committed, whose arrival counts came after that
// suite run and were checked by compare's validation at six odd shapes under the three tools).
//
// Lesson: gemm12 issues the same FFMAs as cuBLAS but keeps its issue slots busy only ~80% of the
// time against cuBLAS's ~87%: every FMA warp also computes copy addresses, issues its share of
// LDGSTS and meets the block at one __syncthreads per tile. On Hopper all of that can leave
// the FMA warps:
//   * one producer thread copies a whole stage (the BM × BK tile of A, the BK × BN tile of B)
//     with TMA (cp.async.bulk.tensor.2d, one instruction per 32 k of A and one for B) described
//     by CUtensorMaps encoded on the host (cuTensorMapEncodeTiled, reached through
//     cudaGetDriverEntryPointByVersion, so nothing links libcuda; passed as __grid_constant__
//     parameters). TMA fills what lies outside the matrix with zeros, so ragged M, N and K
//     edges cost the FMA warps nothing;
//   * the stages form a ring guarded by mbarriers instead of __syncthreads: full[s] completes
//     when the producer's expect_tx byte count has landed, empty[s] when each of the 8 FMA warps
//     has read the stage (one arrive per warp); nobody waits for the whole block;
//   * the FMA warps only wait (a try_wait that normally succeeds at once), load fragments and
//     multiply: 94.7% of the kernel's instructions are FFMAs (cuBLAS's: 88.5%).
// TMA cannot transpose, so A lands as it is, [m][k], in boxes of 32 k (128-byte rows). A thread
// reads 4 consecutive k of one of its rows with one LDS.128 and keeps TM rows × 4 k in registers
// for four k steps; hence the thread tile 8 × 16 (TM × TN) rather than gemm12's 16 × 8: 8 rows
// × 4 k = 32 registers of A, 16 of B per step (16 × 8 was measured too: 2-3 points slower). A
// warp's lane rows are consecutive rows (row = lane % kLanesM + kLanesM·i), and TMA's 128-byte
// swizzle (CU_TENSOR_MAP_SWIZZLE_128B: the 16-byte chunk index XOR address bits 7..9; 64 and 32
// bytes for BK = 16, 8) puts the same k chunk of 8 consecutive rows into 8 different bank
// groups: ncu counts 40 shared bank conflicts in a 4096³ product. B lands as gemm12's B, [k][n]
// with pitch BN. Each output is still one chain of K FFMAs in k order (zero padding adds exact
// zeros), so the default rounding depth K holds.
//
// Transposing form (TRANSPOSE_A, _at; issue 25): the FMA warps above hold TM rows × 4 k of A in
// registers for four k steps, because TMA lands A as [m][k]. A timing-only experiment that read
// the same stage as if A were [k][m] (two LDS.128 per k for a thread's 8 rows, as gemm12 and
// cuBLAS's kernel read it) ran at 102.6% of cuBLAS at 4096³ against _r232's 96.6%
// (docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM"; ncu: dispatch stalls 0.25 against 0.41 per
// issue, issue slots busy 86.0% against 80.7%, ncu_gemm13_at.log). TMA cannot transpose 4-byte
// elements, so the producer warpgroup, idle but for one thread, does it: TMA lands A's tile in a
// staging buffer after the stages; all 128 producer threads wait for it, rewrite it into stage s
// as [k][m] (BK rows of BM floats, unswizzled: a warp's 8 distinct 16-byte A reads per k are one
// 128-byte line) and arrive on full[s], whose phase also waits for B's TMA bytes. What made it pay
// (docs/sgemm-ladder.md, each step's change in its first line):
//   * few producer instructions: thread p takes whole rows (p, p + 128, ...), computes each row's
//     swizzle and addresses once and writes its chunks at immediate offsets: a first form that
//     did the index arithmetic per (row, chunk) pair added 5% to the kernel's instructions (ncu)
//     and ran at 93-94%; this one reached 99.6-99.8% on 256 × 128 tiles;
//   * 128 × 256 tiles instead of 256 × 128: the same FFMAs per tile with half as much A to
//     transpose (and room for the second staging buffer below): 101.8% / 101.3% at 4096³ /
//     8192³ in the trial;
//   * one thread polls the barriers while the other 127 wait at a named barrier (polling by all
//     made no difference). A second staging buffer (the copy of tile t + 2
//     flies while t + 1 is transposed) is used where it fits beside the stages: on 256 × 128
//     tiles it leaves room for only 3 stages, which lost more than it gained; on 128 × 256 tiles A is half as large and two fit beside 4 stages (the kept form);
//   * every thread arrives (128 on full[s], 256 FMA threads on empty[s]) rather than one lane per
//     warp after __syncwarp: the stage's A is written by threads, not TMA, and compute-sanitizer's
//     racecheck cannot order the other lanes' accesses through one lane's arrive (384 hazards
//     reported with per-warp arrivals, warp-arrive.log; 0 with these, final.log). Timing the same.
// Each output is still one chain of K FFMAs in k order: bitwise the same C as _r232.
//
// Two forms (REGS):
//   * REGS > 0 (232 measured best; 240 was 1-2 points slower): a producer warpgroup (warps 8-11,
//     one thread issues) that gives its registers back with setmaxnreg.dec so the two FMA
//     warpgroups grow to REGS with setmaxnreg.inc (384 threads start at 168 registers). Needs
//     the sm_90a target (__CUDA_ARCH_FEAT_SM90_ALL): the project's arch list must name 90a,
//     e.g. "75-real;80-real;90a-real;90-virtual". Compiled for plain sm_90 it is still correct
//     but runs its FMA warps in 168 registers and spills (ptxas: 1148 bytes of spill stores).
//   * REGS = 0, for targets without setmaxnreg: no extra warp at all; thread 0 of the FMA warps
//     issues the TMA copies, refilling the slot of tile t - 2 at the start of tile t (by then
//     every warp has left it, so warp 0 seldom waits). Why not one producer warp: 9 warps on 4
//     schedulers put 3 warps on one scheduler's quarter of the register file, so ptxas caps
//     every thread at 168 registers and the 128 accumulators spill (ptxas: ~300 bytes of
//     spill stores; not timed); 8 warps keep 255.
//
// Cluster form (CLUSTER_M = 2, issue 25; CLUSTER_M = 1, the default, is the kernel above, its PTX
// unchanged): the two blocks that compute vertically adjacent C tiles (tile rows tm = 2p and
// 2p + 1, the same tn, so the same B columns) form a thread-block cluster of 2, and each stage's
// B tile (BK × BN) leaves L2 once for the pair: each CTA's producer loads half of it (BK / 2 rows
// of k: B's tensor map has a box of BN × BK / 2) with cp.async.bulk.tensor ... .multicast::cluster
// (ctaMask 0b11), which writes the half into the same stage offset of both CTAs and completes its
// bytes on both CTAs' full[s]. Why: per stage a block takes BM·BK + BK·BN floats from L2 for
// BM·BN·BK FFMAs; with B shared by the pair that is BM·BK + BK·BN / 2 (at 256 × 128 × 32: 48 KiB
// → 40 KiB, a sixth less L2→SM traffic per FFMA, all of it from the B halves). A stays per block
// (the pair's A rows differ). What changes:
//   * full[s] of each CTA still takes one arrive.expect_tx from its own producer, for its own A
//     plus the WHOLE B tile (both halves land in both CTAs; a peer's half may land before that
//     arrive: the transaction count runs negative until it comes);
//   * empty[s] counts 2 × 8 arrivals: every FMA warp arrives on its own CTA's empty[s] and on the
//     peer's (lane r on CTA r: mapa + mbarrier.arrive.release.cluster), since the peer's multicast
//     writes into this CTA's slot; the producer waits for it with acquire at cluster scope;
//   * the barriers' init is fenced (fence.mbarrier_init.release.cluster) and followed by a cluster
//     barrier (barrier.cluster.arrive.release / wait.acquire) before any multicast or remote
//     arrive; the kernel ends with another (the producer warps arrive after the last copy, the FMA
//     warps after their last remote arrive, and wait after their stores), so no CTA leaves while
//     its peer may still write into its shared memory or arrive on its barriers;
//   * the grid is (2 · tiles_n, ceil(tiles_m / 2)) with clusters of (2, 1, 1): blockIdx.x =
//     2 · pair column + cluster rank, and the grouped raster runs over pairs of tile rows (4 pairs
//     = 8 tile rows a group), rank r taking tile row 2 · pair row + r; so blocks start in the
//     same (tm, tn) order as before. When tiles_m is odd the last pair's rank-1 block lies wholly
//     below M: it loads no A, multicasts its half of each B tile for its partner, multiplies
//     whatever its A slots hold and stores nothing (the epilogue's r < M). Launched with cudaLaunchKernelEx and
//     cudaLaunchAttributeClusterDimension; the kernel traps if it runs without its cluster.
// Each output is the same FFMA chain as in CLUSTER_M = 1 (the stage holds the same bytes), so the
// two forms give bit-identical results. The multicast is compiled for sm_90a only (ptxas advises
// against .multicast::cluster on plain sm_90, whose PTX may run on later GPUs; with
// -Werror=all-warnings the advisory is an error): the compute_90 image keeps the cluster and its
// barriers but each CTA loads both B halves itself. Needs sm_90 (clusters; multicast and
// setmaxnreg from sm_90a) and room for clusters of two 192 KiB blocks (one per SM, two SMs of a
// GPC). Measured (H100, a trial; docs/sgemm-ladder.md,
// "gemm13: what Hopper adds to a CUDA-core GEMM"): correct (108 of 108 checks, bitwise equal to CLUSTER_M = 1) but slower:
// 89.1% / 89.9% of cublasSgemm at 4096³ / 8192³ against 96.3% / 96.8% unclustered. The FP32 tile
// does 32 multiply-adds per byte loaded, so B's halved L2 traffic buys nothing, while each stage
// waits for the slower of two blocks and each FMA warp arrives on a remote barrier.
//
// Fallback: TMA needs 16-byte-aligned bases and row pitches that are multiples of 16 bytes, i.e.
// K % 4 == 0 (A), N % 4 == 0 (B, and the 16-byte stores of C) and A, B, C 16-byte aligned. For
// any other product the launcher runs gemm12's launch on its tile (256 × 128 × 16, 4 stages), so
// every M, N, K >= 1 works.
//
// Measured (one H100 SXM, a standalone trial; docs/sgemm-ladder.md,
// "gemm13: what Hopper adds to a CUDA-core GEMM"; cudaEvent medians of 25, L2 not flushed), 256 × 128 × 32,
// 4 stages, 8 × 16 per thread, REGS = 232: 96.1-101.4% of cublasSgemm at 2048³ (cuBLAS's own
// time varies ±5% there), 96.5-98.0% at 4096³, 96.8-97.1% at 8192³ (49.7 TFLOP/s against
// 51.2-51.4), over three runs; gemm12 in the same runs 93-95% at 4096³-8192³. REGS = 0: 88-94%
// there. Why that form stops short of cuBLAS (what the transposing form above removes):
// ncu at 4096³ shows fewer instructions than cuBLAS's kernel (2.27e9 against 2.43e9; cuBLAS
// runs sm80_xmma_gemm_..._tilesize256x128x8_stage3_warpsize4x2x1_ffma, the same 256 × 128 tile
// and 8 warps) but issue slots busy 80.7% against 91.0%, the difference mostly "dispatch stall"
// (0.41 against 0.10 warps per issue), i.e. how ptxas's FFMA stream meets the register file and
// dispatch, not the memory side (long scoreboard, 0.27, is most likely the producer thread's wait).
// Tried and measured (same log): explicit double-buffered fragments across k groups and tile
// boundaries (gemm12's trick; 5-7 points slower: more registers, a worse schedule; not kept),
// BK = 64 with 2 stages (half speed), BK = 16 with 6 stages (4 points slower), the
// B-outer/serpentine FFMA order of CUTLASS's SIMT mma (B_OUTER = true: 5 points slower,
// dispatch stall 0.53), 128 × 256 (the same as 256 × 128). Session 31 (gemm13_trial_12warps.log):
// twelve FMA warps (three per scheduler) of 8 × 8 in 160 registers on 192 × 128 tiles, to give
// each scheduler a third warp to issue from while one stalls: 95.7% against 96.9% at 8192³, far
// less where the 192-row tiles leave a wave short. The dispatch stalls follow the A layout in
// registers, not the number of warps.
#pragma once

#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm13_config.hpp"

#include <cuda.h>  // CUtensorMap and its enums only; the encoder comes through the runtime
#include <cudaTypedefs.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kl {
inline constexpr std::string_view kFeatureTma = "TMA (cp.async.bulk.tensor) and mbarrier";
}

namespace kl::gemm13 {

using namespace gemm_detail;

// ---- geometry: Config, in gemm13_config.hpp (host-compilable, host-checked) ---------------


// ---- PTX wrappers (sm_90) ---------------------------------------------------------------------
#if KL_ARCH_AT_LEAST(90)
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// Raises the transaction count of the current phase without arriving (the transposing form:
// the arrivals come from the threads that write the stage).
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// A barrier among the `threads` threads (whole warps) that name barrier `id` (0 is __syncthreads').
__device__ __forceinline__ void named_barrier(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// The box of `map` at (c0 innermost, c1) into shared memory at dst; completes bytes on bar.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// ---- cluster form only (CLUSTER_M > 1) ----
// The same box into the same shared offset `dst` of every CTA in `cta_mask`, each of which
// completes the box's bytes on the mbarrier at offset `bar` of its own shared memory.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1,
                                                      std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_size() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
// The shared::cluster address of this CTA's shared address `addr` in CTA `rank` of the cluster.
__device__ __forceinline__ unsigned map_to_rank(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
// Arrive on an mbarrier of any CTA of the cluster (address from map_to_rank); release at cluster
// scope orders this thread's (and, after __syncwarp, its warp's) shared reads before it.
__device__ __forceinline__ void mbar_arrive_cluster(unsigned cluster_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}
// mbar_wait with acquire at cluster scope: the producer's wait for the release of a slot by the
// FMA warps of both CTAs (the peer's reads must precede this CTA's multicast into the peer).
__device__ __forceinline__ void mbar_wait_cluster(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
#endif

// Element e of a float4 (e a compile-time constant after unrolling: no select remains).
__host__ __device__ __forceinline__ float part(const float4& v, int e) { return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w; }

// ---- the kernel -----------------------------------------------------------------------------
// C's BM × BN tile at (BM·by, BN·bx) (after the grouped raster below); the maps describe A (M × K,
// box BK × BM, swizzled) and B (K × N, box BN × BK).
// Cluster form (CLUSTER_M = 2): the grid is (CLUSTER_M · tiles_n, pair rows) with clusters of
// (CLUSTER_M, 1, 1), so blockIdx.x = CLUSTER_M · pair column + cluster rank; the raster below runs
// over pairs and rank r takes tile row CLUSTER_M · pair row + r (M below is the slab's rows; a
// block whose tile row starts at or past M is padding: see launch).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int REGS, bool B_OUTER, int CLUSTER_M = 1, bool TRANSPOSE_A = false>
__global__ void __launch_bounds__(Config<BM, BN, BK, WM, WN, TM, TN, STAGES, REGS, B_OUTER, CLUSTER_M, TRANSPOSE_A>::kThreads, 1)
    kernel_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               float* __restrict__ c, int M, int N, int K) {
#if KL_ARCH_AT_LEAST(90)  // TMA and mbarrier; compiled for older targets as an empty kernel
  using C = Config<BM, BN, BK, WM, WN, TM, TN, STAGES, REGS, B_OUTER, CLUSTER_M, TRANSPOSE_A>;
  constexpr bool SETMAXNREG = C::SETMAXNREG;
  constexpr bool CLUSTER = CLUSTER_M > 1;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned full0 = smem + C::kBarrierOffset, empty0 = full0 + 8 * STAGES;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tiles = ceil_div(K, BK);
  constexpr int kGroups = BK / 4, kChunks = C::kABoxK / 4;  // k groups per tile, 16-byte chunks per A box row

  // Grouped raster: consecutive blocks walk down 8 tile rows before moving right, so the blocks
  // resident together share their B columns and A rows in L2.
  // The cluster form walks pairs of tile rows the same way (groups of 8 / CLUSTER_M pair rows),
  // so consecutive blocks still see the same (tm, tn) sequence when tiles_m is even.
  constexpr int kGroup = 8 / CLUSTER_M;
  const int rank = CLUSTER ? static_cast<int>(cluster_rank()) : 0;  // = blockIdx.x % CLUSTER_M
  const int tiles_m = gridDim.y, tiles_n = gridDim.x / CLUSTER_M;  // in pairs of tiles for CLUSTER
  const int id = blockIdx.y * tiles_n + blockIdx.x / CLUSTER_M;
  const int group = id / (kGroup * tiles_n), first_m = group * kGroup;
  const int group_m = min(tiles_m - first_m, kGroup);
  const int tm = (first_m + (id % (kGroup * tiles_n)) % group_m) * CLUSTER_M + rank;
  const int tn = (id % (kGroup * tiles_n)) / group_m;
  const int row0 = BM * tm, col0 = BN * tn;

  if (threadIdx.x == 0) {
    if (smem % 1024 != 0) __trap();  // the swizzle arithmetic below assumes 1024-byte stages
    if constexpr (CLUSTER)
      if (cluster_size() != CLUSTER_M) __trap();  // launched without its cluster attribute (see launch)
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full0 + 8 * s, C::kFullArrivals);     // the producer's arrive(s) + the TMA bytes
      mbar_init(empty0 + 8 * s, C::kEmptyArrivals);   // one arrive per FMA warp (of each CTA of the cluster)
    }
#pragma unroll
    for (int b = 0; b < C::kStaging; ++b) mbar_init(empty0 + 8 * (STAGES + b), 1);  // a staging buffer: one expect_tx + A's bytes
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  if constexpr (CLUSTER) {  // every CTA's barriers initialised before any multicast or remote arrive
    cluster_arrive();
    cluster_wait();
  } else {
    __syncthreads();
  }

  // Tile t into its slot t % STAGES, once the FMA warps have read the tile before it there
  // (t - STAGES; the n-th use of a slot waits for the (n - 1)-th completion of its empty barrier).
  // Cluster form: the slot is free once the FMA warps of every CTA of the cluster have left it
  // (the peers' multicasts write into it too); full[s] expects this CTA's A plus the whole B tile,
  // of which this CTA loads part `rank` (kBPartK rows of k) for all. A padding block (row0 >= M)
  // loads no A: its FMA warps multiply whatever the A slots hold, and its stores are skipped.
  // Tile t's A (BK / kABoxK boxes of kABoxK k, one after the other) to shared address dst,
  // completing on barrier bar.
  auto copy_a = [&](unsigned dst, unsigned bar, int t) {
#pragma unroll
    for (int h = 0; h < C::kABoxes; ++h) tma_load_2d(dst + h * C::kABoxBytes, &map_a, bar, t * BK + h * C::kABoxK, row0);
  };
  auto produce = [&](int t) {
    const int s = t % STAGES;
    if constexpr (CLUSTER) {
      if (t >= STAGES) mbar_wait_cluster(empty0 + 8 * s, ((t / STAGES) & 1) ^ 1);
      const unsigned full = full0 + 8 * s, stage = smem + s * C::kStageBytes;
      const bool a_live = row0 < M;
      mbar_arrive_expect_tx(full, (a_live ? C::kABytes : 0) + C::kBBytes);
      if (a_live) copy_a(stage, full, t);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
      tma_load_2d_multicast(stage + C::kABytes + rank * C::kBPartBytes, &map_b, full, col0, t * BK + rank * C::kBPartK,
                            static_cast<std::uint16_t>((1u << CLUSTER_M) - 1));
#else  // ptxas advises multicast for sm_90a only: elsewhere every CTA loads all parts itself (same bytes, same barriers)
#pragma unroll
      for (int q = 0; q < CLUSTER_M; ++q)
        tma_load_2d(stage + C::kABytes + q * C::kBPartBytes, &map_b, full, col0, t * BK + q * C::kBPartK);
#endif
    } else {
      if (t >= STAGES) mbar_wait(empty0 + 8 * s, ((t / STAGES) & 1) ^ 1);
      const unsigned full = full0 + 8 * s, stage = smem + s * C::kStageBytes;
      mbar_arrive_expect_tx(full, C::kStageBytes);  // whole boxes: the zero fill counts too
      copy_a(stage, full, t);
      tma_load_2d(stage + C::kABytes, &map_b, full, col0, t * BK);
    }
  };
  if (threadIdx.x == (SETMAXNREG ? C::kConsumers : 0)) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&map_a)) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&map_b)) : "memory");
  }

  if constexpr (SETMAXNREG) {
    if (warp >= C::kConsumerWarps) {  // ---- the producer warpgroup: one thread issues ----
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
      asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::kRegsProducer));
#endif
      if constexpr (TRANSPOSE_A) {
        // Every producer thread transposes; thread p = 0 also issues the copies. Per tile t: B
        // straight into stage s (as above); A into staging buffer t % NS, from which the
        // warpgroup writes it into stage s as [k][m] and arrives on full[s] (128 arrivals plus
        // B's bytes).
        const int p = threadIdx.x - C::kConsumers;
        const unsigned staged0 = empty0 + 8 * STAGES;  // the staging buffers' barriers
        constexpr int NS = C::kStaging;
        auto load_a_staged = [&](int t) {
          const unsigned bar = staged0 + 8 * (t % NS), buf = smem + C::kStagingOffset + (t % NS) * C::kABytes;
          mbar_arrive_expect_tx(bar, C::kABytes);
          copy_a(buf, bar, t);
        };
        if (p == 0)
          for (int t = 0; t < NS && t < tiles; ++t) load_a_staged(t);
        for (int t = 0, s = 0; t < tiles; ++t, s = s + 1 == STAGES ? 0 : s + 1) {
          const unsigned full = full0 + 8 * s, staged = staged0 + 8 * (t % NS);
          const unsigned staged_parity = (t / NS) & 1;
          // One thread polls; the others sleep at the named barrier, then find both phases complete
          // (their own waits only acquire: no polling warps on the FMA warps' schedulers).
          if (p == 0) {
            if (t >= STAGES) mbar_wait(empty0 + 8 * s, ((t / STAGES) & 1) ^ 1);
            mbar_expect_tx(full, C::kBBytes);  // before any arrive of this phase: p = 0 arrives below
            tma_load_2d(smem + s * C::kStageBytes + C::kABytes, &map_b, full, col0, t * BK);
            mbar_wait(staged, staged_parity);
          }
          named_barrier(1, 128);
          if (p != 0) {
            if (t >= STAGES) mbar_wait(empty0 + 8 * s, ((t / STAGES) & 1) ^ 1);
            mbar_wait(staged, staged_parity);
          }
          // Thread p moves rows p, p + 128, ...: for each of its rows the 16-byte chunks c (4 k each)
          // in order. A warp's lanes take 32 consecutive rows of the same chunk: its reads meet the
          // swizzle's 8 bank groups (chunk c of row m lies at chunk c ^ swz(m)), and each 4-byte
          // write fills one 128-byte line of a [k][m] row. Written this way (the row's swizzle and
          // its addresses computed once, the chunks' write offsets immediates) the warpgroup's share
          // of the issue slots stays small: index arithmetic per (row, chunk) pair made it 5% of
          // all instructions (ncu, docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core GEMM").
          const unsigned char* stg = smem_raw + C::kStagingOffset + (t % NS) * C::kABytes;
          float* dst = reinterpret_cast<float*>(smem_raw + s * C::kStageBytes);
          static_assert(BM % 128 == 0, "whole producer warpgroups of rows");
#pragma unroll
          for (int mm = 0; mm < BM / 128; ++mm) {
            const int m = p + 128 * mm;
            const int swz = C::row_swizzle_of(m);
            const unsigned char* row = stg + m * C::kRowBytes;
            float* col = dst + m;
#pragma unroll
            for (int h = 0; h < C::kABoxes; ++h)
#pragma unroll
              for (int cc = 0; cc < kChunks; ++cc) {
                const float4 v = *reinterpret_cast<const float4*>(row + h * C::kABoxBytes + ((cc ^ swz) << 4));
                float* o = col + 4 * (h * kChunks + cc) * BM;
                o[0] = v.x, o[BM] = v.y, o[2 * BM] = v.z, o[3 * BM] = v.w;
              }
          }
          named_barrier(1, 128);  // the staging buffer read by all before the next copy overwrites it
          if (p == 0 && t + NS < tiles) load_a_staged(t + NS);
          mbar_arrive(full);  // this thread's share of stage s written (release)
        }
      } else if (threadIdx.x == C::kConsumers) {
        for (int t = 0; t < tiles; ++t) produce(t);
      }
      if constexpr (CLUSTER) {  // the cluster's closing barrier (see the end of the kernel)
        cluster_arrive();
        cluster_wait();
      }
      return;
    }
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::kRegsConsumer));
#endif
  } else if (threadIdx.x == 0) {  // the first STAGES tiles; the rest from inside the k loop
    for (int t = 0; t < STAGES && t < tiles; ++t) produce(t);
  }

  // ---- FMA warps ----
  const int lm = lane % C::kLanesM, ln = lane / C::kLanesM;
  const int wm0 = (warp / C::kWarpsN) * WM, wn0 = (warp % C::kWarpsN) * WN;
  // This thread's rows are wm0 + lm + kLanesM·i; the swizzle term of row r (address bits 7.. of
  // r·kRowBytes) is x ^ row_swizzle(i): chunk g of the row lives at chunk g ^ x ^ row_swizzle(i).
  // (C::row_swizzle_of(wm0 + lm), written out as it was measured: through the helper ptxas
  // orders _r0's address setup differently.)
  const int x = ((wm0 + lm) * C::kRowBytes >> 7) & C::kSwizzleMask;
  const int a_off = (wm0 + lm) * C::kRowBytes;
  const int b_off = C::kABytes + (wn0 + ln * 4) * 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  auto stage_at = [&](int s) { return smem_raw + s * C::kStageBytes; };
  // Group g (k = 4g .. 4g + 3) of the A tile in stage `st`: TM rows × 4 k, one LDS.128 per row.
  auto load_a = [&](float4 (&a)[TM], const unsigned char* st, int g) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const unsigned char* p = st + (g / kChunks) * C::kABoxBytes + a_off + (((g % kChunks) ^ x ^ C::row_swizzle(i)) << 4);
      a[i] = *reinterpret_cast<const float4*>(p + i * C::kLanesM * C::kRowBytes);
    }
  };
  // Step k of the B tile in stage `st`: TN columns, TN / 4 LDS.128.
  auto load_b = [&](float4 (&b)[TN / 4], const unsigned char* st, int k) {
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) b[j] = *reinterpret_cast<const float4*>(st + b_off + (k * BN + j * C::kLanesN * 4) * 4);
  };
  // acc += a[:, kk] ⊗ b: one FFMA per output, each output its own chain in k order. The order of
  // the TM × TN FFMAs within a step is free: A-outer (each A value feeds TN FFMAs in a row) or
  // B-outer (each B value feeds a column of TM FFMAs, rows walked in serpentine order so that the
  // A value at the turn is reused: CUTLASS's SIMT order); it only changes the register operands
  // that consecutive FFMAs share (reuse cache, register banks).
  auto fma_step = [&](const float4 (&a)[TM], const float4 (&b)[TN / 4], int kk) {
    if constexpr (B_OUTER) {
#pragma unroll
      for (int col = 0; col < TN; ++col) {
        const float bv = part(b[col / 4], col % 4);
#pragma unroll
        for (int ii = 0; ii < TM; ++ii) {
          const int i = col % 2 ? TM - 1 - ii : ii;
          acc[i][col] = fmaf(part(a[i], kk), bv, acc[i][col]);
        }
      }
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float av = part(a[i], kk);
#pragma unroll
        for (int col = 0; col < TN; ++col) acc[i][col] = fmaf(av, part(b[col / 4], col % 4), acc[i][col]);
      }
    }
  };
  // Inline producer: thread 0 refills the slot of tile t - kLag, which every warp has (almost
  // surely) left by now, so warp 0 seldom waits at the empty barrier.
  auto produce_inline = [&](int t) {
    if constexpr (!SETMAXNREG) {
      const int next = t - C::kLag + STAGES;
      if (threadIdx.x == 0 && t >= C::kLag && next < tiles) produce(next);
    }
  };

  for (int t = 0, s = 0, phase = 0; t < tiles; ++t) {
    produce_inline(t);
    mbar_wait(full0 + 8 * s, phase);
    const unsigned char* st = stage_at(s);
    if constexpr (TRANSPOSE_A) {  // A as [k][m]: TM / 4 LDS.128 per k, each 4 consecutive rows
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float4 a4[TM / 4];
#pragma unroll
        for (int q = 0; q < TM / 4; ++q)
          a4[q] = *reinterpret_cast<const float4*>(st + (k * BM + wm0 + 4 * lm + 4 * C::kLanesM * q) * 4);
        float4 b[TN / 4];
        load_b(b, st, k);
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          const float av = part(a4[i / 4], i % 4);
#pragma unroll
          for (int col = 0; col < TN; ++col) acc[i][col] = fmaf(av, part(b[col / 4], col % 4), acc[i][col]);
        }
      }
    } else {
#pragma unroll
      for (int g = 0; g < kGroups; ++g) {
        float4 a[TM];
        load_a(a, st, g);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          float4 b[TN / 4];
          load_b(b, st, 4 * g + kk);
          fma_step(a, b, kk);
        }
      }
    }
    if constexpr (TRANSPOSE_A) {
      mbar_arrive(empty0 + 8 * s);  // this thread is done with the stage (see kEmptyArrivals)
    } else {
      __syncwarp();
      if constexpr (CLUSTER) {  // lane r tells CTA r of the cluster (itself included) that this warp is done
        if (lane < CLUSTER_M) mbar_arrive_cluster(map_to_rank(empty0 + 8 * s, lane));
      } else {
        if (lane == 0) mbar_arrive(empty0 + 8 * s);  // this warp is done with the stage
      }
    }
    if (++s == STAGES) s = 0, phase ^= 1;
  }
  // Cluster form: no CTA may leave while a peer can still multicast into its shared memory or
  // arrive on its barriers. This warp's last remote arrive is above, so it arrives now and waits
  // after its stores; every multicast into this CTA has landed (its full barriers completed), and
  // the peers' producers arrive only after issuing their last copy.
  if constexpr (CLUSTER) cluster_arrive();

  // Epilogue: 16-byte stores (N % 4 == 0 and C aligned on this path), rows and columns guarded.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + wm0 + C::row_in_warp(lm, i);
    if (r >= M) break;  // rows grow with i
    float* crow = c + static_cast<std::size_t>(r) * N;
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) {
      const int col = col0 + wn0 + ln * 4 + j * C::kLanesN * 4;
      if (col < N)
        *reinterpret_cast<float4*>(crow + col) = make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
    }
  }
  if constexpr (CLUSTER) cluster_wait();
#endif
}

// ---- host side ------------------------------------------------------------------------------
// cuTensorMapEncodeTiled from the driver, through the runtime (no -lcuda), asked once.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    KL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw std::runtime_error("gemm13: cuTensorMapEncodeTiled not found in the driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A row-major rows × cols float matrix (pitch cols), read in boxes of box_rows × box_cols.
inline CUtensorMap encode_map(const float* p, int rows, int cols, int box_rows, int box_cols, CUtensorMapSwizzle swz) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = tensor_map_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(p), dims, strides, box,
                                          elem, CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // NONE: out-of-bounds reads as zero
  if (r != CUDA_SUCCESS) throw std::runtime_error("gemm13: cuTensorMapEncodeTiled failed (" + std::to_string(int(r)) + ")");
  return map;
}

// Whether the TMA path applies: 16-byte row pitches and bases for A, B and C.
inline bool tma_ok(const GemmArgs<float>& g) {
  return g.K % 4 == 0 && g.N % 4 == 0 && aligned16(g.A) && aligned16(g.B) && aligned16(g.C);
}

#define KL_GEMM13_ARGS BM, BN, BK, WM, WN, TM, TN, STAGES, REGS, B_OUTER, CLUSTER_M, TRANSPOSE_A

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int REGS, bool B_OUTER, int CLUSTER_M = 1, bool TRANSPOSE_A = false>
constexpr auto kernel_for = kernel_tma<KL_GEMM13_ARGS>;

// The fallback for products TMA cannot describe: gemm12 on its measured tile.
struct Fallback {
  static void prepare() { gemm12::prepare<float, 256, 128, 16, 64, 64, 16, 8, 4>(); }
  static void launch(const GemmArgs<float>& g, cudaStream_t s) { gemm12::launch<float, 256, 128, 16, 64, 64, 16, 8, 4>(g, s); }
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int REGS, bool B_OUTER, int CLUSTER_M = 1, bool TRANSPOSE_A = false>
void prepare() {
  using C = Config<KL_GEMM13_ARGS>;
  allow_smem(C::kSmemBytes, {kernel_for<KL_GEMM13_ARGS>});
  Fallback::prepare();
  (void)tensor_map_encoder();  // ask the driver once, outside any timed launch
}

// Only enqueues: encodes the two maps on the host (by value into the kernel's parameters) and
// launches; slabs of at most 65535 tile rows as every gemm launcher (launch_tiled).
// Cluster form: slabs of at most 65535 pairs of tile rows; the grid's x doubles (the pair's two
// CTAs, cluster (CLUSTER_M, 1, 1)) and its y counts pairs, so when a slab has an odd number of
// tile rows the last pair's rank-1 block lies wholly below M: it loads no A, multicasts its half
// of each B tile for its partner and stores nothing (its rows fail the epilogue's r < M).
// B's box is BN × BK / CLUSTER_M: each CTA of the pair loads its part of the k rows.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int REGS, bool B_OUTER, int CLUSTER_M = 1, bool TRANSPOSE_A = false>
void launch(const GemmArgs<float>& g, cudaStream_t s) {
  if (!tma_ok(g)) return Fallback::launch(g, s);
  using C = Config<KL_GEMM13_ARGS>;
  constexpr CUtensorMapSwizzle kSwizzle = C::kABoxK == 32 ? CU_TENSOR_MAP_SWIZZLE_128B
                                          : C::kABoxK == 16 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                            : CU_TENSOR_MAP_SWIZZLE_32B;
  const CUtensorMap map_b = encode_map(g.B, g.K, g.N, C::kBPartK, BN, CU_TENSOR_MAP_SWIZZLE_NONE);
  launch_tiled(g, CLUSTER_M * BM, BN, [&](dim3 grid, const float* A, float* Cp, int M) {
    const CUtensorMap map_a = encode_map(A, M, g.K, BM, C::kABoxK, kSwizzle);
    if constexpr (CLUSTER_M == 1) {
      kernel_for<KL_GEMM13_ARGS><<<grid, C::kThreads, C::kSmemBytes, s>>>(map_a, map_b, Cp, M, g.N, g.K);
    } else {
      KL_CUDA_CHECK(launch_with_cluster(kernel_for<KL_GEMM13_ARGS>, dim3(grid.x * CLUSTER_M, grid.y), dim3(C::kThreads),
                                        dim3(CLUSTER_M), C::kSmemBytes, s, map_a, map_b, Cp, M, g.N, g.K));
    }
  });
}

inline constexpr std::string_view kFeatureTmaMulticast =
    "thread-block clusters and distributed shared memory (TMA multicast, cp.async.bulk.tensor, mbarrier)";

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int REGS, bool B_OUTER, int CLUSTER_M = 1, bool TRANSPOSE_A = false>
GemmVariant<float> variant(std::string_view name) {
  using C = Config<KL_GEMM13_ARGS>;
  constexpr bool kCluster = CLUSTER_M > 1;
  return {.info = {name, "beyond the documents",
                   kCluster      ? "Hopper: gemm13 in clusters of two vertically adjacent tiles; each B tile multicast to the pair by TMA"
                   : TRANSPOSE_A ? "Hopper: TMA tile loads, a producer warpgroup that also transposes A to [k][m], FMA warps that only multiply"
                                 : "Hopper: TMA tile loads into an mbarrier ring, a producer warp, FMA warps that only multiply"},
          .needs = {.compute_capability = 90, .feature = kCluster ? kFeatureTmaMulticast : kFeatureTma,
                    .shared_bytes = C::kSmemBytes, .clusters = kCluster,
                    .kernel = reinterpret_cast<const void*>(kernel_for<KL_GEMM13_ARGS>)},
          .launch = launch<KL_GEMM13_ARGS>,
          .prepare = prepare<KL_GEMM13_ARGS>};
}

#undef KL_GEMM13_ARGS

}  // namespace kl::gemm13
