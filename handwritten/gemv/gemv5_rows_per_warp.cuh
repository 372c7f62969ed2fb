// gemv5_rows_per_warp — beyond document 003. y = A·x with the group of lanes per row fitted to
// the row's length: several rows per warp when rows are short.
//
// Lesson: gemv4 gives every row 32 lanes. A row of N = 1 (100003 × 1), 4 or 20 elements then
// keeps 31, 31 or 27 of them idle, and a warp moves 4 to 80 bytes per instruction. Here G, the
// lanes per row, is the smallest power of two >= the row's items (at most 32), so a warp takes
// 32 / G consecutive rows: for N = 1 each lane reads one row, and the warp 128 contiguous bytes
// (32 consecutive rows); the shuffle tree shrinks to log2(G) levels. For rows of 32 items or
// more nothing changes (G = 32: the same kernel and launch as gemv4). The profiler should show,
// at 100003 × 1, 32 useful lanes per warp instead of 1 and a load per row instead of a warp.
//
// Same kernel as gemv4 (one template, G a parameter); only the launch plan differs.
#pragma once

#include "handwritten/gemv/gemv4_warp_per_row.cuh"

namespace kl::gemv5 {

// The lanes per row: enough for one item each, a power of two so groups tile the warp.
inline int lanes_per_row(int items) { return matvec::pow2_at_least(items, 32); }

template <class T>
gemv4::Plan plan(MatrixShape s, bool vector) {
  const int items = matvec::row_items<T>(s.N, vector);
  return gemv4::whole_rows(vector, items, lanes_per_row(items));
}

template <class T>
MatVecVariant<T> variant() {
  return {.info = {"gemv5_rows_per_warp", "beyond",
                   "lanes per row fitted to N (power of two <= 32): short rows share a warp"},
          .launch = [](const MatVecArgs<T>& a, cudaStream_t s) {
            gemv4::launch<T, gemv4::kUnroll, false>(a, plan<T>({a.M, a.N}, matvec::vector_rows_ok(a, true)), s);
          },
          .rounding_depth = [](MatrixShape s) {
            return matvec::worst_path<T>(s, [s](bool v) { return gemv4::depth<T>(plan<T>(s, v)); });
          }};
}

}  // namespace kl::gemv5
