// gemm12_fragment_prefetch — beyond the documents: gemm9 with its register fragments
// double-buffered, across the k steps of a tile and across the tile boundary.
//
// Lesson: gemm9 loads the fragments of step k (TM values of A, TN of B) and multiplies them; ptxas
// overlaps the loads of one step with the FFMAs of the one before *within* a k tile, but not
// across the barrier that ends it. At each tile boundary a warp waits for its copies, then for
// the block, then for the first shared loads of the new tile (~30 cycles), with no FFMA of its own
// to issue; only another block's warps fill those cycles, and with one block per SM (the
// 128 × 256 tile) nobody does. Here the fragments live in two register sets (CUTLASS's mainloop):
// step k multiplies set k % 2 while the shared loads of step k + 1 fill the other, and the
// barrier that publishes tile t + 1 moves into tile t's last step, so that step's FFMAs (their
// operands are already in registers) cover the first loads of tile t + 1. After that barrier
// every warp is past its last read of tile t, so tile t + STAGES is copied into tile t's slot at
// once: the ring's STAGES slots all hold tiles in flight (gemm9 keeps one slot idle for a tile).
// The price is TM + TN more live registers.
//
// Measured on the H100 (docs/sgemm-ladder.md, "gemm12: fragments across the tile boundary, on
// cuBLAS's tile"): on cuBLAS's tile, 256 × 128 × 16 with 4 stages (8 warps of 64 × 64, 16 × 8
// outputs per thread, one block per SM), it meets the SGEMM target from 2048³ to 8192³, ahead
// of gemm9 on the same tile and of gemm9's best (128 × 128 × 16). On gemm9's tile it is
// *slower* than gemm9: at two blocks per SM (128 registers) the other block already covered the
// boundary, and the second fragment set costs ptxas the registers it scheduled with. ncu
// (4096³): the prefetch raises the issue rate over gemm9's at the same tile, still short of
// cuBLAS's; the FFMA share is cuBLAS's.
//
// Same copies as gemm9 (A transposed element by element, B in 16-byte cp.async), same FMAs in
// the same order: the results are bit-identical to gemm9's at the same tile configuration.
#pragma once

#include "handwritten/gemm/gemm9_pipelined.cuh"

namespace kl::gemm12 {

using namespace gemm_detail;

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool VEC>
__global__ void __launch_bounds__(gemm8::WarpTile<T, BM, BN, BK, WM, WN, TM, TN>::kThreads,
                                  (gemm9::Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>::kMinBlocks))
    kernel_prefetch(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M, int N,
                    int K) {
#if KL_ARCH_AT_LEAST(80)  // cp.async; compiled for older targets as an empty kernel (Requirements)
  using P = gemm9::Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>;
  using W = typename P::W;
  static_assert(BK % 2 == 0, "the fragment set of step 0 is set 0 in every tile");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const smem = reinterpret_cast<T*>(smem_raw);
  const int row0 = BM * blockIdx.y, col0 = BN * blockIdx.x;
  const int tiles = ceil_div(K, BK);

  AsyncCopyA<T, BM, BK, W::LDA, W::kThreads> copy_a(a, M, K, K, row0);
  AsyncCopyB<T, BK, BN, BN, W::kThreads, VEC> copy_b(b, K, N, col0);
  auto slot = [&](int t) { return P::slot(smem, t); };
  auto issue = [&](int t) {  // one commit group per call, empty past the last tile
    if (t < tiles) P::copy_tile(smem, t, copy_a, copy_b);
    cp_async_commit();
  };

  W w;
  T fa[2][TM], fb[2][TN];
  // Step k's fragments from the slot at `as` (A's transposed tile, then B's).
  auto load_frags = [&](T (&ra)[TM], T (&rb)[TN], const T* as, int k) { w.load_fragments(ra, rb, as, as + P::kBOffset, k); };

#pragma unroll
  for (int t = 0; t < STAGES; ++t) issue(t);  // every slot: no tile has been read yet
  cp_async_wait<STAGES - 1>();
  __syncthreads();
  load_frags(fa[0], fb[0], slot(0), 0);
  for (int t = 0; t < tiles; ++t) {
    const T* cur = slot(t);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k == BK - 1) {
        // Groups committed: STAGES + t; tile t + 1 is group t + 1, so STAGES - 2 may be pending.
        cp_async_wait<STAGES - 2>();
        __syncthreads();       // tile t + 1 is everyone's; everyone's last read of tile t is done
        issue(t + STAGES);     // into tile t's slot
      }
      // The next step's fragments: this tile's step k + 1, or the next tile's step 0 (past the
      // last tile that slot holds a stale tile: loaded, never used).
      if (k + 1 < BK) load_frags(fa[(k + 1) % 2], fb[(k + 1) % 2], cur, k + 1);
      else load_frags(fa[0], fb[0], slot(t + 1), 0);
      fma_outer(w.acc, fa[k % 2], fb[k % 2]);
    }
  }
  cp_async_wait<0>();  // leave no copy in flight (the trailing groups are empty)
  w.template store<VEC>(c, M, N, row0, col0);
#endif
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool VEC>
constexpr auto kernel_for = kernel_prefetch<T, BM, BN, BK, WM, WN, TM, TN, STAGES, VEC>;

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
void prepare() {
  allow_smem(gemm9::Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>::kSmemBytes,
             {kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, true>,
              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, false>});
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  gemm9::launch_pair<gemm9::Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>>(
      g, s, kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, true>, kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, false>);
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
GemmVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "gemm9 + register fragments double-buffered across k steps and tile boundaries"},
          .needs = needs_sm80(kFeatureCpAsync, gemm9::Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>::kSmemBytes,
                              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, true>),
          .launch = launch<T, BM, BN, BK, WM, WN, TM, TN, STAGES>,
          .prepare = prepare<T, BM, BN, BK, WM, WN, TM, TN, STAGES>};
}

}  // namespace kl::gemm12
