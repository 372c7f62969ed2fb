// gemm13's FMA warps (every form's kernel, gemm13_tma_warpspecialized.cuh on): the fragment loads
// of one k step from a stage, its FFMAs, and the epilogue. Each kernel keeps the loops over a
// tile's k steps and over the ring, with its waits and arrivals: moved into a function of their
// own they come out of ptxas scheduled differently.
//
// A lands as [m][k] in boxes of 32 k (128-byte rows): a thread reads 4 consecutive k of one of
// its rows with one LDS.128 and keeps TM rows × 4 k in registers for four k steps (hence a thread
// tile of 8 × 16 rather than gemm12's 16 × 8). A warp's lane rows are consecutive rows
// (row = lm + kLanesM·i), and TMA's swizzle puts the same k chunk of 8 consecutive rows into 8
// different bank groups. B lands as gemm12's B, [k][n] with pitch BN. With TRANSPOSE_A the
// stage's A is [k][m] instead (the producer warpgroup rewrote it), read like B.
#pragma once

#include "common/device_helpers.cuh"
#include "handwritten/gemm/gemm13_config.hpp"

#include <cstddef>
#include <cstdint>

namespace kl::gemm13 {

// Element e of a float4 (e a compile-time constant after unrolling: no select remains).
__host__ __device__ __forceinline__ float part(const float4& v, int e) { return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w; }

#if KL_ARCH_AT_LEAST(90)
// One FMA thread's place in the block tile and its shared-memory offsets, which the kernel
// computes (in a constructor ptxas orders _r0's address setup differently): lane (lm, ln) of the
// kLanesM × kLanesN lane grid, warp tile at (wm0, wn0); this thread's rows are
// wm0 + lm + kLanesM·i, and the swizzle term of row r (address bits 7.. of r·kRowBytes) is
// x ^ row_swizzle(i): chunk g of the row lives at chunk g ^ x ^ row_swizzle(i). a_off: its first
// row in an A box; b_off: its first column of B in a stage.
template <class C>
struct FmaWarp {
  static constexpr int BM = C::BM, BN = C::BN, BK = C::BK, TM = C::TM, TN = C::TN;
  static constexpr int kGroups = BK / 4, kChunks = C::kABoxK / 4;  // k groups per tile, 16-byte chunks per A box row
  int lm, ln, wm0, wn0, x, a_off, b_off;

  // Slot s of the ring, in the block's shared memory.
  __device__ __forceinline__ static const unsigned char* stage(const unsigned char* smem_raw, int s) {
    return smem_raw + s * C::kStageBytes;
  }
  __device__ __forceinline__ static void zero(float (&acc)[TM][TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  }

  // Group g (k = 4g .. 4g + 3) of the A tile in stage `st`: TM rows × 4 k, one LDS.128 per row.
  __device__ __forceinline__ void load_a(float4 (&a)[TM], const unsigned char* st, int g) const {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const unsigned char* p = st + (g / kChunks) * C::kABoxBytes + a_off + (((g % kChunks) ^ x ^ C::row_swizzle(i)) << 4);
      a[i] = *reinterpret_cast<const float4*>(p + i * C::kLanesM * C::kRowBytes);
    }
  }
  // Step k of the B tile in stage `st`: TN columns, TN / 4 LDS.128.
  __device__ __forceinline__ void load_b(float4 (&b)[TN / 4], const unsigned char* st, int k) const {
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) b[j] = *reinterpret_cast<const float4*>(st + b_off + (k * BN + j * C::kLanesN * 4) * 4);
  }
  // With TRANSPOSE_A, step k of the [k][m] A tile: TM / 4 LDS.128, each 4 consecutive rows.
  __device__ __forceinline__ void load_a_km(float4 (&a4)[TM / 4], const unsigned char* st, int k) const {
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
      a4[q] = *reinterpret_cast<const float4*>(st + (k * C::kAPitch + wm0 + 4 * lm + 4 * C::kLanesM * q) * 4);
  }
  // acc += a4 ⊗ b (element e of a4[q] is this thread's row 4q + e), in 2 × 2 blocks: column pairs
  // outer; down each pair, row pairs in serpentine order (the turn reuses the last two rows);
  // within a block, column by column. The FFMAs are independent, so their order only steers
  // ptxas's schedule and register assignment; this one ran fastest of the orders measured, ahead
  // of the plain A-outer order, a row of TN FFMAs per A value (docs/sgemm-ladder.md, "The FFMA
  // order of the [k][m] form").
  __device__ __forceinline__ static void fma_step_km(float (&acc)[TM][TN], const float4 (&a4)[TM / 4], const float4 (&b)[TN / 4]) {
    auto ffma = [&](int i, int col) { acc[i][col] = fmaf(part(a4[i / 4], i % 4), part(b[col / 4], col % 4), acc[i][col]); };
#pragma unroll
    for (int jp = 0; jp < TN / 2; ++jp)
#pragma unroll
      for (int ii = 0; ii < TM / 2; ++ii) {
        const int ip = jp % 2 ? TM / 2 - 1 - ii : ii;
        ffma(2 * ip, 2 * jp), ffma(2 * ip + 1, 2 * jp), ffma(2 * ip, 2 * jp + 1), ffma(2 * ip + 1, 2 * jp + 1);
      }
  }
  // acc += a[:, kk] ⊗ b: one FFMA per output, each output its own chain in k order, A-outer (each A
  // value feeds TN FFMAs in a row). The order of the TM × TN FFMAs within a step is free: it only
  // changes the register operands that consecutive FFMAs share (reuse cache, register banks);
  // CUTLASS's B-outer serpentine order ran slower here (docs/sgemm-ladder.md, "gemm13: what
  // Hopper adds to a CUDA-core GEMM").
  __device__ __forceinline__ static void fma_step(float (&acc)[TM][TN], const float4 (&a)[TM], const float4 (&b)[TN / 4], int kk) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const float av = part(a[i], kk);
#pragma unroll
      for (int col = 0; col < TN; ++col) acc[i][col] = fmaf(av, part(b[col / 4], col % 4), acc[i][col]);
    }
  }

  // store, 16-byte where N % 4 == 0 and C is 16-byte aligned, else element by element (the
  // ragged form takes any N and C).
  __device__ __forceinline__ void store_any(const float (&acc)[TM][TN], float* c, int row0, int col0, int M, int N) const {
    if (N % 4 == 0 && reinterpret_cast<std::uintptr_t>(c) % 16 == 0) store(acc, c, row0, col0, M, N);
    else store<false>(acc, c, row0, col0, M, N);
  }
  // The block tile at (row0, col0) of C (M × N), rows and columns guarded: 16-byte stores (VEC: N
  // % 4 == 0 and C aligned), else one element at a time.
  template <bool VEC = true>
  __device__ __forceinline__ void store(const float (&acc)[TM][TN], float* c, int row0, int col0, int M, int N) const {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + wm0 + C::row_in_warp(lm, i);
      if (r >= M) break;  // rows grow with i
      float* crow = c + static_cast<std::size_t>(r) * N;
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const int col = col0 + wn0 + ln * 4 + j * C::kLanesN * 4;
        if constexpr (VEC) {
          if (col < N)
            *reinterpret_cast<float4*>(crow + col) = make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (col + e < N) crow[col + e] = acc[i][4 * j + e];
        }
      }
    }
  }
};
#endif  // KL_ARCH_AT_LEAST(90)

}  // namespace kl::gemm13
