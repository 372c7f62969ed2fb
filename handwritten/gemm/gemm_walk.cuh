// Where the k tiles of a Hopper block's run lie (gemm13, gemm14): the walks their producers step
// through and their consumers store by, said once for both steps. A run is a sequence of k tiles;
// k tile t of it adds A's and B's tiles at k into the C tile at (row0, col0).
//   SliceWalk   one C tile, all of k or one split-K slice of it (the unsplit grid's raster order:
//               gemm_plan::raster_tile_grouped);
//   StreamWalk  a stream-K block's run (gemm_plan::StreamK): its data-parallel tiles, then its
//               stream iterations, across tile boundaries.
// A walk's Cursor steps through the run in order (the producer's one thread, tile after tile).
// The arithmetic is gemm_plan.hpp's, which the host suite checks.
#pragma once

#include "handwritten/gemm/gemm_plan.hpp"

namespace kl::gemm_walk {

// Where the k tile t of a block's run lies: the C tile it adds to, at (row0, col0), and its
// first k (A's column, B's row).
struct TileAt {
  int row0, col0, k;
};

// A block's run over one C tile (unsplit, split-K): k tile t starts at k0 + t·BK (k0: the first
// k of the block's slice; 0 unsplit).
template <int BK>
struct SliceWalk {
  int row0, col0, k0;
  __device__ __forceinline__ TileAt operator()(int t) const { return {row0, col0, k0 + t * BK}; }
  struct Cursor {
    TileAt at;
    __device__ __forceinline__ void next() { at.k += BK; }
  };
  __device__ __forceinline__ Cursor start() const { return {{row0, col0, k0}}; }
};

// This block's SliceWalk on a grid of BM × BN tiles in the grouped raster order (blocks resident
// together share their B columns and A rows in L2), its slice starting at k0. Cluster forms
// (CLUSTER_M tiles stacked in M per cluster): gridDim.x counts CLUSTER_M · tile columns, the raster
// walks pairs of tile rows in groups of kRasterRows / CLUSTER_M, and rank r takes the pair's r-th
// tile row.
template <int BM, int BN, int BK, int CLUSTER_M = 1>
__device__ __forceinline__ SliceWalk<BK> slice_walk(int k0, int rank) {
  const int tiles_m = gridDim.y, tiles_n = gridDim.x / CLUSTER_M;
  const int id = blockIdx.y * tiles_n + blockIdx.x / CLUSTER_M;
  int tm, tn;
  gemm_plan::raster_tile_grouped<gemm_plan::kRasterRows / CLUSTER_M>(id, tiles_n, tiles_m, tm, tn);
  return {BM * (tm * CLUSTER_M + rank), BN * tn, k0};
}

// A stream-K block's run (gemm_plan::StreamK, in int): block b of p.blocks, its dp_waves
// data-parallel tiles, then its stream iterations from b·q (gemm_plan::stream_iteration), each
// tile placed in raster_tile_at's order (the order of the unsplit grid's blocks). In 32 bits:
// with 64-bit counts ptxas scheduled the FMA warps' k loop with its shared loads closer to their
// FFMAs than in the unsplit kernel.
template <int BM, int BN, int BK>
struct StreamWalk {
  gemm_plan::StreamKInt p;
  int b;
  __device__ __forceinline__ TileAt at(int tile, int k) const {
    int tm, tn;
    gemm_plan::raster_tile_at<unsigned>(tile, p.tiles_n, p.tiles_m, tm, tn);
    return {BM * tm, BN * tn, BK * k};
  }
  __device__ __forceinline__ TileAt operator()(int t) const {
    int tile, k;
    gemm_plan::stream_iteration<int>(b, t, p.kt, p.dp_waves, p.blocks, p.per_block, tile, k);
    return at(tile, k);
  }
  // In order, without operator()'s divisions per k tile (on the producer's one thread they took
  // longer than the FMA warps' k tile): the tile changes once every kt steps, and the walk is
  // recomputed whole only where the data-parallel tiles end.
  struct Cursor {
    const StreamWalk* w;
    int t, tile, k;
    TileAt at;
    __device__ __forceinline__ void seek() {
      gemm_plan::stream_iteration<int>(w->b, t, w->p.kt, w->p.dp_waves, w->p.blocks, w->p.per_block, tile, k);
      at = w->at(tile, k);
    }
    __device__ __forceinline__ void next() {
      ++t;
      if (t == w->p.dp_waves * w->p.kt) {  // the first stream iteration
        seek();
      } else if (++k == w->p.kt) {  // the next tile: a wave on (data-parallel) or the next one
        k = 0;
        tile += t < w->p.dp_waves * w->p.kt ? w->p.blocks : 1;
        at = w->at(tile, 0);
      } else {
        at.k = BK * k;
      }
    }
  };
  __device__ __forceinline__ Cursor start() const {
    Cursor c{this, 0, 0, 0, {}};
    c.seek();
    return c;
  }
  // The run's length (gemm_plan::stream_run_length).
  __device__ __forceinline__ int run_length() const {
    return gemm_plan::stream_run_length<int>(b, p.kt, p.dp_waves, p.per_block, p.tail_iters);
  }
};

}  // namespace kl::gemm_walk
