// Where the elements of the last gemm steps' tiles live (gemm7 to gemm14, the A·Aᵀ steps,
// gemm_shallow_k), as pure functions of their inputs: the shared-memory layouts of K-contiguous
// tiles, gemm_shallow_k's A tile, which element of an mma fragment a lane holds, TMA's 128-byte
// swizzle. The kernels call these (with threadIdx, laneid) and the host suite checks them
// exhaustively without a GPU (tests/host/test_gemm_plan.cpp): layouts bijective and conflict-free
// as their comments claim, fragments covering their tiles once. Where a block works is
// gemm_plan.hpp's.
// Host-compilable, and it needs nothing else: no CUDA header, not even the contract's.
#pragma once

#if !defined(KL_HD)  // gemm_plan.hpp says it the same way
#if defined(__CUDACC__)
#define KL_HD __host__ __device__ __forceinline__
#else
#define KL_HD inline
#endif
#endif

namespace kl::gemm_plan {

// ---- shared-memory layouts of K-contiguous tiles -------------------------------------------
// Where element (r, c) of a tile (r: a row of the matrix, c: its k) lives: at(r, c). Row
// r + kPeriod·i is placed as row r, kPeriod·i·kPitch further on (AsyncCopyK relies on it).
// PaddedRows and SwizzledRows keep a row's 16-byte chunks whole and in their row (kWholeChunks),
// so a 16-byte copy and element-sized copies fill the same places (the two copy paths stay
// bit-identical); TransposedRows scatters a row down a column and takes element copies only.

// Row r at r·P elements (P > row length: padding). gemm11 picks P = BK + 4 doubles so that its
// fragment loads are conflict-free (see dmma_* below and gemm11's header).
template <int P>
struct PaddedRows {
  static constexpr int kPeriod = 1;  // rows after which the placement repeats (AsyncCopyK)
  static constexpr int kPitch = P;
  static constexpr bool kWholeChunks = true;
  KL_HD static int at(int r, int c) { return r * P + c; }
};

// Row r stored as column r of a [k][r] tile of row pitch LD: element (r, c) at c·LD + r (gemm7-9's
// A tile as[k][m]; float A·Aᵀ's B tile bs[k][n] in gemm10). Consecutive rows are one element apart.
template <int LD>
struct TransposedRows {
  static constexpr int kPeriod = 1;
  static constexpr int kPitch = 1;
  static constexpr bool kWholeChunks = false;
  KL_HD static int at(int r, int c) { return c * LD + r; }
};

// Rows of BK elements of ELEM bytes, packed, with the 16-byte chunk q of row r stored at chunk
// q ^ ((r / L) mod Q): Q = chunks per row, L = 8 / Q rows per 128-byte line. Any 8 consecutive
// rows then hold a given chunk index in 8 different 16-byte bank groups, so a warp reading
// chunk q of 8 consecutive rows takes one wavefront; unswizzled, 16-float rows put rows 0, 2,
// 4, 6 on the same banks (a 4-way conflict).
template <int ELEM, int BK>
struct SwizzledRows {
  static constexpr int V = 16 / ELEM, Q = BK / V, L = Q >= 8 ? 1 : 8 / Q;
  static_assert(BK % V == 0 && (Q == 2 || Q == 4 || Q == 8), "2, 4 or 8 chunks per row");
  static constexpr int kPeriod = 8;  // L·Q rows
  static constexpr int kPitch = BK;
  static constexpr bool kWholeChunks = true;
  KL_HD static int swizzle(int r) { return (r / L) % Q; }
  KL_HD static int at(int r, int c) { return r * BK + (((c / V) ^ swizzle(r)) * V) + c % V; }
};

// gemm11's padding of a [row][k] tile of doubles: pitch BK + kDmmaPad (≡ 4 mod 16 for BK a
// multiple of 16, 12 for BK = 8), which puts the 16 lanes of a half-warp's fragment load on 16
// different 8-byte bank pairs.
constexpr int kDmmaPad = 4;

// ---- gemm_shallow_k's A tile ----------------------------------------------------------------
// The block's BM rows of A, k-major ([k][BM], padded to a pitch of BM + V elements), so that the
// rows a warp owns at one k are a 16-byte broadcast per V of them (V = 16 bytes of elements: 4
// floats, 2 doubles). The loader (shallow_a_fill) writes 4 rows × 8 consecutive k per warp
// instruction: with the pitch one 16-byte chunk past a multiple of 128 bytes, those are 32
// different banks per 128 bytes (each a wavefront's worth); unpadded, the 8 k of one row would
// share a bank (8-way). A padding, not a swizzle: a thread's reads are then one address plus
// constants (a k-dependent swizzle costs registers or instructions per read).
template <int V, int BM>
KL_HD constexpr int shallow_a_pitch() { return BM + V; }
template <int V, int BM>
KL_HD constexpr int shallow_a_at(int r, int k) { return k * shallow_a_pitch<V, BM>() + r; }
// Element e of the loader's walk (e = thread + threads·u, 0 <= e < BM·kMaxK): each 32 of them,
// one warp instruction, are rows 4·gr .. 4·gr + 3 × k 8·gk .. 8·gk + 7 (gr = group mod BM/4, gk
// = group / (BM/4)); lane l of the group takes row 4·gr + l mod V + V·(l / 8V), k 8·gk + (l / V)
// mod 8, so the lanes a wavefront serves (8·V of them: 32 floats, 16 doubles) hold V rows × 8 k.
template <int V, int BM>
KL_HD void shallow_a_fill(int e, int& r, int& k) {
  const int g = e / 32, l = e % 32;
  r = 4 * (g % (BM / 4)) + l % V + V * (l / (8 * V));
  k = 8 * (g / (BM / 4)) + (l / V) % 8;
}
// The walk as a thread takes it: element t + threads·u lies shallow_a_dr(u) rows and
// shallow_a_dk(u) k further on than element t (a pass of `threads` elements is threads / 8 rows
// of 8 k; BM / (threads / 8) passes make a group of 8 k), so the kernel computes one place per
// thread and adds constants.
template <int BM, int THREADS>
KL_HD constexpr int shallow_a_dr(int u) { return (THREADS / 8) * (u % (BM * 8 / THREADS)); }
template <int BM, int THREADS>
KL_HD constexpr int shallow_a_dk(int u) { return 8 * (u / (BM * 8 / THREADS)); }

// ---- mma.sync.m16n8k{4,8,16}.row.col.f64 fragments (PTX ISA, "Matrix Fragments for mma") ----
// Lane = 4·g + t. Offsets are relative to the fragment's tile origin in shared memory.
//   A (16 × K, element i of K/2):  row g + 8·(i mod 2), column t + 4·(i / 2)
//   B (K × 8, element i of K/4):   row t + 4·i,         column g
//   C (16 × 8, element e of 4):    row g + 8·(e / 2),   column 2t + (e mod 2)
KL_HD constexpr int dmma_a_row(int g, int i) { return g + 8 * (i % 2); }
KL_HD constexpr int dmma_a_col(int t, int i) { return t + 4 * (i / 2); }
KL_HD constexpr int dmma_b_row(int t, int i) { return t + 4 * i; }
KL_HD constexpr int dmma_b_col(int g) { return g; }
KL_HD constexpr int dmma_c_row(int g, int e) { return g + 8 * (e / 2); }
KL_HD constexpr int dmma_c_col(int t, int e) { return 2 * t + e % 2; }

// ---- gemm14's TMA tiles: the 128-byte swizzle, and the k order its fragments take -----------
// TMA's 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B) of a box whose rows are 128 bytes (16
// doubles), the box 1024-byte aligned: 16-byte chunk q of row r lies at chunk q ^ (r mod 8).
// Element (r, c) of such a box of doubles:
KL_HD constexpr int swz128_double(int r, int c) { return r * 16 + ((((c >> 1) ^ (r & 7))) << 1) + (c & 1); }
// The k that lane t of a group feeds into k step s (0..3) of a 16-k tile, for A and B alike (a
// product may take its k in any order). The ISA's order, k = 4s + t, puts two lanes of a
// half-warp on one bank pair under the swizzle (A: rows g = 0..3 and chunk (k / 2) ^ g); this one,
// step s taking {0, 3, 12, 15} ^ (s mod 2 + 4·(s / 2)), keeps A's and B's half-warp loads on 16
// different bank pairs (the host suite checks both, and that the ISA's order would not).
KL_HD constexpr int dmma_tma_k(int s, int t) { return ((s & 1) | ((s >> 1) << 2)) ^ (3 * (t & 1) + 12 * (t >> 1)); }

}  // namespace kl::gemm_plan
