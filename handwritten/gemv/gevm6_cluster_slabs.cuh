// gevm6_cluster_slabs — beyond document 003. y = x·A in one launch: the row slabs of a column
// tile are one thread-block cluster (Hopper, sm_90), and their sums are added through
// distributed shared memory instead of a workspace and a second kernel.
//
// Lesson: gevm5 splits the rows into slabs so that a small matrix still fills the GPU, and pays
// for it with a second pass. On the H100 at 2500 × 2000 floats, Nsight Compute timed gevm5's
// second pass (a 40,000-value read) at a sizeable fraction of its tiles kernel: a kernel that
// does almost nothing still costs a launch and a drain, and cuBLAS's single kernel won
// (docs/gemv.md, "Beyond the document"). A cluster's blocks run at the same time on one GPC and
// may read each other's shared memory (cooperative_groups::cluster_group::map_shared_rank), so
// the S slabs of a tile, S ≤ 8 (the portable cluster size), leave their column sums in shared
// memory, meet at a cluster barrier, and block q of the cluster adds the S sums of its share of
// the tile's columns in slab order 0, 1, ..., S − 1 and writes y. No workspace, no atomics, the
// same bits every run, one launch. (The reduce and dot families' single pass uses an atomic
// ticket instead, which needs its counter zeroed before the launch: one more operation on the
// stream.)
//
// Only 8 slabs per tile, so the blocks come from narrower tiles instead: the plan starts from
// gevm5's tile width, adds slabs up to 8 while the grid is short of kBlocksPerSm blocks per SM,
// then halves the tile width (more tiles) while it is still short, down to 64 bytes of a row
// per tile: 2500 × 2000 floats become 63 tiles of 32 columns × 8 slabs of 313 rows (504
// blocks, 10 rows per thread), 16384² floats 128 tiles of 128 columns × 4 slabs of 4096 rows.
// The second pass had cost S·N values written and read; distributed shared memory costs S·C·W
// values read across the SMs of a GPC.
//
//   _u4        4 rows' loads in flight per thread (U = 8, gevm5's other configuration, was
//              slower here at float 2500 × 2000, the rows of a slab spread over fewer rounds;
//              docs/gemv.md, "Beyond the document");  _cs  A loaded evict-first.
// The profiler should show one kernel per product and the same DRAM throughput as gevm5's
// tiles kernel.
#pragma once

#include "handwritten/gemv/gevm4_column_tiles.cuh"

#include <cooperative_groups.h>

namespace kl::gevm6 {

using matvec::kThreads;

using gevm_plan::kMaxSlabs;      // 8, the portable cluster size
// Blocks per SM the plan aims at. 256 threads × U = 4 16-byte loads keep 16 KiB in flight per
// block; aiming at 4 per SM (narrower tiles, fewer rows per thread) was slower where it changed
// the plan (H100, float 2500 × 2000 and 16384²: docs/gemv.md, "Beyond the document", and
// docs/log.md, "gemv and gevm").
constexpr int kBlocksPerSm = 2;
// _b1 aims at one block per SM instead, i.e. wider tiles (at 4096² floats 512 bytes of a row per
// tile instead of 256; 256 blocks instead of 512): on the H100 (docs/gemv.md, "gevm: y = x·A";
// the trials in docs/log.md, "gemv and gevm") a little faster at 4096² floats and doubles and at double
// 2500 × 2000 (gemm_auto's M = 1 class took it until _c128 below).
constexpr int kMinRowBytes = 64; // a tile's share of a row: two full 32-byte sectors at least
// _c128 plans the other way round: tiles of 128 bytes of a row (one line; fewer if the row is
// shorter), then slabs (powers of two, at most 8) only until tiles × slabs reach one block per
// SM, with U = 8 loads in flight. The plan sweep (H100, docs/gemv.md, "gevm: y = x·A";
// the trials in docs/log.md, "gemv and gevm") timed every C, S, U: 128-byte tiles in 2 slabs beat the
// wide tiles and 8 slabs of _b1 at 4096² floats and came level with cuBLAS, tied them at 4096²
// doubles (one slab), and beat cuBLAS at 2500 × 2000 floats (4 slabs). gemm_auto's M = 1 class
// takes it where _c256 (below) does not pay.
// (The arithmetic: gevm_plan::narrow, matvec_plan.hpp, host-checked with those three plans.)
// _c256 goes deeper per thread instead: 256 bytes of a row per tile, 32 loads in flight (one
// block per SM: up to 216 registers), slabs only while tiles × slabs stay within one block per SM.
// A second sweep (docs/gemv.md, "gevm: y = x·A")
// timed the next round's loads issued before this round's FMAs (gevm4's kPipelined) and U up to
// 32 on 128- and 256-byte tiles and on the element path: at float 4096² only C16 U32 S2 beat
// _c128, by a little, in both runs, and at double 4096² C16 U16-U32 S1 beat it too. With short
// slabs it loses (float 2500 × 2000, clearly): the first round's 32 loads are all wait.
// gemm_auto's M = 1 class takes it where a slab holds two whole rounds (gevm_plan::deep_pays),
// _c128 elsewhere.

// C column items per tile, S slabs (a cluster) of `slab` rows.
struct Plan {
  bool vector;
  int items, C, S, slab;
};

template <class T, int BPS = kBlocksPerSm>
Plan plan(MatrixShape s, bool vector) {
  const int items = matvec::row_items<T>(s.N, vector);
  const int item_bytes = static_cast<int>(sizeof(T)) * (vector ? kVec<T> : 1);
  const long long target = static_cast<long long>(sm_count()) * BPS;
  int C = matvec::pow2_at_least(items, 32);
  auto tiles = [&](int c) { return ceil_div(static_cast<long long>(items), static_cast<long long>(c)); };
  // A slab keeps at least one row per row thread (R = 256 / C).
  auto rows_ok = [&](int c, int slabs) { return ceil_div(static_cast<long long>(s.M), static_cast<long long>(slabs)) >= kThreads / c; };
  int S = 1;
  while (S < kMaxSlabs && tiles(C) * S < target && rows_ok(C, 2 * S)) S *= 2;
  while (C > 1 && (C / 2) * item_bytes >= kMinRowBytes && tiles(C) * S < target && rows_ok(C / 2, S)) C /= 2;
  const int slab = static_cast<int>(ceil_div(static_cast<long long>(s.M), static_cast<long long>(S)));
  return {vector, items, C, S, slab};
}

// The _c128 (narrow) and _c256 (deep) plans of this device, on the path `vector`.
template <class T, bool kDeep = false>
Plan plan_narrow(MatrixShape s, bool vector) {
  const int items = matvec::row_items<T>(s.N, vector);
  const int item_bytes = static_cast<int>(sizeof(T)) * (vector ? kVec<T> : 1);
  const gevm_plan::Narrow n = kDeep ? gevm_plan::deep(s.M, items, item_bytes, sm_count())
                                    : gevm_plan::narrow(s.M, items, item_bytes, sm_count());
  return {vector, items, n.C, n.S, n.slab};
}

// Whether _c256's plan pays at shape s (gevm_plan::deep_pays), judged on the path the shape
// allows (16-byte items where N is a multiple of the vector width).
template <class T>
bool deep_pays(MatrixShape s) {
  const Plan p = plan_narrow<T, true>(s, s.N % kVec<T> == 0);
  return gevm_plan::deep_pays({p.C, p.S, p.slab});
}

// Block (tile, q) of cluster `tile` sums rows [q·slab, (q + 1)·slab) of the tile's columns into
// its shared `sums`; after the cluster barrier it adds the S blocks' sums for columns
// c ≡ q (mod S) of the tile and writes them. The second barrier keeps every block's shared
// memory alive until the others have read it.
// kPipelined and kMinBlocks: gevm4::tile_column_sums' pipelined rounds (the trial's only) and the
// second __launch_bounds__ argument (matvec::kMinBlocksPerSm says why there is always one).
template <class T, int C, int U, bool kVector, bool kStream, bool kPipelined = false,
          int kMinBlocks = matvec::kMinBlocksPerSm>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    gevm_cluster_slabs(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N, int slab) {
#if KL_ARCH_AT_LEAST(90)  // thread-block clusters, distributed shared memory; compiled for older targets as an empty kernel (Requirements)
  namespace cg = cooperative_groups;
  constexpr int W = matvec::item_width<T, kVector>;
  __shared__ __align__(16) T warp_sums[gevm4::kWarps][C * W];
  __shared__ T sums[C * W];
  cg::cluster_group cluster = cg::this_cluster();
  const int S = static_cast<int>(cluster.num_blocks());  // = gridDim.y: the cluster is a tile's slabs
  const int q = static_cast<int>(cluster.block_rank());  // = blockIdx.y
  const int r_begin = q * slab;
  const int r_end = static_cast<int>(min(static_cast<long long>(M), static_cast<long long>(r_begin) + slab));
  // r_begin may pass M for the last slabs of a short matrix: the loops then run zero times and
  // the block's sums are zeros (x + 0 is x exactly).
  gevm4::tile_column_sums<T, C, U, kVector, kStream, kPipelined>(A, x, N, r_begin, r_end, warp_sums,
                                                     [&](int c, T s) { sums[c] = s; });
  cluster.sync();  // every block's sums written (release) and visible (acquire)
  for (int c = q + S * static_cast<int>(threadIdx.x); c < C * W; c += S * kThreads) {
    T s = *cluster.map_shared_rank(&sums[c], 0);
    for (int p = 1; p < S; ++p) s += *cluster.map_shared_rank(&sums[c], p);
    const int col = blockIdx.x * (C * W) + c;
    if (col < N) y[col] = s;
  }
  cluster.sync();  // no block leaves while another may still read its sums
#endif
}

template <class T, int C, int U, bool kStream, bool kPipelined = false, int kMinBlocks = matvec::kMinBlocksPerSm>
void launch_c(const MatVecArgs<T>& a, const Plan& p, cudaStream_t s) {
  const dim3 grid(grid_blocks(ceil_div(p.items, C)), static_cast<unsigned>(p.S));
  const dim3 cluster(1, static_cast<unsigned>(p.S));
  auto kernel = p.vector ? gevm_cluster_slabs<T, C, U, true, kStream, kPipelined, kMinBlocks>
                         : gevm_cluster_slabs<T, C, U, false, kStream, kPipelined, kMinBlocks>;
  KL_CUDA_CHECK(launch_with_cluster(kernel, grid, dim3(kThreads), cluster, 0, s, a.A, a.x, a.y, a.M, a.N, p.slab));
}

template <class T, int U, bool kStream, int kMinBlocks = matvec::kMinBlocksPerSm>
void launch(const MatVecArgs<T>& a, const Plan& p, cudaStream_t s) {
  with_pow2_width(p.C, [&](auto C) { launch_c<T, C, U, kStream, false, kMinBlocks>(a, p, s); });
}

// Rounding depth: the slab's tile sums (gevm4), then the S slabs added in order.
template <class T>
double depth(const Plan& p) {
  return gevm4::tile_sums_depth(p.slab, p.C) + p.S;
}

// A variant's plan is named by BPS: plan with BPS blocks per SM (BPS > 0), plan_narrow
// (BPS = kNarrowPlan: 128-byte tiles first, the _c128 variant) or its deep form (BPS = kDeepPlan:
// 256-byte tiles, at most one block per SM, the _c256 variant).
constexpr int kNarrowPlan = 0;
constexpr int kDeepPlan = -1;
template <class T, int BPS>
Plan plan_for(MatrixShape s, bool vector) {
  if constexpr (BPS == kNarrowPlan) return plan_narrow<T>(s, vector);
  else if constexpr (BPS == kDeepPlan) return plan_narrow<T, true>(s, vector);
  else return plan<T, BPS>(s, vector);
}

// kMinBlocks: the kernel's second __launch_bounds__ argument (1 lets U = 32 take 216 registers).
template <class T, int U, bool kStream, int BPS = kBlocksPerSm, int kMinBlocks = matvec::kMinBlocksPerSm>
MatVecVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond",
                   "gevm5 in one launch: a tile's row slabs are a thread-block cluster, summed through distributed shared memory"},
          .needs = {.compute_capability = 90, .feature = kFeatureClusters, .clusters = true,
                    .kernel = reinterpret_cast<const void*>(gevm_cluster_slabs<T, 32, U, true, kStream, false, kMinBlocks>)},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            launch<T, U, kStream, kMinBlocks>(a, plan_for<T, BPS>({a.M, a.N}, matvec::vector_rows_ok(a, false)), s);
          },
          .workspace_bytes = nullptr,
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return depth<T>(plan_for<T, BPS>(s, v)); });
          }};
}

}  // namespace kl::gevm6
