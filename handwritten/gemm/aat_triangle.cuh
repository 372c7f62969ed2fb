// aat_triangle — beyond the documents: A·Aᵀ computing one triangle and mirroring it (as syrk).
//
// Lesson: C = A·Aᵀ is symmetric (c_ij and c_ji are the same K products, a_ik·a_jk), so half of
// aat_gemm_inplace's multiply-adds compute values it already has. Here only the tiles (i, j)
// with i <= j run: T(T + 1)/2 of the T² tiles (T = ceil(M / TILE)), folded into a rectangular
// grid (gemm_schedule.cuh, triangle_tile). Each block stages its C tile in shared memory (the
// gemm steps' epilogue), writes it as usual, and, off the diagonal, writes it again transposed
// into tile (j, i): it reads a column of the staged tile (odd row pitch: conflict-free) and
// stores it as a row of C, 32 consecutive elements per warp store. So every element of C is
// written, by the block that computed it, with no second kernel reading C back (cublas_syrk's
// baseline needs a mirror kernel for that). A diagonal tile is computed whole (both of its
// triangles), which is TILE(TILE - 1)/2 products per diagonal tile more than syrk's M(M + 1)/2:
// the variant's declared work counts them, so its rate is the multiply-adds it really does.
//
// Tile size: at 2048² the triangle has 136 tiles of 128², about one per SM (and double's DMMA
// tile runs one block per SM: a second, 4-block wave), or 528 tiles of 64²: two waves of 2 blocks
// per SM. Both are registered; the run picks: on the H100 the 64² tile won at 2048², in float
// and in double, by a wide margin (docs/sgemm-ladder.md, "A·Aᵀ beyond document 000"). The
// profiler should show half of aat_gemm_inplace's FFMA/DMMA instructions and, for the 128 tile,
// SMs idle in the tail (sm__cycles_active.avg well below its max).
//
// Edges: as the gemm steps; odd T leaves the fold's middle row half empty (those blocks return
// at once); the mirrored store is guarded like the direct one.
#pragma once

#include "handwritten/gemm/aat_inplace.cuh"

namespace kl::aat_triangle {

// The flops of the computed tiles (gemm_plan::triangle_flops: diagonal tiles whole).
template <int TILE>
double work(AatShape s) {
  return gemm_plan::triangle_flops(s, TILE);
}

template <class T, int TILE, bool PF = false>
AatVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond the document (after 000's matMult)",
                   PF ? "one triangle of tiles (i <= j), written as computed and mirrored; DMMA fragments prefetched (gemm11 _pf)"
                      : "one triangle of tiles (i <= j), each written twice: as computed and mirrored"},
          .needs = aat_steps::needs<T, TILE, true, PF>(),
          .launch = aat_steps::launch<T, TILE, true, PF>,
          .prepare = aat_steps::prepare<T, TILE, true, PF>,
          .work = work<TILE>};
}

// The triangle with k split where its tiles alone leave the GPU short of blocks (aat_inplace.cuh,
// launch_triangle_split); unsplit (one kernel, no workspace) where they fill it.
template <class T, int TILE>
AatVariant<T> variant_splitk(std::string_view name) {
  return {.info = {name, "beyond the document (after 000's matMult)",
                   "the triangle with k split over blockIdx.z until the GPU is full, slices added in order"},
          .needs = aat_steps::needs<T, TILE, true>(),
          .launch = aat_steps::launch_triangle_split<T, TILE>,
          .workspace_bytes = aat_steps::triangle_workspace<T, TILE>,
          .rounding_depth = aat_steps::triangle_depth<T, TILE>,
          .prepare = aat_steps::prepare<T, TILE, true>,
          .work = work<TILE>};
}

}  // namespace kl::aat_triangle
