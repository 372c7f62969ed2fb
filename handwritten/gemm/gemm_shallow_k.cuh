// gemm_shallow_k — beyond the documents: C = A·B when K is shallow (about 5 to 64), between
// gemm_thin_k's outer products and the tiled steps' deep k loops.
//
// Lesson: with a shallow K a product is still mostly a store stream (M·N outputs of K
// multiply-adds each), but K is too deep for gemm_thin_k, whose every row re-reads its K rows of
// B from L1/L2. The tiled steps, for their part, run their pipeline's prologue and epilogue for
// one or two k tiles, pad K up to their BK, and write C with element stores spread over rows
// wherever N is not a multiple of 4. Here a block of 256 threads owns BM × BN of C (64 × 128
// floats, 64 × 64 doubles), loads its BM rows of A and its BN columns of B into shared memory
// once (all of K up to kMaxK; each thread's loads all in flight before its shared stores),
// passes one barrier, and computes: a warp owns 8 rows × BN columns, a lane 8 rows × V columns,
// V = 16 bytes of elements (4 floats, 2 doubles), BN = 32·V. A lane's columns are one 16-byte
// vector (V·lane ...) where N is a multiple of V and B, C are 16-byte aligned, lane-strided
// otherwise (lane + 32·j): either way each warp store instruction writes consecutive outputs of
// one row (512 bytes, or 32 elements; whole 128-byte lines where aligned) straight from
// registers, nothing staged. Per k a warp reads its 8 rows of A as 16-byte broadcasts and each
// lane its V elements of B, both conflict-free: 8·V FMAs per 3 to 6 shared loads, so the FMAs,
// not shared memory, bound the k loop. A is held k-major with its pitch padded (gemm_plan's
// shallow_a_at) rather than swizzled: the loader's writes are conflict-free either way, and
// padded, a thread's reads are one address plus constants (a k-dependent swizzle took registers
// the 64 below cannot spare). At most 64 registers, so that 4 blocks share an SM and one block's
// stores overlap another's loads and FMAs; no pipeline, since a block's k range is one chunk.
//
// Order: each output is one chain a_i0·b_0j + a_i1·b_1j + ... in k order (depth K, the
// family's default), the same as every tiled step's, so its results are theirs bit for bit
// where they do not split k; the chunks below continue the same chain.
//
// Supports: any M, N, K >= 1, any alignment (the 16-byte paths only where N % V == 0 and B, C
// are 16-byte aligned; A is read element by element). K <= kMaxK (64 floats, 48 doubles) is one
// chunk, and that kernel has no k loop around its fill. Deeper K runs a second kernel (DEEP)
// that walks K in chunks of kMaxK (barrier, the chunk's loads, its FMAs): correct, with 2 blocks'
// worth of registers (its fills run with the accumulators live), but not what this step is for.
// The dynamic shared memory is sized for min(K, kMaxK); at kMaxK it is just over 48 KiB, so
// prepare opts in (every GPU from 7.5 allows it). One block per tile through launch_tiled (slabs
// past 65535 tile rows); each dimension at most 2^31 - 1 - 128. Nothing here needs more than 7.5.
#pragma once

#include "handwritten/gemm/gemm_common.cuh"
#include "handwritten/gemm/gemm_layouts.hpp"

#include <algorithm>

namespace kl::gemm_shallow_k {

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kRM = 8;              // rows of C per warp (and per lane)
constexpr int BM = kWarps * kRM;    // 64 rows of C per block
constexpr int kMinBlocks = 4;       // resident blocks per SM (K <= kMaxK): at most 64 registers per thread
constexpr int kMinBlocksDeep = 2;   // K > kMaxK: at most 128
template <class T> constexpr int kBN = 32 * kVec<T>;                    // 128 floats, 64 doubles
template <class T> constexpr int kMaxK = sizeof(T) == 4 ? 64 : 48;      // one chunk of k
template <class T> constexpr int kPitchA = gemm_plan::shallow_a_pitch<kVec<T>, BM>();

// Dynamic shared memory of a launch over depth K: the A chunk [k][kPitchA], then the B chunk
// [k][BN]. At kMaxK a little over 48 KiB (float 49 KiB, double 48.75 KiB): prepare opts in.
template <class T>
constexpr std::size_t smem_bytes(int K) {
  return std::size_t(kPitchA<T> + kBN<T>) * std::size_t(std::min(K, kMaxK<T>)) * sizeof(T);
}
template <class T> constexpr std::size_t kSmemMax = smem_bytes<T>(kMaxK<T>);
static_assert(kSmemMax<float> <= 64 * 1024 && kSmemMax<double> <= 64 * 1024, "within 7.5's opt-in");

// The fills of a chunk k0 .. k0 + kc - 1: each thread issues all its loads (predicated past kc,
// M and N) before its shared stores, so that they are in flight together. Values past M or N are
// zeros.

// As[k][·] = rows m0 .. m0 + BM - 1 of A at k0 + k (k < kc), at shallow_a_at. The thread's first
// element is (r, k), its u-th (r + dr(u), k + dk(u)) (gemm_plan): one row offset, one place and
// constants.
template <class T>
__device__ __forceinline__ void fill_a(T* __restrict__ As, const T* __restrict__ A, int M, int K, int m0, int k0, int kc) {
  constexpr int V = kVec<T>, kPer = BM * kMaxK<T> / kThreads;
  static_assert(kMaxK<T> % 8 == 0 && BM * 8 % kThreads == 0 && BM * kMaxK<T> % kThreads == 0,
                "the walk: whole groups of 4 rows × 8 k, whole passes of the block");
  int r, k;
  gemm_plan::shallow_a_fill<V, BM>(static_cast<int>(threadIdx.x), r, k);
  const T* a = A + static_cast<std::size_t>(m0 + r) * K + k0 + k;
  T* s = As + gemm_plan::shallow_a_at<V, BM>(r, k);
  T v[kPer];
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    const int dr = gemm_plan::shallow_a_dr<BM, kThreads>(u), dk = gemm_plan::shallow_a_dk<BM, kThreads>(u);
    v[u] = (k + dk < kc && m0 + r + dr < M) ? a[static_cast<std::size_t>(dr) * K + dk] : T(0);
  }
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    const int dr = gemm_plan::shallow_a_dr<BM, kThreads>(u), dk = gemm_plan::shallow_a_dk<BM, kThreads>(u);
    if (k + dk < kc) s[gemm_plan::shallow_a_at<V, BM>(dr, dk)] = v[u];
  }
}

// Bs[k][c] = B[k0 + k][n0 + c] (k < kc, c < BN). VEC: a 16-byte vector per thread and row (N % V ==
// 0: a vector is all inside or all past N); else an element per thread and row. Consecutive
// threads, consecutive columns: coalesced loads, conflict-free stores.
template <class T, bool VEC>
__device__ __forceinline__ void fill_b(T* __restrict__ Bs, const T* __restrict__ B, int N, int n0, int k0, int kc) {
  constexpr int V = kVec<T>, BN = kBN<T>, W = VEC ? V : 1;
  constexpr int kCols = BN / W;  // threads per row of the chunk
  constexpr int kRowsPerPass = kThreads / kCols, kPer = kMaxK<T> / kRowsPerPass;
  static_assert(kThreads % kCols == 0 && kMaxK<T> % kRowsPerPass == 0, "whole rows per pass");
  const int c = (threadIdx.x % kCols) * W, k = threadIdx.x / kCols;
  const bool inside = n0 + c < N;
  const T* b = B + static_cast<std::size_t>(k0 + k) * N + n0 + c;
  T v[kPer][W];
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    const bool load = k + kRowsPerPass * u < kc && inside;
    const T* src = b + static_cast<std::size_t>(kRowsPerPass * u) * N;
    if constexpr (VEC) {
      if (load) load_vec(v[u], src);
      else
#pragma unroll
        for (int e = 0; e < V; ++e) v[u][e] = T(0);
    } else {
      v[u][0] = load ? *src : T(0);
    }
  }
#pragma unroll
  for (int u = 0; u < kPer; ++u) {
    T* dst = Bs + (k + kRowsPerPass * u) * BN + c;
    if (k + kRowsPerPass * u < kc) {
      if constexpr (VEC) store_vec(dst, v[u]);
      else *dst = v[u][0];
    }
  }
}

// One k of a lane's 8 × V outputs: its warp's rows r0 .. r0 + 7 of A at k (16-byte broadcasts
// from the k-major tile) times its V elements of B's row k.
template <class T, bool VEC>
__device__ __forceinline__ void fma_k(T (&acc)[kRM][kVec<T>], const T* __restrict__ As, const T* __restrict__ Bs,
                                      int k, int r0, int lane) {
  constexpr int V = kVec<T>, BN = kBN<T>;
  T a[kRM], b[V];
#pragma unroll
  for (int q = 0; q < kRM / V; ++q) load_vec(a + V * q, As + gemm_plan::shallow_a_at<V, BM>(r0 + V * q, k));
  if constexpr (VEC) {
    load_vec(b, Bs + k * BN + V * lane);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) b[v] = Bs[k * BN + lane + 32 * v];
  }
  gemm_detail::fma_outer(acc, a, b);
}

// k = 0 .. kc - 1 of the chunk in shared memory, in k order. Unrolled further, ptxas hoists
// later steps' loads past 64 registers and spills (floats beyond 2 steps; doubles, whose
// 8 values of A take 16 registers, beyond 1 on 7.5 and 8.0); a double step's 16 DFMAs outlast
// its loop overhead anyway.
template <class T, bool VEC>
__device__ __forceinline__ void fma_chunk(T (&acc)[kRM][kVec<T>], const T* __restrict__ As, const T* __restrict__ Bs,
                                          int kc, int r0, int lane) {
  if constexpr (sizeof(T) == 4) {
#pragma unroll 2
    for (int k = 0; k < kc; ++k) fma_k<T, VEC>(acc, As, Bs, k, r0, lane);
  } else {
#pragma unroll 1
    for (int k = 0; k < kc; ++k) fma_k<T, VEC>(acc, As, Bs, k, r0, lane);
  }
}

// The chunk k0 .. k0 + kc - 1 into shared memory, then its FMAs. The caller has made sure that
// nobody still reads the previous chunk.
template <class T, bool VEC>
__device__ __forceinline__ void chunk(T (&acc)[kRM][kVec<T>], T* __restrict__ As, T* __restrict__ Bs,
                                      const T* __restrict__ A, const T* __restrict__ B, int M, int N, int K, int m0,
                                      int n0, int k0, int kc) {
  fill_a(As, A, M, K, m0, k0, kc);
  fill_b<T, VEC>(Bs, B, N, n0, k0, kc);
  __syncthreads();
  fma_chunk<T, VEC>(acc, As, Bs, kc, threadIdx.x / 32 * kRM, threadIdx.x % 32);
}

// DEEP = false: K <= kMaxK, one chunk and no loop, so nothing of the fill stays live beside the
// accumulators: 64 registers, 4 blocks per SM. DEEP: chunks of kMaxK in a loop, whose fills run
// with the accumulators live (and keep their addresses across chunks): 2 blocks' registers.
template <class T, bool VEC, bool DEEP>
__global__ void __launch_bounds__(kThreads, KL_MIN_BLOCKS(kThreads, DEEP ? kMinBlocksDeep : kMinBlocks))
    kernel(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N, int K) {
  constexpr int V = kVec<T>, BN = kBN<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* As = reinterpret_cast<T*>(smem_raw);
  T* Bs = As + (DEEP ? kMaxK<T> : K) * kPitchA<T>;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  T acc[kRM][V] = {};
  if constexpr (DEEP) {
    for (int k0 = 0; k0 < K; k0 += kMaxK<T>) {
      if (k0 > 0) __syncthreads();  // the previous chunk's reads are done before it is overwritten
      chunk<T, VEC>(acc, As, Bs, A, B, M, N, K, m0, n0, k0, K - k0 < kMaxK<T> ? K - k0 : kMaxK<T>);
    }
  } else {
    chunk<T, VEC>(acc, As, Bs, A, B, M, N, K, m0, n0, 0, K);
  }
  // Row r0 + i of the tile: VEC, one warp store instruction of BN consecutive outputs; else V of
  // 32 consecutive outputs each.
  const int lane = threadIdx.x % 32, r0 = threadIdx.x / 32 * kRM;
#pragma unroll
  for (int i = 0; i < kRM; ++i) {
    if (m0 + r0 + i >= M) break;
    T* c = C + static_cast<std::size_t>(m0 + r0 + i) * N + n0;
    if constexpr (VEC) {
      if (n0 + V * lane < N) store_vec(c + V * lane, acc[i]);
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v)
        if (n0 + lane + 32 * v < N) c[lane + 32 * v] = acc[i][v];
    }
  }
}

template <class T>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  constexpr int V = kVec<T>;
  const bool vec = g.N % V == 0 && aligned16(g.B) && aligned16(g.C), deep = g.K > kMaxK<T>;
  const auto k = deep ? (vec ? kernel<T, true, true> : kernel<T, false, true>)
                      : (vec ? kernel<T, true, false> : kernel<T, false, false>);
  const std::size_t smem = smem_bytes<T>(g.K);
  gemm_detail::launch_tiled(g, BM, kBN<T>, [&](dim3 grid, const T* A, T* C, int M) {
    k<<<grid, kThreads, smem, s>>>(A, g.B, C, M, g.N, g.K);
  });
}

// Past 48 KiB of dynamic shared memory a kernel must opt in (host side, once, before the first
// launch: never in the timed one).
template <class T>
void prepare() {
  using Kernel = void (*)(const T*, const T*, T*, int, int, int);
  gemm_detail::allow_smem<Kernel>(kSmemMax<T>, {kernel<T, true, false>, kernel<T, false, false>, kernel<T, true, true>,
                                                kernel<T, false, true>});
}

template <class T>
GemmVariant<T> variant() {
  return {.info = {"gemm_shallow_k", "beyond the documents",
                   "one-shot tiles for a shallow K: A and B in shared memory once, a lane's 8 rows x 16 bytes of C, "
                   "each warp store consecutive outputs of one row"},
          .needs = {.shared_bytes = kSmemMax<T>, .kernel = reinterpret_cast<const void*>(kernel<T, true, false>)},
          .launch = launch<T>,
          .prepare = prepare<T>};
}

}  // namespace kl::gemm_shallow_k
