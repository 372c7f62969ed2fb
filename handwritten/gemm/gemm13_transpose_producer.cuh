// gemm13's transposing producer warpgroup (gemm13_transpose_a.cuh says why it transposes; its
// kernel and the stream-K form's run it): TMA lands each A tile as [m][k] in a staging buffer, the
// warpgroup's 128 threads rewrite it into the stage as [k][m] and arrive on full[s] themselves.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm13_producer.cuh"

namespace kl::gemm13 {

#if KL_ARCH_AT_LEAST(90)
// The transposing producer warpgroup (thread p = 0..127 of it) over a run of `tiles` k tiles.
// Every thread transposes; p = 0 also issues the copies. Per tile t: B straight into stage s; A
// into staging buffer t % NS, from which the warpgroup writes it into stage s as [k][m] and
// arrives on full[s].
template <class C, class Walk>
__device__ __forceinline__ void transpose_all(const Producer<C, Walk>& pr, int p, unsigned char* smem_raw, int tiles) {
  static_assert(C::TRANSPOSE_A);
  constexpr int BM = C::BM, STAGES = C::STAGES, NS = C::kStaging, kChunks = C::kABoxK / 4;
  const Ring<STAGES>& ring = pr.ring;
  auto a_at = pr.walk.start(), b_at = pr.walk.start();  // p = 0's: the next A tile to stage, the next B tile
  auto load_a_staged = [&](int t) {  // t in order
    const unsigned bar = ring.extra(t % NS), buf = pr.smem + C::kStagingOffset + (t % NS) * C::kABytes;
    mbar_arrive_expect_tx(bar, C::kABytes);
    pr.copy_a(buf, bar, a_at.at);
    a_at.next();
  };
  if (p == 0)
    for (int t = 0; t < NS && t < tiles; ++t) load_a_staged(t);
  for (int t = 0, s = 0; t < tiles; ++t, s = s + 1 == STAGES ? 0 : s + 1) {
    const unsigned full = ring.full(s), staged = ring.extra(t % NS);
    const unsigned staged_parity = (t / NS) & 1;
    // One thread polls; the others sleep at the named barrier, then find both phases complete
    // (their own waits only acquire: no polling warps on the FMA warps' schedulers).
    if (p == 0) {
      ring.wait_released(s, t);
      mbar_expect_tx(full, C::kBBytes);  // before any arrive of this phase: p = 0 arrives below
      tma_load_2d(pr.smem + s * C::kStageBytes + C::kABytes, pr.map_b, full, b_at.at.col0, b_at.at.k);
      b_at.next();
      mbar_wait(staged, staged_parity);
    }
    named_barrier(1, 128);
    if (p != 0) {
      ring.wait_released(s, t);
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
#endif  // KL_ARCH_AT_LEAST(90)

}  // namespace kl::gemm13
