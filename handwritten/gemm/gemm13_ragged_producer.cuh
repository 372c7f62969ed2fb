// gemm13's ragged producer warpgroup (gemm13_ragged.cuh says why; its kernel runs it): the 128
// threads fill the ring's stages with 4-byte cp.async straight from A and B as they lie in
// memory, A as [k][m] and B as [k][n], zero-filling whatever lies past K, and each arrives on
// full[s] once its own copies have landed.
#pragma once

#include "common/hopper.cuh"
#include "handwritten/gemm/gemm13_config.hpp"
#include "handwritten/gemm/gemm_walk.cuh"

#include <cstddef>

namespace kl::gemm13 {

#if KL_ARCH_AT_LEAST(90)
using namespace hopper;

// The operands as the caller passed them: row-major A (M × K) and B (K × N), any K, N and base.
struct RaggedOperands {
  const float* a;
  const float* b;
  int M, N, K;
};

// The ragged producer warpgroup (thread p = 0..127 of it) over a run of `tiles` k tiles of `walk`
// (SliceWalk or StreamWalk). Per tile t: wait until the FMA warps have left slot s = t % STAGES,
// copy A's and B's elements of the tile into it (Config::ragged_a, ragged_b: which thread copies
// which element), arrive on full[s] behind them.
template <class C, class Walk>
__device__ __forceinline__ void fill_ragged(const RaggedOperands& op, const Ring<C::STAGES>& ring, unsigned smem,
                                            const Walk& walk, int p, int tiles) {
  static_assert(C::RAGGED);
  constexpr int STAGES = C::STAGES;
  // This thread's first element of each operand; the others lie at fixed steps from it: A's rows
  // 4 apart (j) and k 8 apart (c), B's k rows 1 apart (i) and columns 32 apart (q).
  constexpr auto a0 = C::ragged_a(0, 0, 0), b0 = C::ragged_b(0, 0, 0);
  static_assert(a0.row == 0 && a0.col == 0 && b0.row == 0 && b0.col == 0);
  const auto pa = C::ragged_a(p, 0, 0), pb = C::ragged_b(p, 0, 0);
  const unsigned a_dst = (pa.col * C::kAPitch + pa.row) * 4, b_dst = C::kABytes + (pb.row * C::BN + pb.col) * 4;
  auto at = walk.start();
  for (int t = 0, s = 0; t < tiles; ++t, s = s + 1 == STAGES ? 0 : s + 1) {
    // One thread polls; the others sleep at the named barrier, then find the phase complete.
    if (p == 0) ring.wait_released(s, t);
    named_barrier(1, 128);
    if (p != 0) ring.wait_released(s, t);
    const unsigned stage = smem + s * C::kStageBytes;
    const TileAt& x = at.at;
    // Where the tile lies wholly inside K (all but a run's last k tile) every copy is of a real
    // element, at fixed steps from the thread's first: runs of copies with immediate offsets, one
    // instruction each. Rows of A past M and columns of B past N are never zero-filled: they feed
    // only rows and columns of C that are never stored, so A's are read from row M - 1 and B's
    // columns are skipped. Only k past K must be zeros (it adds to every output).
    const bool full_k = x.k + C::BK <= op.K;
    const int ka = x.k + pa.col;
#pragma unroll 1  // rolled, as the edge's rows below: unrolled, the addresses outgrow the warpgroup's registers
    for (int j = 0; j < C::kRaggedARows; ++j) {
      static_assert(C::ragged_a(0, 1, 1).row == 4 && C::ragged_a(0, 1, 1).col == 8, "steps of j and c");
      const float* a = op.a + std::size_t(min(x.row0 + pa.row + 4 * j, op.M - 1)) * op.K + ka;
      const unsigned dst = stage + a_dst + 4 * j * 4;
      if (full_k) {
        cp_async_4_run<C::kRaggedAK, 8 * 4, 8 * C::kAPitch * 4>(dst, a);
      } else {
#pragma unroll
        for (int c = 0; c < C::kRaggedAK; ++c) {
          const bool in = ka + 8 * c < op.K;
          cp_async_4(dst + 8 * c * C::kAPitch * 4, in ? a + 8 * c : op.a, in ? 4 : 0);
        }
      }
    }
    static_assert(C::ragged_b(0, 1, 1).row == 1 && C::ragged_b(0, 1, 1).col == 32, "steps of i and q");
    const int kb = x.k + pb.row, n = x.col0 + pb.col;
    const float* b = op.b + std::size_t(kb) * op.N + n;
    if (full_k && x.col0 + C::BN <= op.N) {
#pragma unroll 1
      for (int i = 0; i < C::kRaggedBK; ++i)
        cp_async_4_run<C::kRaggedBCols, 32 * 4, 32 * 4>(stage + b_dst + i * C::BN * 4, b + std::size_t(i) * op.N);
    } else {
#pragma unroll 1
      for (int i = 0; i < C::kRaggedBK; ++i) {
        const bool row = kb + i < op.K;
#pragma unroll
        for (int q = 0; q < C::kRaggedBCols; ++q)
          if (n + 32 * q < op.N)
            cp_async_4(stage + b_dst + (i * C::BN + 32 * q) * 4, row ? b + std::size_t(i) * op.N + 32 * q : op.b, row ? 4 : 0);
      }
    }
    cp_async_mbar_arrive(ring.full(s));  // this thread's share of stage s, once landed
    at.next();
  }
  cp_async_wait_all();  // nothing of this thread's left in flight when it leaves
}
#endif  // KL_ARCH_AT_LEAST(90)

}  // namespace kl::gemm13
