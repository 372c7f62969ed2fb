// gevm5_fitted_tiles — beyond document 003. y = x·A with the tile's width fitted to N: narrow
// matrices get more row threads per block.
//
// Lesson: gevm4's tile is 32 column items wide. A matrix of 1, 4 or 20 columns (100003 × 1)
// then keeps 31, 31 or 27 of every 32 lanes idle, and a warp reads 4 to 80 bytes per row.
// Here C, the column threads per block, is the smallest power of two >= the row's items (at most
// 32), and the block's other 256 / C threads take more rows: for N = 1 all 256 threads walk
// rows, and a warp reads 32 consecutive rows, 128 contiguous bytes. The slabs are planned as
// in gevm4 for that geometry (100003 × 1: 49 slabs of 2048 rows, the 49 partials of the
// single output summed by 8 lanes). For 32 items or more it is gevm4.
//
// The configurations measured side by side, as in gemv6:
//   _u4, _u8   U rows' loads in flight per thread (64 or 128 bytes on the 16-byte path);
//   _cs        A loaded with __ldcs (evict-first): A is read once.
// The profiler should show, at 100003 × 1, 32 useful lanes per warp instead of 1.
#pragma once

#include "handwritten/gemv/gevm4_column_tiles.cuh"

namespace kl::gevm5 {

template <class T, int U>
gevm4::Plan plan(MatrixShape s, bool vector) {
  const int items = matvec::row_items<T>(s.N, vector);
  return gevm4::split_rows<U>(vector, items, matvec::pow2_at_least(items, 32), s.M);
}

template <class T, int U, bool kStream>
MatVecVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond", "gevm4 with the tile width fitted to N (power of two <= 32): narrow A fills the warps"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gevm4::launch<T, U, kStream>(a, plan<T, U>({a.M, a.N}, matvec::vector_rows_ok(a, false)), s);
          },
          .workspace_bytes = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return matvec::split_workspace<T>(plan<T, U>(s, v).S, s.N); });
          },
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return gevm4::depth<T>(plan<T, U>(s, v)); });
          }};
}

}  // namespace kl::gevm5
