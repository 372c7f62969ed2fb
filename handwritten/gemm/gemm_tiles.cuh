// Tile movers shared by the SGEMM steps beyond the documents (gemm7 … gemm11): global → shared
// copies of an A tile (stored transposed, gemm7-9; as it is, gemm10-11) and a B tile, in 16-byte
// vectors (common/device_helpers.cuh) or element by element, with or without cp.async, and the
// edge rules of gemm_common.cuh (zeros outside the matrix, guarded stores).
//
// Why gemm7-9 store A transposed: a thread of the register-blocked kernels needs, for one k, TM
// consecutive rows of A and TN consecutive columns of B. With As[k][m] both are contiguous in
// shared memory and come in 16-byte loads (LDS.128), instead of TM scalar loads with a stride.
// The price is the copy (a 16-byte cp.async cannot transpose), which gemm10 stops paying: it
// keeps A as it is and reads 4 k of a row per LDS.128 (AsyncCopyK, SwizzledRows).
//
// Why there are two paths: a 16-byte vector of a row-major matrix is aligned only when the
// row length is a multiple of the vector width (and the base pointer is aligned). Every launcher
// checks that with `vec_io_ok` and otherwise runs the same kernel with element-wise copies, so
// odd shapes (N = 4095, K = 17) stay correct; only the fast path needs the alignment.
//
// Tiles are described by their origin in the matrix; elements outside it are written as zero,
// so the k loop of every kernel runs over whole tiles.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"
#include "handwritten/gemm/gemm_layouts.hpp"

#include <nv/target>

#include <cstdint>

namespace kl::gemm_detail {

// Calls f(v) for the items v = threadIdx.x, + THREADS, ... below TOTAL: the share of a block's
// THREADS threads in TOTAL items (tile elements or vectors), as a loop with a compile-time trip
// count so it unrolls.
template <int TOTAL, int THREADS, class F>
__device__ __forceinline__ void for_each_item(F&& f) {
#pragma unroll
  for (int i = 0; i < ceil_div(TOTAL, THREADS); ++i) {
    const int v = threadIdx.x + i * THREADS;
    if (TOTAL % THREADS != 0 && v >= TOTAL) break;
    f(v);
  }
}

// Whether 16-byte global accesses are legal for this product: every row of A (when `need_a`), B
// and C starts on a 16-byte boundary.
template <class T>
bool vec_io_ok(const GemmArgs<T>& g, bool need_a) {
  const bool a_ok = !need_a || (g.K % kVec<T> == 0 && aligned16(g.A));
  return a_ok && g.N % kVec<T> == 0 && aligned16(g.B) && aligned16(g.C);
}

// Copies the BM × BK tile of A at (row0, k0) into as[k][m] (row pitch LDA), through registers.
// Element i of the tile goes to thread i mod THREADS: consecutive threads read consecutive k of
// one row (one 32-byte sector per 8 floats), and with LDA = BM + kVec the transposed stores of
// a warp fall in distinct banks.
template <class T, int BM, int BK, int LDA, int THREADS, bool VEC>
__device__ __forceinline__ void load_a_transposed(T* as, const T* __restrict__ a, int M, int K,
                                                  int row0, int k0) {
  constexpr int V = VEC ? kVec<T> : 1;
  static_assert(BK % V == 0, "BK must be a multiple of the vector width");
  for_each_item<BM * BK / V, THREADS>([&](int v) {
    const int r = v / (BK / V), c = (v % (BK / V)) * V;
    T e[V];
    if constexpr (VEC) {
      // K is a multiple of V, so the vector is wholly inside or wholly outside the row.
      if (row0 + r < M && k0 + c < K) {
        load_vec(e, a + static_cast<std::size_t>(row0 + r) * K + k0 + c);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) e[j] = T(0);
      }
    } else {
      e[0] = load_or_zero(a, M, K, row0 + r, k0 + c);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) as[(c + j) * LDA + r] = e[j];
  });
}

// Copies the BK × BN tile of B at (k0, col0) into bs[k][n] (row pitch LDB), through registers.
template <class T, int BK, int BN, int LDB, int THREADS, bool VEC>
__device__ __forceinline__ void load_b(T* bs, const T* __restrict__ b, int K, int N, int k0,
                                       int col0) {
  constexpr int V = VEC ? kVec<T> : 1;
  static_assert(BN % V == 0, "BN must be a multiple of the vector width");
  for_each_item<BK * BN / V, THREADS>([&](int v) {
    const int r = v / (BN / V), c = (v % (BN / V)) * V;
    if constexpr (VEC) {
      T e[V];
      if (k0 + r < K && col0 + c < N) {
        load_vec(e, b + static_cast<std::size_t>(k0 + r) * N + col0 + c);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) e[j] = T(0);
      }
      store_vec(bs + r * LDB + c, e);
    } else {
      bs[r * LDB + c] = load_or_zero(b, K, N, k0 + r, col0 + c);
    }
  });
}

// Stores W consecutive elements v[0, W) of row `row` of C from column `col` (W = kVec when VEC,
// and then col is a multiple of kVec and N too, so the vector is wholly in or out of C).
template <class T, int W, bool VEC>
__device__ __forceinline__ void store_c(T* __restrict__ c, int M, int N, int row, int col,
                                        const T* v) {
  if constexpr (VEC) {
    static_assert(W % kVec<T> == 0);
    if (row >= M) return;
#pragma unroll
    for (int j = 0; j < W; j += kVec<T>)
      if (col + j < N) store_vec(c + static_cast<std::size_t>(row) * N + col + j, v + j);
  } else {
#pragma unroll
    for (int j = 0; j < W; ++j) store_if_inside(c, M, N, row, col + j, v[j]);
  }
}

// ---- cp.async (sm_80+): global → shared without passing through registers ------------------
// `bytes` < `size` zero-fills the rest of the destination (the edge rule without a branch
// around the copy); the source pointer must still be a valid address, so callers pass the
// matrix base for copies that read nothing.
// The kernels that call these guard their bodies for 8.0 (KL_ARCH_AT_LEAST); the primitives
// say so too, in CCCL's idiom, so that nothing here is an error for a 7.5 target.
template <int SIZE>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int bytes) {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    if constexpr (SIZE == 16) {  // .cg: bypass L1; the tile is reused from shared memory
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem), "n"(SIZE),
                   "r"(bytes));
    }
  ))
}
__device__ __forceinline__ void cp_async_commit() {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.commit_group;\n" ::);))
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_group %0;\n" ::"n"(N));))
}

// The per-thread state of a stream of cp.async tile copies (gemm9). A block walks its k tiles
// in order, so everything that does not change from one tile to the next (which elements this
// thread copies, where they go in shared memory, which rows or columns are inside the matrix)
// is computed once here; a tile then costs one predicate, one address step and one cp.async
// per copy. (Written naively, with indices and bounds recomputed per element as in
// load_a_transposed, the copy code was ~140 instructions per thread and 16-deep tile against
// 1024 FFMAs.) Copies outside the matrix read nothing, zero-fill, and point at the base.
// A's copy, AsyncCopyA, is AsyncCopyK below with the tile stored transposed.

// B: successive BK × BN tiles at (k0 = 0, BK, ..., col0), stored as they are, bs[k][n] (pitch
// LDB); 16-byte copies when VEC (N a multiple of the vector, aligned rows), element-sized ones
// otherwise. Thread t copies the vector at column c = (t mod (BN/V))·V of rows r,
// r + THREADS/(BN/V), ...
template <class T, int BK, int BN, int LDB, int THREADS, bool VEC>
struct AsyncCopyB {
  static constexpr int V = VEC ? kVec<T> : 1, kVecsPerRow = BN / V;
  static_assert(THREADS % kVecsPerRow == 0 && (BK * kVecsPerRow) % THREADS == 0,
                "whole rows per thread pass");
  static constexpr int kPer = BK * kVecsPerRow / THREADS, kRowStep = THREADS / kVecsPerRow;
  const T* base;
  const T* src;       // &B[r][col0 + c] (k0 = 0)
  std::size_t ld;     // N, the row pitch of B
  std::size_t step;   // kRowStep rows of B
  bool col_in;        // the vector is inside B (wholly, when VEC)
  int r, K, dst;

  __device__ __forceinline__ AsyncCopyB(const T* b, int K_, int N, int col0)
      : base(b), ld(N), step(static_cast<std::size_t>(kRowStep) * N), r(threadIdx.x / kVecsPerRow),
        K(K_) {
    const int c = (threadIdx.x % kVecsPerRow) * V;
    col_in = col0 + c < N;
    src = b + static_cast<std::size_t>(r) * N + col0 + c;
    dst = r * LDB + c;
  }

  // k0 is the tile's first row of B.
  __device__ __forceinline__ void copy(T* bs, int k0) const {
    const T* p = src + k0 * ld;
#pragma unroll
    for (int i = 0; i < kPer; ++i, p += step) {
      const bool in = col_in && k0 + r + i * kRowStep < K;
      cp_async<V * sizeof(T)>(bs + dst + i * kRowStep * LDB, in ? p : base, in ? int(V * sizeof(T)) : 0);
    }
  }
};

// ---- K-contiguous tiles (A in every cp.async step; for A·Aᵀ also the second operand) --------
// A row-major matrix whose rows run along k (A; for A·Aᵀ also the second operand, A's rows)
// is copied ROWS × BK at a time, in 16-byte cp.async chunks (element-sized ones when its rows
// are not 16-byte aligned, or when the tile is stored transposed). Where an element lands in
// shared memory is the Layout's choice: the untransposed layouts keep every row's chunks whole
// and within the row, so a 16-byte copy and kVec element copies fill the same places (the two
// paths stay bit-identical).

// The layouts (gemm_layouts.hpp, where the host suite checks them): PaddedRows<P>, row r at r·P;
// SwizzledRows, rows of BK packed with their 16-byte chunks XOR-swizzled (conflict-free reads
// of one chunk index in 8 consecutive rows); TransposedRows<LD>, row r as column r of [k][r].
using gemm_plan::PaddedRows;
using gemm_plan::TransposedRows;
template <class T, int BK>
using SwizzledRows = gemm_plan::SwizzledRows<int(sizeof(T)), BK>;

// Successive ROWS × BK tiles at (r0, k0 = 0, BK, 2·BK, ...) of a row-major matrix with `rows`
// rows, `cols` valid columns and row pitch `ld` (ld > cols when only a slice of k is this
// block's, as in split-K). Thread t copies chunk column c = (t mod BK/V)·V of rows r, r + step,
// ...: a warp reads whole 32-byte sectors of consecutive rows. All per-thread state is computed
// once, and a copy past the edge reads nothing, zero-fills its chunk and points at the base.
// With VEC, cols is a multiple of V, so a chunk is wholly inside or wholly outside.
template <class T, int ROWS, int BK, int THREADS, bool VEC, class Layout>
struct AsyncCopyK {
  static constexpr int V = VEC ? kVec<T> : 1, kChunks = BK / V;
  static_assert(BK % V == 0 && THREADS % kChunks == 0, "whole rows per thread pass");
  static_assert(!VEC || Layout::kWholeChunks, "a 16-byte copy needs its chunk whole in shared memory");
  static constexpr int kRowStep = THREADS / kChunks, kPer = ROWS / kRowStep;
  static_assert(ROWS % kRowStep == 0 && kPer >= 1 && kPer <= 32, "whole tile, 32-bit row mask");
  // Rows r and r + kRowStep·i are placed alike, so copy i lands kRowStep·i·pitch further on.
  static_assert(kRowStep % Layout::kPeriod == 0, "the layout repeats every kRowStep rows");
  const T* base;
  const T* src;       // &m[r0 + r][c]
  std::size_t step;   // kRowStep rows
  unsigned rows_in;   // bit i: row r + i·kRowStep is inside the matrix
  int c, cols, dst;

  __device__ __forceinline__ AsyncCopyK(const T* m, int rows, int cols_, std::size_t ld, int r0)
      : base(m), step(kRowStep * ld), rows_in(0), c((threadIdx.x % kChunks) * V), cols(cols_) {
    const int r = threadIdx.x / kChunks;
    src = m + static_cast<std::size_t>(r0 + r) * ld + c;
    dst = Layout::at(r, c);
#pragma unroll
    for (int i = 0; i < kPer; ++i) rows_in |= unsigned(r0 + r + i * kRowStep < rows) << i;
  }

  __device__ __forceinline__ void copy(T* tile, int k0) const {
    const bool k_in = k0 + c < cols;
    const T* p = src + k0;
#pragma unroll
    for (int i = 0; i < kPer; ++i, p += step) {
      const bool in = k_in && (rows_in >> i & 1u);
      cp_async<V * sizeof(T)>(tile + dst + i * kRowStep * Layout::kPitch, in ? p : base,
                              in ? int(V * sizeof(T)) : 0);
    }
  }
};

// A (gemm7-9), and A's rows as the B tile of float A·Aᵀ (gemm10): successive BM × BK tiles of
// the M × K matrix at (row0, k0 = 0, BK, ...), stored transposed, as[k][m] (pitch LDA), one
// element-sized copy per element (a 16-byte copy cannot transpose, so A needs no alignment):
// AsyncCopyK over all of k (cols = ld = K) with the TransposedRows layout.
template <class T, int BM, int BK, int LDA, int THREADS>
using AsyncCopyA = AsyncCopyK<T, BM, BK, THREADS, false, TransposedRows<LDA>>;

}  // namespace kl::gemm_detail
