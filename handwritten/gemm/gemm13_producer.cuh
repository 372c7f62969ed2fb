// gemm13's producer (handwritten/gemm/gemm13_tma_warpspecialized.cuh): what fills the ring of
// STAGES slots. Tile t goes to slot s = t % STAGES once the FMA warps have left the tile before it
// there (t - STAGES: the n-th use of a slot waits for the (n - 1)-th completion of empty[s]);
// full[s] completes when the producer has arrived and the stage's bytes have landed.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm_split_plan.hpp"

#include <cstdint>

namespace kl::gemm13 {

// Where the k tile t of a block's run lies: the C tile it adds to, at (row0, col0), and its
// first k (A's column, B's row).
struct TileAt {
  int row0, col0, k;
};

// A block's run over one C tile (unsplit, split-K): k tile t starts at k0 + t·BK (k0: the first
// k of the block's slice; 0 unsplit). A walk's Cursor steps through the run in order (what the
// producer does, tile after tile), start() at k tile 0.
template <int BK>
struct SliceWalk {
  int row0, col0, k0;
  __device__ __forceinline__ TileAt operator()(int t) const { return {row0, col0, k0 + t * BK}; }
  struct Cursor {
    TileAt at;
    __device__ __forceinline__ void next() { at.k += BK; }
  };
  __device__ __forceinline__ Cursor start() const { return {{row0, col0, k0}}; }
};

// A stream-K block's run (gemm_plan::StreamK, here in int): block b of p.blocks, its dp_waves
// data-parallel tiles, then its stream iterations from b·q (gemm_plan::stream_iteration), each
// tile placed in raster_tile_at's order (the order of the unsplit grid's blocks). In 32 bits:
// with 64-bit counts ptxas scheduled the FMA warps' k loop with its shared loads closer to their
// FFMAs than in the unsplit kernel.
template <int BM, int BN, int BK>
struct StreamWalk {
  gemm_plan::StreamKInt p;
  int b;
  __device__ __forceinline__ TileAt at(int tile, int k) const {
    int tm, tn;
    gemm_plan::raster_tile_at<unsigned>(tile, p.tiles_n, p.tiles_m, tm, tn);
    return {BM * tm, BN * tn, BK * k};
  }
  __device__ __forceinline__ TileAt operator()(int t) const {
    int tile, k;
    gemm_plan::stream_iteration<int>(b, t, p.kt, p.dp_waves, p.blocks, p.per_block, tile, k);
    return at(tile, k);
  }
  // In order, without operator()'s divisions per k tile (on the producer's one thread they took
  // longer than the FMA warps' k tile): the tile changes once every kt steps, and the walk is
  // recomputed whole only where the data-parallel tiles end.
  struct Cursor {
    const StreamWalk* w;
    int t, tile, k;
    TileAt at;
    __device__ __forceinline__ void seek() {
      gemm_plan::stream_iteration<int>(w->b, t, w->p.kt, w->p.dp_waves, w->p.blocks, w->p.per_block, tile, k);
      at = w->at(tile, k);
    }
    __device__ __forceinline__ void next() {
      ++t;
      if (t == w->p.dp_waves * w->p.kt) {  // the first stream iteration
        seek();
      } else if (++k == w->p.kt) {  // the next tile: a wave on (data-parallel) or the next one
        k = 0;
        tile += t < w->p.dp_waves * w->p.kt ? w->p.blocks : 1;
        at = w->at(tile, 0);
      } else {
        at.k = BK * k;
      }
    }
  };
  __device__ __forceinline__ Cursor start() const {
    Cursor c{this, 0, 0, 0, {}};
    c.seek();
    return c;
  }
};

#if KL_ARCH_AT_LEAST(90)
using namespace hopper;

// One block's producer state: its maps, barriers, and its run (Walk: SliceWalk or StreamWalk,
// where k tile t lies); `rank` its CTA's rank in the cluster form. Barrier b of the
// full[STAGES], empty[STAGES], staging[kStaging] arrays is at full0 + 8·b.
template <class C, class Walk>
struct Producer {
  static constexpr int BK = C::BK, STAGES = C::STAGES;
  const CUtensorMap* map_a;
  const CUtensorMap* map_b;
  unsigned smem, full0, empty0;
  int M, rank;
  Walk walk;

  // A's part of k tile `at` (BK / kABoxK boxes of kABoxK k, one after the other) to shared
  // address dst, completing on barrier bar.
  __device__ __forceinline__ void copy_a(unsigned dst, unsigned bar, const TileAt& at) const {
#pragma unroll
    for (int h = 0; h < C::kABoxes; ++h) tma_load_2d(dst + h * C::kABoxBytes, map_a, bar, at.k + h * C::kABoxK, at.row0);
  }

  // Tile t, at `at`, into slot t % STAGES (one thread). Cluster form: the slot is free once the FMA warps of
  // every CTA of the cluster have left it (the peers' multicasts write into it too); full[s]
  // expects this CTA's A plus the whole B tile, of which this CTA loads part `rank` (kBPartK rows
  // of k) for all. A padding block (row0 >= M) loads no A: its FMA warps multiply whatever the A
  // slots hold, and its stores are skipped.
  __device__ __forceinline__ void fill(int t, const TileAt& at) const {
    const int s = t % STAGES;
    if constexpr (C::CLUSTER_M > 1) {
      if (t >= STAGES) mbar_wait_cluster(empty0 + 8 * s, ((t / STAGES) & 1) ^ 1);
      const unsigned full = full0 + 8 * s, stage = smem + s * C::kStageBytes;
      const bool a_live = at.row0 < M;
      mbar_arrive_expect_tx(full, (a_live ? C::kABytes : 0) + C::kBBytes);
      if (a_live) copy_a(stage, full, at);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
      tma_load_2d_multicast(stage + C::kABytes + rank * C::kBPartBytes, map_b, full, at.col0, at.k + rank * C::kBPartK,
                            static_cast<std::uint16_t>((1u << C::CLUSTER_M) - 1));
#else  // ptxas advises multicast for sm_90a only: elsewhere every CTA loads all parts itself (same bytes, same barriers)
#pragma unroll
      for (int q = 0; q < C::CLUSTER_M; ++q)
        tma_load_2d(stage + C::kABytes + q * C::kBPartBytes, map_b, full, at.col0, at.k + q * C::kBPartK);
#endif
    } else {
      if (t >= STAGES) mbar_wait(empty0 + 8 * s, ((t / STAGES) & 1) ^ 1);
      const unsigned full = full0 + 8 * s, stage = smem + s * C::kStageBytes;
      mbar_arrive_expect_tx(full, C::kStageBytes);  // whole boxes: the zero fill counts too
      copy_a(stage, full, at);
      tma_load_2d(stage + C::kABytes, map_b, full, at.col0, at.k);
    }
  }

  // The transposing form's producer warpgroup (thread p = 0..127 of it). Every thread transposes;
  // p = 0 also issues the copies. Per tile t: B straight into stage s; A into staging buffer
  // t % NS, from which the warpgroup writes it into stage s as [k][m] and arrives on full[s]
  // (128 arrivals plus B's bytes). TMA cannot transpose 4-byte elements; this warpgroup is
  // otherwise idle.
  __device__ __forceinline__ void transpose_all(int p, unsigned char* smem_raw, int tiles) const {
    static_assert(C::TRANSPOSE_A);
    constexpr int BM = C::BM, NS = C::kStaging, kChunks = C::kABoxK / 4;
    const unsigned staged0 = empty0 + 8 * STAGES;  // the staging buffers' barriers
    auto a_at = walk.start(), b_at = walk.start();  // p = 0's: the next A tile to stage, the next B tile
    auto load_a_staged = [&](int t) {  // t in order
      const unsigned bar = staged0 + 8 * (t % NS), buf = smem + C::kStagingOffset + (t % NS) * C::kABytes;
      mbar_arrive_expect_tx(bar, C::kABytes);
      copy_a(buf, bar, a_at.at);
      a_at.next();
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
        tma_load_2d(smem + s * C::kStageBytes + C::kABytes, map_b, full, b_at.at.col0, b_at.at.k);
        b_at.next();
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
      // write fills one 128-byte line of a [k][m] row. The row's swizzle and addresses are
      // computed once and the chunks' write offsets are immediates, which keeps the warpgroup's
      // share of the issue slots small (index arithmetic per (row, chunk) pair added markedly to
      // the kernel's instructions: docs/sgemm-ladder.md, "gemm13: what Hopper adds to a CUDA-core
      // GEMM").
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
      // The staging buffer read by all before the next copy overwrites it: each thread's proxy
      // fence orders its reads before that TMA write (hopper::release_read_slot), the barrier
      // orders every thread's fence before p = 0 issues it.
      fence_proxy_async_shared();
      named_barrier(1, 128);
      if (p == 0 && t + NS < tiles) load_a_staged(t + NS);
      mbar_arrive(full);  // this thread's share of stage s written (release)
    }
  }
};
#endif  // KL_ARCH_AT_LEAST(90)

}  // namespace kl::gemm13
