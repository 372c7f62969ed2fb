// gemm11_dmma — beyond the documents: DGEMM on the FP64 tensor cores (double only).
//
// Lesson: every step before this one multiplies on the FP64 FMA units, 64 lanes per SM on the
// H100 (their peak: lanes × SMs × clock); gemm9 reaches most of it, and cublasDgemm runs above it
// because it uses the FP64 tensor cores (DMMA, twice that peak: 128 FP64 multiply-adds per SM per
// clock; the measured rates are in docs/sgemm-ladder.md, "Double precision"). They are full IEEE
// FP64: every product exact, every sum rounded to nearest double, so the same
// gamma(K)·(|A|·|B|) bound holds and the exact-input check still demands equality.
//
// The data path changes. An FMA kernel gives each *thread* its own outputs and feeds them from
// registers it loaded itself. `mma.sync.aligned.m16n8k{4,8,16}.row.col.f64` is one instruction
// of a whole *warp*: D (16 × 8) += A (16 × k) · B (k × 8), with the operands spread over the
// 32 lanes in a fixed pattern (PTX ISA, "Matrix Fragments for mma.m16n8k*"; groupID g =
// lane / 4, t = lane % 4):
//   A fragment, k/2 doubles a_i:   row g + 8·(i mod 2),  column (k index) t + 4·(i / 2)
//   B fragment, k/4 doubles b_i:   row (k index) t + 4·i, column g
//   C/D fragment, 4 doubles c_e:   row g + 8·(e / 2),     column 2t + (e mod 2)
// So the lanes of a warp must load their A and B elements from shared memory in that pattern
// and keep their 4 outputs per 16 × 8 tile where the instruction puts them. Hopper assembles
// all three shapes (k = 4, 8, 16) to single instructions (nvcc 13, sm_90: DMMA.16x8x4,
// DMMA.16x8x8, DMMA.16x8x16; sm_80's m8n8k4 is DMMA.8x8x4, which a build for sm_80 uses
// instead); the shape is a template parameter, so compare can measure which feeds the tensor
// cores best.
//
// A warp tile of WM × WN is (WM/16) × (WN/8) such instructions per k step; 128 × 128 blocks of 8
// warps with 64 × 32 warp tiles keep 64 doubles of C per thread (128 registers), one block per
// SM. The tiles arrive by the cp.async ring of gemm9, both untransposed and in 16-byte copies: A
// as as[m][k], B as bs[k][n] (for A·Aᵀ, A's rows again as [n][k]: the "col" operand the
// instruction wants is exactly a row of A).
//
// Conflict-free fragment loads, by padding. A 64-bit shared load by 32 lanes is served as two
// half-warps of 16 lanes × 8 bytes = 128 bytes, one wavefront each if the 16 addresses fall in
// 16 different 8-byte bank pairs (pair = double index mod 16). An A fragment load reads rows g
// (0..3 in a half-warp) at columns t (0..3) + const: with a row pitch P, pair = (g·P + t) mod 16.
// P = BK = 16 puts all four rows on the same pairs (a 4-way conflict); P = BK + 4 = 20 gives
// 4g + t, sixteen different pairs (P = 12 for BK = 8 gives 12g + t mod 16 = {0, 12, 8, 4} + t:
// also distinct). B in [k][n] is read at rows t, columns g: pair = (t·P + g) mod 16, with
// P = BN + 4 ≡ 4 (mod 16) again 4t + g: distinct (lanes 16-31 read g = 4..7: 4t + g covers
// 4..19, still 16 distinct pairs mod 16). The padding keeps rows 16-byte aligned (160 and 1056
// bytes), so the cp.async chunks stay legal, and a warp's 16-byte copies fill whole rows:
// conflict-free on the write side too. ncu should show ~0 shared-load bank conflicts
// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld) and the tensor pipe
// (sm__pipe_fp64_cycles_active / sm__inst_executed_pipe_dmma or the "tensor (FP64)" row of the
// compute workload section) busy most of the time, and most of cublasDgemm's rate reached
// (the prediction). What the H100 measured (the best configurations close in on cuBLAS; the
// shared-load conflicts are not the gap, fewer than cuBLAS's) is in docs/sgemm-ladder.md,
// "gemm11: DGEMM on the FP64 tensor cores".
//
// The block order is gemm10's (gemm_schedule.cuh): bands of 8 tile rows; split-K by blockIdx.z.
// Where C's rows are 16-byte aligned (N even), C goes from the accumulators straight to global
// memory (store_fragment_pairs), as cuBLAS's DMMA kernels write theirs: a fragment's lane holds
// two adjacent outputs of a row, one 16-byte store, so staging the tile in shared memory to
// write whole rows by consecutive lanes (gemm10's StagedTile) buys no fuller sectors and costs
// two barriers, a shared-memory round trip and the puts' bank conflicts, a large share of a
// block's time on products of few k tiles. Staged: rows that are not 16-byte aligned (there the
// pair is two 8-byte stores that fill each sector in halves, slower than whole rows) and A·Aᵀ's
// triangle (the mirror needs the tile whole). stream-K's partial tiles go to the workspace the
// same way (gemm11_dmma_prefetch.cuh), as do gemm14's tiles (gemm14_dmma_tma.cuh).
// Edges: any M, N, K >= 1; 8-byte copies when a row is not 16-byte aligned (K or N odd), zero
// fill past the edges, guarded stores; the fragments and the order of the products do not
// depend on the copy path, so both paths give bit-identical results.
#pragma once

#include "handwritten/gemm/gemm_schedule.cuh"
#include "handwritten/gemm/gemm_tiles.cuh"

namespace kl::gemm11 {

using namespace gemm_detail;
// Which element of a fragment a lane holds (gemm_layouts.hpp; the host suite checks that each
// fragment covers its tile once and that the loads below are conflict-free).
using gemm_plan::dmma_a_col;
using gemm_plan::dmma_a_row;
using gemm_plan::dmma_b_col;
using gemm_plan::dmma_b_row;
using gemm_plan::dmma_c_col;
using gemm_plan::dmma_c_row;

// d += a·b, one m16 n8 kK DMMA of the warp (fragments as in the header). Hopper (sm_90) has the
// three shapes as instructions; sm_80 (A100) only m8n8k4, so there the same fragments go through
// 2·K/4 of those: rows 0-7 of the 16 × 8 tile hold a[2s], c0 and c1; rows 8-15 hold a[2s + 1],
// c2 and c3; k step s takes b[s] (the m16n8k* layouts stack two m8n8k4 layouts exactly so).
__device__ __forceinline__ void dmma_m8n8k4(double& d0, double& d1, double a, double b) {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                                       : "+d"(d0), "+d"(d1)
                                       : "d"(a), "d"(b));))
}

template <int K>
__device__ __forceinline__ void dmma(double (&d)[4], const double (&a)[K / 2], const double (&b)[K / 4]) {
#if __CUDA_ARCH__ >= 900
  if constexpr (K == 4) {
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  } else if constexpr (K == 8) {
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else {
    static_assert(K == 16, "m16n8k4, k8 or k16");
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
        "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
#else
#pragma unroll
  for (int s = 0; s < K / 4; ++s) {
    dmma_m8n8k4(d[0], d[1], a[2 * s], b[s]);
    dmma_m8n8k4(d[2], d[3], a[2 * s + 1], b[s]);
  }
#endif
}

// How the second operand is stored: B, K × N row-major (gemm), or N × K row-major (A·Aᵀ: A's
// own buffer, whose rows are the columns of Aᵀ).
enum class BLayout { kn, nk };

template <int BM_, int BN_, int BK_, int WM, int WN, int STAGES_, int MMA_K_, BLayout BL>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, MMA_K = MMA_K_;
  static constexpr int kWarpsN = BN / WN, kThreads = 32 * (BM / WM) * kWarpsN;
  static constexpr int kFragM = WM / 16, kFragN = WN / 8;  // DMMA tiles per warp tile
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "whole DMMA tiles");
  static_assert(BK % MMA_K == 0 && (MMA_K == 4 || MMA_K == 8 || MMA_K == 16), "k steps");
  static constexpr int PK = BK + gemm_plan::kDmmaPad;  // pitch of a [row][k] tile (A; B for A·Aᵀ)
  static constexpr int PN = BN + gemm_plan::kDmmaPad;  // pitch of B's [k][n] tile
  // The bank arithmetic of the header: both pitches ≡ 4 or 12 (mod 16 doubles).
  static_assert(PK % 8 == 4 && PN % 16 == 4, "conflict-free fragment loads");
  static constexpr int kAElems = BM * PK;
  static constexpr int kBElems = BL == BLayout::kn ? BK * PN : BN * PK;
  static constexpr int kStageElems = kAElems + kBElems;
  using Staged = StagedTile<double, BM, BN, kThreads>;
  static constexpr std::size_t kSmemBytes =
      std::max(std::size_t(STAGES) * kStageElems * sizeof(double), Staged::kBytes);
  // 64 × 32 warp tiles hold 64 accumulators (128 registers) a thread: one 8-warp block per SM.
  // 32 × 32 ones hold 32: two blocks of 4 warps.
  static constexpr int kMinBlocks = kFragM * kFragN * 4 <= 32 ? 2 : 1;
};

// A warp tile's accumulators set to zero (element by element: `= {}` changed the SASS of some
// tiles). gemm11's blocks and gemm14 share it.
template <int FM, int FN>
__device__ __forceinline__ void zero_fragments(double (&acc)[FM][FN][4]) {
#pragma unroll
  for (int mi = 0; mi < FM; ++mi)
#pragma unroll
    for (int ni = 0; ni < FN; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0;
}

// A warp tile's accumulators into a staged C tile (a StagedTile's put), in the fragments' C
// layout: fragment (mi, ni) of the warp tile at (wm, wn). gemm11's blocks and gemm14 share it.
template <class Staged, int FM, int FN>
__device__ __forceinline__ void put_fragments(double* cs, const double (&acc)[FM][FN][4], int wm, int wn, int g, int q) {
#pragma unroll
  for (int mi = 0; mi < FM; ++mi)
#pragma unroll
    for (int ni = 0; ni < FN; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        Staged::put(cs, wm + mi * 16 + dmma_c_row(g, e), wn + ni * 8 + dmma_c_col(q, e), acc[mi][ni][e]);
}

// Whether every row of a C of pitch ld doubles starting at c begins on a 16-byte boundary.
__device__ __forceinline__ bool rows_aligned16(const double* c, std::size_t ld) { return ld % 2 == 0 && aligned16(c); }

// A warp's accumulators straight from registers into dst (rows × cols of pitch ld, every row
// 16-byte aligned: rows_aligned16), the warp's tile at (wm, wn). A fragment's elements e and
// e + 1 (e even) are adjacent outputs of one row (dmma_c_row, dmma_c_col), one 16-byte store; a
// warp's store covers 8 rows × 64 bytes, whole 32-byte sectors, as cuBLAS's DMMA kernels write C.
// No shared memory and no barrier: the ring's last reads need not be waited for. Where rows are
// not 16-byte aligned the pair would be two 8-byte stores, each instruction filling every other
// element of its sectors, which the L2 takes in halves (and reads back from DRAM in part): slower
// than a staged tile's whole rows. cols is even (the pitch is), so a pair is inside dst whole or
// not at all.
template <int FM, int FN>
__device__ __forceinline__ void store_fragment_pairs(const double (&acc)[FM][FN][4], double* dst, std::size_t ld,
                                                     int rows, int cols, int wm, int wn, int g, int q) {
#pragma unroll
  for (int mi = 0; mi < FM; ++mi)
#pragma unroll
    for (int e = 0; e < 4; e += 2) {
      const int r = wm + mi * 16 + dmma_c_row(g, e);
      if (r >= rows) continue;
      double* const p = dst + static_cast<std::size_t>(r) * ld + wn + dmma_c_col(q, e);
#pragma unroll
      for (int ni = 0; ni < FN; ++ni)
        if (wn + ni * 8 + dmma_c_col(q, e) < cols)
          *reinterpret_cast<double2*>(p + ni * 8) = make_double2(acc[mi][ni][e], acc[mi][ni][e + 1]);
    }
}

// A warp's accumulators into the C tile w names (C of N columns, its rows 16-byte aligned):
// store_fragment_pairs over the part of the tile inside M × N.
template <int FM, int FN>
__device__ __forceinline__ void store_tile_pairs(const double (&acc)[FM][FN][4], double* c, int M, int N,
                                                 const BlockWork& w, int wm, int wn, int g, int q) {
  store_fragment_pairs(acc, c + static_cast<std::size_t>(w.row0) * N + w.col0, static_cast<std::size_t>(N),
                       M - w.row0, N - w.col0, wm, wn, g, q);
}

// The pieces of a DMMA block that do not depend on its schedule, shared with gemm11_pf (the same
// tiles with prefetched fragments, gemm11_dmma_prefetch.cuh): the two tile copies, a warp's
// place, its fragments of one k step, and the epilogue.
template <class C, BLayout BL, bool VEC>
struct Block {
  static constexpr int kThreads = C::kThreads, kWM = C::kFragM * 16, kWN = C::kFragN * 8;  // warp tile
  // A's tile [m][k]; B's [k][n] (gemm) or [n][k] (A·Aᵀ: rows of A), k from the block's slice.
  using CopyA = AsyncCopyK<double, C::BM, C::BK, kThreads, VEC, PaddedRows<C::PK>>;
  using CopyB = std::conditional_t<BL == BLayout::kn, AsyncCopyB<double, C::BK, C::BN, C::PN, kThreads, VEC>,
                                   AsyncCopyK<double, C::BN, C::BK, kThreads, VEC, PaddedRows<C::PK>>>;
  CopyA copy_a;
  CopyB copy_b;
  int g, q, wm, wn;  // the lane's group and thread in group; the warp's tile origin

  __device__ __forceinline__ Block(const double* a, const double* b, int M, int N, int K, const BlockWork& w)
      : copy_a(a + w.kb, M, w.kl, K, w.row0), copy_b(make_copy_b(b, N, K, w)) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    g = lane / 4;
    q = lane % 4;
    wm = (warp / C::kWarpsN) * kWM;
    wn = (warp % C::kWarpsN) * kWN;
  }
  __device__ __forceinline__ static CopyB make_copy_b(const double* b, int N, int K, const BlockWork& w) {
    if constexpr (BL == BLayout::kn) return CopyB(b + static_cast<std::size_t>(w.kb) * N, w.kl, N, w.col0);
    else return CopyB(b + w.kb, N, w.kl, K, w.col0);
  }

  __device__ __forceinline__ static void zero(double (&acc)[C::kFragM][C::kFragN][4]) { zero_fragments(acc); }

  // Tile t (its k at t·BK) into `slot`.
  __device__ __forceinline__ void copy(double* slot, int t) {
    copy_a.copy(slot, t * C::BK);
    copy_b.copy(slot + C::kAElems, t * C::BK);
  }

  // Step kk's fragments of the stage at `as`, in the lane pattern of the header.
  __device__ __forceinline__ void load_fragments(double (&fa)[C::kFragM][C::MMA_K / 2], double (&fb)[C::kFragN][C::MMA_K / 4],
                                                 const double* as, int kk) const {
    const double* bs = as + C::kAElems;
#pragma unroll
    for (int mi = 0; mi < C::kFragM; ++mi)
#pragma unroll
      for (int i = 0; i < C::MMA_K / 2; ++i)
        fa[mi][i] = as[(wm + mi * 16 + dmma_a_row(g, i)) * C::PK + kk + dmma_a_col(q, i)];
#pragma unroll
    for (int ni = 0; ni < C::kFragN; ++ni)
#pragma unroll
      for (int i = 0; i < C::MMA_K / 4; ++i)
        fb[ni][i] = BL == BLayout::kn ? bs[(kk + dmma_b_row(q, i)) * C::PN + wn + ni * 8 + dmma_b_col(g)]
                                      : bs[(wn + ni * 8 + dmma_b_col(g)) * C::PK + kk + dmma_b_row(q, i)];
  }

  // After the last tile: the ring becomes the C tile, the accumulators staged in it in the
  // fragments' C layout.
  __device__ __forceinline__ void stage(double* smem, const double (&acc)[C::kFragM][C::kFragN][4]) const {
    cp_async_wait<0>();
    __syncthreads();
    put_fragments<typename C::Staged>(smem, acc, wm, wn, g, q);
    __syncthreads();
  }
  // The block's outputs into C: straight from the accumulators where C's rows are 16-byte
  // aligned (store_fragment_pairs); staged where they are not (N odd), and for a triangle's tile
  // (its mirror needs the tile whole). The test is the same for every block of a launch, so the
  // stage's barriers are reached by all or by none.
  template <bool TRIANGLE>
  __device__ __forceinline__ void store(double* smem, const double (&acc)[C::kFragM][C::kFragN][4], double* c, int M,
                                        int N, const BlockWork& w) const {
    if constexpr (!TRIANGLE) {
      if (rows_aligned16(c, static_cast<std::size_t>(N)))
        return store_tile_pairs(acc, c, M, N, w, wm, wn, g, q);
    }
    stage(smem, acc);
    C::Staged::template store_tile<TRIANGLE>(smem, c, M, N, w);
  }
};

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, BLayout BL, bool VEC, bool TRIANGLE>
__global__ void __launch_bounds__((Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kThreads),
                                  (Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kMinBlocks))
    kernel_dmma(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, int M,
                int N, int K, int k_split, std::size_t split_stride) {
#if KL_ARCH_AT_LEAST(80)  // FP64 tensor-core mma.sync and cp.async; compiled for older targets as an empty kernel (Requirements)
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  double* const smem = reinterpret_cast<double*>(smem_raw);

  BlockWork w;  // the C tile and the slice of k
  if (!block_work<BM, BN, TRIANGLE>(M, K, k_split, w)) return;
  c += blockIdx.z * split_stride;
  const int tiles = ceil_div(w.kl, BK);

  Block<C, BL, VEC> blk(a, b, M, N, K, w);
  auto issue = [&](int t) {
    if (t < tiles) blk.copy(smem + (t % STAGES) * C::kStageElems, t);
    cp_async_commit();
  };

  double acc[C::kFragM][C::kFragN][4];
  blk.zero(acc);

#pragma unroll
  for (int t = 0; t < STAGES - 1; ++t) issue(t);
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of tile t have landed ...
    __syncthreads();              // ... and everyone's; everyone is also done with tile t - 1
    issue(t + STAGES - 1);
    const double* as = smem + (t % STAGES) * C::kStageElems;
#pragma unroll
    for (int kk = 0; kk < BK; kk += MMA_K) {
      double fa[C::kFragM][MMA_K / 2], fb[C::kFragN][MMA_K / 4];
      blk.load_fragments(fa, fb, as, kk);
#pragma unroll
      for (int mi = 0; mi < C::kFragM; ++mi)
#pragma unroll
        for (int ni = 0; ni < C::kFragN; ++ni) dmma<MMA_K>(acc[mi][ni], fa[mi], fb[ni]);
    }
  }
  blk.template store<TRIANGLE>(smem, acc, c, M, N, w);
#endif
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, BLayout BL, bool VEC, bool TRIANGLE>
constexpr auto kernel_for = kernel_dmma<BM, BN, BK, WM, WN, STAGES, MMA_K, BL, VEC, TRIANGLE>;

// Past 48 KiB a kernel must opt in to dynamic shared memory (set once, outside the timed launch).
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K, BLayout BL = BLayout::kn,
          bool TRIANGLE = false>
void prepare() {
  allow_smem(Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BL>::kSmemBytes,
             {kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, BL, true, TRIANGLE>,
              kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, BL, false, TRIANGLE>});
  splitk_reduce_programmatic_here<double>();
}

// C = A·B in `splits` slices of k (see launch_split_k); `splits` must match workspace_bytes.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void launch_split(const GemmArgs<double>& g, int splits, cudaStream_t s) {
  using C = Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>;
  const auto kernel = vec_io_ok(g, /*need_a=*/true)
                          ? kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn, true, false>
                          : kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn, false, false>;
  launch_split_k(g, BM, BN, BK, splits, kernel, C::kThreads, C::kSmemBytes, s);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
void launch(const GemmArgs<double>& g, cudaStream_t s) {
  launch_split<BM, BN, BK, WM, WN, STAGES, MMA_K>(g, 1, s);
}

// One configuration as a (double) variant; `name` spells it (a string literal).
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
GemmVariant<double> variant(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "FP64 tensor cores: mma.sync m16n8k* f64 fragments from padded (conflict-free) cp.async "
                   "tiles"},
          .needs = needs_sm80(kFeatureFp64Mma, Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kSmemBytes,
                              kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn, true, false>),
          .launch = launch<BM, BN, BK, WM, WN, STAGES, MMA_K>,
          .prepare = prepare<BM, BN, BK, WM, WN, STAGES, MMA_K>};
}

// The same configuration with k split where its tiles alone would not fill the GPU
// (splitk_splits: one block per SM of the 8-warp tile, which holds the whole register file; two
// of the 4-warp one), as gemm10::variant_splitk.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
int splits(GemmShape sh, long long fill_sms = gemm_plan::kFillSMs) {
  return splitk_splits(sh, BM, BN, BK, Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kMinBlocks, fill_sms);
}
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MMA_K>
GemmVariant<double> variant_splitk(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "gemm11 + split-K: slices of k in blockIdx.z, partial tiles in the workspace, an ordered "
                   "reduction (no atomics)"},
          .needs = needs_sm80(kFeatureFp64Mma, Config<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn>::kSmemBytes,
                              kernel_for<BM, BN, BK, WM, WN, STAGES, MMA_K, BLayout::kn, true, false>),
          .launch = [](const GemmArgs<double>& g, cudaStream_t s) {
            launch_split<BM, BN, BK, WM, WN, STAGES, MMA_K>(g, splits<BM, BN, BK, WM, WN, STAGES, MMA_K>({g.M, g.N, g.K}), s);
          },
          .workspace_bytes = [](GemmShape sh) {
            return splitk_workspace<double>(sh, splits<BM, BN, BK, WM, WN, STAGES, MMA_K>(sh), BK);
          },
          .rounding_depth = [](GemmShape sh) {
            return splitk_depth(sh.K, splits<BM, BN, BK, WM, WN, STAGES, MMA_K>(sh), BK);
          },
          .prepare = prepare<BM, BN, BK, WM, WN, STAGES, MMA_K>};
}

}  // namespace kl::gemm11
