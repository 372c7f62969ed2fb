// rows_cols_cluster — beyond the documents: rows_cols_vec16 in one launch. The row chunks of a
// column block are one thread-block cluster (Hopper, sm_90), and their column sums are added
// through distributed shared memory instead of a workspace and a second kernel.
//
// Lesson: the column mean is one read of the matrix, and rows_cols_vec16 spends two launches on
// it: the read (cols_chunk) and a second kernel that folds each column's chunk partials
// (combine_parts). The second kernel reads almost nothing, yet a launch and a drain still cost
// time: on the H100 at float 16384² the first kernel alone is measurably faster than both
// (docs/rows-and-dot.md, "The rows ladder (`compare -f rows`)", the column mean in one launch).
// That trial also timed other shapes of the read (blocks 1 to 32 warps wide along a row, 4 or 8
// rows in flight, evict-first loads, the chunks resident at once, whole rows per block): none
// read the gigabyte faster than that first kernel. So the read is kept, the second pass goes,
// and the grid is sized by measurement: about 4 blocks per SM read fastest wherever a shape
// allowed it, half of rows_cols_vec16's two waves (its own kernel at 4 chunks was as fast at
// 16384²).
// As in gevm6_cluster_slabs: the S chunks of a column block (S ≤ 8, the portable cluster size,
// or ≤ 16 where the device allows) fold their rows as rows_cols_coalesced does
// (chunk_column_folds), leave the column results in shared memory, meet at a cluster barrier,
// and block q adds the S results of the columns c ≡ q (mod S) in chunk order 0, 1, ..., S − 1
// and writes the mean. No workspace, no atomics, the same bits every run.
//
// Plan (rows_plan.hpp, cols_cluster): the chunk count doubles, up to 16 where the device launches
// clusters that large (H100, H200: the non-portable opt-in) and 8 elsewhere, while the doubled
// grid stays within 4 blocks per SM (docs/rows-and-dot.md,
// "The rows ladder (`compare -f rows`)"): 16384² floats are 128 column blocks × 4 chunks of 4096
// rows, 8192² 64 × 8, 1000² 8 × 8, 3000² 24 × 16; each ahead of cublasSgemv but the last
// (cuBLAS still ahead there), and 1000² of rows_cols_coalesced's two launches too (the times in
// the trials docs/log.md cites, "rows and dot"). The 16-byte path as rows_cols_vec16 takes it
// (aligned rows, N a multiple of kVec<T>), the element path otherwise.
#pragma once

#include "handwritten/rows/rows_cols_coalesced.cuh"
#include "handwritten/rows/rows_cols_vec16.cuh"
#include "handwritten/rows/rows_plan.hpp"

#include <cooperative_groups.h>

namespace kl::rows_cols_cluster {

namespace rc = rows_cols_coalesced;

constexpr unsigned kPortable = rows_plan::kPortableClusterChunks;

using Plan = rows_plan::ClusterPlan;

// Block (x, q) of cluster x: chunk q of column block x (rows [q · chunk_rows, + chunk_rows), none
// past M: a chunk past the end folds nothing and leaves the identity). After the barrier, block q
// folds the S chunks' results of the columns c ≡ q (mod S) in chunk order and writes them.
template <class T, class Op, bool kVector>
__global__ void __launch_bounds__(rc::kThreads)
    cols_cluster(const T* __restrict__ A, int M, int N, std::size_t pitch, std::size_t chunk_rows, T* __restrict__ out) {
#if KL_ARCH_AT_LEAST(90)  // thread-block clusters, distributed shared memory; an empty kernel for older targets (Requirements)
  namespace cg = cooperative_groups;
  constexpr int W = kVector ? kVec<T> : 1;
  constexpr int kColumns = rc::kCols * W;
  __shared__ __align__(16) T part[rc::kRowThreads][kColumns];
  __shared__ T folds[kColumns];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned S = cluster.num_blocks();  // = gridDim.y: the cluster is a column block's chunks
  const unsigned q = cluster.block_rank();  // = blockIdx.y
  const std::size_t m = static_cast<std::size_t>(M);
  const std::size_t start = static_cast<std::size_t>(q) * chunk_rows;
  const std::size_t r0 = start < m ? start : m;
  const std::size_t r1 = r0 + chunk_rows < m ? r0 + chunk_rows : m;
  // Every column of the block inside the matrix gets its fold, an empty chunk's too (the identity).
  rc::chunk_column_folds<T, Op, kVector>(A, N, pitch, r0, r1, part, [&](int c, T s) { folds[c] = s; });
  cluster.sync();  // every block's folds written (release) and visible (acquire)
  const int tid = threadIdx.y * rc::kCols + threadIdx.x;
  for (int c = static_cast<int>(q) + static_cast<int>(S) * tid; c < kColumns; c += static_cast<int>(S * rc::kThreads)) {
    const int column = static_cast<int>(blockIdx.x) * kColumns + c;
    if (column >= N) continue;
    T s = *cluster.map_shared_rank(&folds[c], 0);
    for (unsigned p = 1; p < S; ++p) s = Op::combine(s, *cluster.map_shared_rank(&folds[c], p));
    out[column] = rows_detail::finish<Op>(s, M);
  }
  cluster.sync();  // no block leaves while another may still read its folds
#endif
}

// Allows clusters past the portable 8 for cols_cluster<T, Op, kVector>
// (cudaFuncAttributeNonPortableClusterSizeAllowed), once per kernel: a function attribute, not
// work on a stream. (A template on the kernel's parameters, not on its pointer type: every
// instantiation has the same type, and each needs its own opt-in.)
template <class T, class Op, bool kVector>
void allow_large_clusters() {
  static const bool done = [] {
    KL_CUDA_CHECK(cudaFuncSetAttribute(cols_cluster<T, Op, kVector>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    return true;
  }();
  (void)done;
}

// One launch of plan p (any chunk count up to what the device allows: the trial passes others).
template <class T, bool kVector>
void launch_plan(const RowsArgs<T>& a, const Plan& p, cudaStream_t s) {
  rows_detail::with_op<T>(a.op, [&](auto op) {
    using Op = decltype(op);
    if (p.chunks > kPortable) allow_large_clusters<T, Op, kVector>();
    KL_CUDA_CHECK(launch_with_cluster(cols_cluster<T, Op, kVector>, dim3(grid_blocks(p.col_blocks), p.chunks),
                                      dim3(rc::kCols, rc::kRowThreads), dim3(1, p.chunks), 0, s, a.A, a.M, a.N, a.pitch,
                                      p.rows, a.out));
  });
}

// The kernel a launch may run, for the runner's check of the loaded image (Requirements).
template <class T>
const void* any_kernel() {
  return reinterpret_cast<const void*>(cols_cluster<T, rows_detail::Mean<T>, true>);
}

// Whether the cluster path runs on this device (compute capability 9.0 and an image built for
// it), asked once.
template <class T>
bool runs_here() {
  static const bool ok = kernel_runs_here(any_kernel<T>(), 90);
  return ok;
}

// The largest cluster the device launches for this kernel, 16 or the portable 8
// (cudaOccupancyMaxPotentialClusterSize with the non-portable opt-in), asked once.
template <class T>
unsigned max_chunks() {
  static const unsigned n = [] {
    if (!runs_here<T>()) return kPortable;
    auto kernel = cols_cluster<T, rows_detail::Mean<T>, true>;
    allow_large_clusters<T, rows_detail::Mean<T>, true>();
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, rows_plan::kMaxClusterChunks);
    cfg.blockDim = dim3(rc::kCols, rc::kRowThreads);
    int size = 0;
    if (cudaOccupancyMaxPotentialClusterSize(&size, kernel, &cfg) != cudaSuccess) {
      cudaGetLastError();  // not sticky
      return kPortable;
    }
    return size >= static_cast<int>(rows_plan::kMaxClusterChunks) ? rows_plan::kMaxClusterChunks : kPortable;
  }();
  return n;
}

// The variant's prepare hook (and rows_auto's): the device queries and the opt-ins done once,
// before the first launch and outside any timed region (launch_plan repeats nothing after this).
template <class T>
void prepare() {
  if (!runs_here<T>()) return;
  if (max_chunks<T>() > kPortable) allow_large_clusters<T, rows_detail::Mean<T>, false>();  // the element path's kernel
}

template <class T>
Plan plan_for(int M, int N, int W) {
  return rows_plan::cols_cluster(static_cast<std::size_t>(M), static_cast<std::size_t>(N), static_cast<std::size_t>(W), sm_count(),
                                 max_chunks<T>());
}

using rows_cols_vec16::vector_path;

template <class T>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  if (vector_path(a)) launch_plan<T, true>(a, plan_for<T>(a.M, a.N, kVec<T>), s);
  else launch_plan<T, false>(a, plan_for<T>(a.M, a.N, 1), s);
}

// Per column: rows_cols_coalesced's fold of one chunk (its 4 accumulators, pairwise, the 8
// row-threads in order), then the S chunks' results in order.
template <class T>
double depth_w(RowsShape s, int W) {
  const Plan p = plan_for<T>(s.M, s.N, W);
  return rc::chunk_fold_depth(p.rows) + p.chunks;
}

template <class T>
double depth(RowsShape s) {
  double d = depth_w<T>(s, 1);
  if (rows_cols_vec16::vector_ok<T>(s)) d = std::max(d, depth_w<T>(s, kVec<T>));
  return d;
}

// rows_auto's question: whether a column operation at shape s goes here (the device runs clusters,
// the 16-byte path is open, and rows_plan::cluster_pays).
template <class T>
bool pays(RowsShape s) {
  if (!rows_cols_vec16::vector_ok<T>(s) || !runs_here<T>()) return false;
  const Plan p = plan_for<T>(s.M, s.N, kVec<T>);
  return rows_plan::cluster_pays(static_cast<std::size_t>(s.M), p, sm_count());
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_cols_cluster", "beyond the documents (000 lab variant 3: mean of columns)",
               "rows_cols_vec16 in one launch: a column block's row chunks are a cluster, folded through distributed shared memory"},
      .needs = {.compute_capability = 90, .feature = kFeatureClusters, .clusters = true, .kernel = any_kernel<T>()},
      .launch = launch<T>,
      .workspace_bytes = nullptr,
      .rounding_depth = depth<T>,
      .unsupported = rows_detail::column_ops_only,
      .prepare = prepare<T>,
  };
}

}  // namespace kl::rows_cols_cluster
