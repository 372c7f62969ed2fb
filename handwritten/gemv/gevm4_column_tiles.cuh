// gevm4_column_tiles — beyond document 003. y = x·A with a block per tile of columns and per
// slab of rows, the slabs' partial sums added in a second pass.
//
// Lesson: gevm1's reads were already coalesced; what it lacked was threads and bytes in flight
// (N threads, each walking all M rows one load at a time). Here a block of 256 threads takes a
// tile of C = 32 column items (16-byte vectors of 4 floats or 2 doubles when rows are 16-byte
// aligned, so 128 float or 64 double columns) and R = 8 rows at a time: the 32 lanes of a warp
// read 512 contiguous bytes of one row, and each thread has U = 4 rows' loads in flight. The
// grid's second dimension cuts the rows into S slabs, S chosen so that column tiles × slabs
// make about 4 waves of full SMs (8 blocks each), a block being a small part of the run, while
// every thread keeps at least two rounds of loads: 16384² floats get 128 tiles × 32 slabs of
// 512 rows, 2500 × 2000 16 tiles × 27 slabs of 96 rows. In a block the 8 warps'
// sums per column are added in shared memory in warp order; each slab writes its sums into
// the workspace, partial[s][j], and a second kernel adds them per column in a fixed order
// (matvec::sum_partials): deterministic, no float atomics (whose order, and rounding, would
// change from run to run). The partials cost S·N values written and read against M·N of A
// (a slab is at least 64 rows: at most 1/64 more traffic).
// The profiler should show 32 bytes per sector for A, DRAM throughput near the copy bandwidth
// at 16384², and conflict-free 16-byte shared stores.
//
// The kernel takes C as a template parameter (gevm5 fits it to N); unaligned rows take the
// element path (one element per item, 128 contiguous bytes per warp). Any M, N.
#pragma once

#include "handwritten/gemv/matvec_common.cuh"

#include <algorithm>

namespace kl::gevm4 {

using matvec::kThreads;
using matvec::kWarps;

// How a launch covers A: the path, C column items per block, S slabs of `slab` rows.
struct Plan {
  bool vector;
  int items;  // column items per row
  int C;
  int S;
  int slab;
};

// The block's sums over rows [r_begin, r_end) of A for the C·W columns of tile blockIdx.x,
// handed to store(c, sum) for c in [0, C·W) (columns past N get zeros). Thread t takes column item t % C
// of the tile and rows r_begin + t / C, + R, ... (R = 256 / C); each column lane keeps one FMA
// chain over its rows. (Shared with gevm6, which adds the slabs' sums through distributed
// shared memory instead of a workspace.)
//
// kPipelined: round k + 1's loads are issued before round k's FMAs, so the next round's U loads
// are in flight while this round's FMAs run, and the thread never waits on memory with nothing
// else requested. Every load is checked against the slab (the rounds need not be whole): an
// instruction per load, and no tail. The FMA order is the same either way. No variant takes it:
// the deep plan sweep timed it, and it never won (docs/gemv.md, "gevm: y = x·A").
template <class T, int C, int U, bool kVector, bool kStream, bool kPipelined = false, class Store>
__device__ __forceinline__ void tile_column_sums(const T* __restrict__ A, const T* __restrict__ x, int N, int r_begin,
                                                 int r_end, T (&warp_sums)[kWarps][C * matvec::item_width<T, kVector>],
                                                 Store store) {
  using V = matvec::item_t<T, kVector>;
  constexpr int W = matvec::item_width<T, kVector>;
  constexpr int R = kThreads / C;
  static_assert(C >= 1 && C <= 32 && kThreads % C == 0 && C * W <= kThreads);

  const int tx = static_cast<int>(threadIdx.x % C), ty = static_cast<int>(threadIdx.x / C);
  const int items = N / W;
  const int item = blockIdx.x * C + tx;
  T acc[W] = {};
  if (item < items) {
    const V* a = reinterpret_cast<const V*>(A) + item;  // row r's item at a + r·items
    // Round r0's loads with each row checked against the slab: rows past it are zeros
    // (fma(0, 0, acc) = acc exactly, so they add no rounding).
    auto load_round_checked = [&](int r0, V (&va)[U], T (&xr)[U]) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const bool in = r0 + u * R < r_end;
        va[u] = in ? matvec::load_item<kStream>(a + static_cast<std::size_t>(r0 + u * R) * items) : V{};
        xr[u] = in ? __ldg(x + r0 + u * R) : T(0);
      }
    };
    int r = r_begin + ty;
    if constexpr (kPipelined) {
      V va[U];
      T xr[U];
      if (r < r_end) load_round_checked(r, va, xr);
#pragma unroll 1
      for (; r < r_end; r += U * R) {
        V cur[U];
        T xc[U];
#pragma unroll
        for (int u = 0; u < U; ++u) cur[u] = va[u], xc[u] = xr[u];
        if (r + U * R < r_end) load_round_checked(r + U * R, va, xr);
#pragma unroll
        for (int u = 0; u < U; ++u) matvec::fma_lanes(acc, xc[u], cur[u]);
      }
    } else {
      // Whole rounds of U rows, their loads issued before their FMAs (`unroll 1`: see gemv4).
#pragma unroll 1
      for (; r + (U - 1) * R < r_end; r += U * R) {
        V va[U];
        T xr[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          va[u] = matvec::load_item<kStream>(a + static_cast<std::size_t>(r + u * R) * items);
          xr[u] = __ldg(x + r + u * R);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) matvec::fma_lanes(acc, xr[u], va[u]);
      }
      // The last, partial round in one wait.
      if (r < r_end) {
        V va[U];
        T xr[U];
        load_round_checked(r, va, xr);
#pragma unroll
        for (int u = 0; u < U; ++u) matvec::fma_lanes(acc, xr[u], va[u]);
      }
    }
  }

  // A warp holds 32 / C row threads of each column (lanes tx, tx + C, ...): a shuffle tree over
  // them (xor offsets >= C), then lane tx < C holds the warp's sums for its column item.
#pragma unroll
  for (int e = 0; e < W; ++e)
#pragma unroll
    for (int off = 16; off >= C; off /= 2) acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], off);
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  if (lane < C) {
    if constexpr (W > 1) store_vec(&warp_sums[warp][lane * W], acc);  // 16-byte store: no bank conflicts
    else warp_sums[warp][lane] = acc[0];
  }
  __syncthreads();
  // The warps' sums in warp order, one thread per column of the tile.
  for (int c = static_cast<int>(threadIdx.x); c < C * W; c += kThreads) {
    T s = warp_sums[0][c];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) s += warp_sums[w][c];
    store(c, s);
  }
}

// A block per (column tile, row slab): the slab's sums, written coalesced into row blockIdx.y
// of `out` (y itself when there is one slab, else the workspace's partials).
template <class T, int C, int U, bool kVector, bool kStream>
__global__ void __launch_bounds__(kThreads, matvec::kMinBlocksPerSm)
    gevm_column_tiles(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ out, int M, int N, int slab) {
  constexpr int W = matvec::item_width<T, kVector>;
  __shared__ __align__(16) T warp_sums[kWarps][C * W];
  const int r_begin = static_cast<int>(blockIdx.y) * slab;  // < M: slabs start inside A
  const int r_end = static_cast<int>(min(static_cast<long long>(M), static_cast<long long>(r_begin) + slab));
  tile_column_sums<T, C, U, kVector, kStream>(A, x, N, r_begin, r_end, warp_sums, [&](int c, T s) {
    const int col = blockIdx.x * (C * W) + c;
    if (col < N) out[static_cast<std::size_t>(blockIdx.y) * N + col] = s;
  });
}

// Blocks worth having: about 4 waves of 8 blocks of 256 threads per SM (a full SM), so that
// a block is a small part of the run and the last, partial wave is short; but each thread keeps
// at least 2 rounds of U rows, so a slab is never less than 64 rows (the partials stay under
// 1/64 of A's traffic).
constexpr int kBlocksPerSm = 8;
constexpr int kWaves = 4;
constexpr int kMinRoundsPerSlab = 2;

// Slabs for a tile width C (see kBlocksPerSm).
template <int U>
Plan split_rows(bool vector, int items, int C, int M) {
  const int R = kThreads / C;
  const long long tiles = ceil_div(static_cast<long long>(items), static_cast<long long>(C));
  const long long round = static_cast<long long>(R) * U;  // rows per round of a block
  const long long rounds = ceil_div(static_cast<long long>(M), round);
  const long long target = static_cast<long long>(sm_count()) * kBlocksPerSm * kWaves;
  long long S = std::min(ceil_div(target, tiles), rounds / kMinRoundsPerSlab);
  if (S < 1) S = 1;
  const long long slab = ceil_div(rounds, S) * round;
  return {vector, items, C, static_cast<int>(ceil_div(static_cast<long long>(M), slab)), static_cast<int>(std::min<long long>(slab, M))};
}

template <class T, int C, int U, bool kStream>
void launch_c(const MatVecArgs<T>& a, const Plan& p, T* out, cudaStream_t s) {
  const dim3 grid(grid_blocks(ceil_div(p.items, C)), static_cast<unsigned>(p.S));
  if (p.vector) gevm_column_tiles<T, C, U, true, kStream><<<grid, kThreads, 0, s>>>(a.A, a.x, out, a.M, a.N, p.slab);
  else gevm_column_tiles<T, C, U, false, kStream><<<grid, kThreads, 0, s>>>(a.A, a.x, out, a.M, a.N, p.slab);
  KL_CHECK_LAUNCH();
}

// Runs plan p: the tiles kernel writing y (S = 1) or the slabs' partials, then the second pass.
template <class T, int U, bool kStream>
void launch(const MatVecArgs<T>& a, const Plan& p, cudaStream_t s) {
  matvec::run_split(a, p.S, a.N, s, [&](T* out) {
    with_pow2_width(p.C, [&](auto C) { launch_c<T, C, U, kStream>(a, p, out, s); });
  });
}

// Rounding depth of tile_column_sums over `slab` rows with C column items per tile: a column
// lane's chain over its rows of the slab, the shuffle tree over a warp's row threads, the 8
// warps added in order.
inline double tile_sums_depth(int slab, int C) {
  return static_cast<double>(ceil_div(slab, kThreads / C)) + (matvec::log2_pow2(32) - matvec::log2_pow2(C)) + kWarps;
}

// Rounding depth of plan p: the slab's tile sums, then the second pass.
template <class T>
double depth(const Plan& p) {
  return tile_sums_depth(p.slab, p.C) + matvec::sum_partials_depth(p.S);
}

constexpr int kUnroll = 4;

template <class T>
Plan plan(MatrixShape s, bool vector) {
  return split_rows<kUnroll>(vector, matvec::row_items<T>(s.N, vector), 32, s.M);
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gevm4_column_tiles", "beyond",
                   "block per 32-item column tile x row slab: 16-byte row reads, slabs summed in a 2nd pass"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            launch<T, kUnroll, false>(a, plan<T>({a.M, a.N}, matvec::vector_rows_ok(a, false)), s);
          },
          .workspace_bytes = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return matvec::split_workspace<T>(plan<T>(s, v).S, s.N); });
          },
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return depth<T>(plan<T>(s, v)); });
          }};
}

}  // namespace kl::gevm4
