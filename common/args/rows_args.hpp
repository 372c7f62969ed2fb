// The rows family's launch arguments, its operations and their rounding accounting, its lists.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <vector>

namespace kl {

// rows: one value per row (or per column) of a row-major M×N matrix whose rows start `pitch`
// elements apart (pitch >= N; pitch == N is the packed layout, a larger pitch pads every row to
// a 16-byte boundary as cudaMallocPitch does). The operation is a run-time argument so that a
// kernel file holds one memory/layout strategy for every operation (a template on RowOp inside).
enum class RowOp { row_sum, row_mean, row_max, row_min, row_sumsq, col_mean };
constexpr bool is_column_op(RowOp op) { return op == RowOp::col_mean; }
// Roundings the rows family adds to a variant's declared summation depth in op's error bound
// (compare/families/family_rows.hpp): 0 for a sum, 1 for a sum of squares (each square), 2 for a
// mean (the count converted to T and the division, or 1/count and a product). Max and min round
// nothing and are checked for equality: -1, no bound involved. Variants use it to tell when a
// chain is too long for any bound (the `unsupported` hooks of the serial kernels and of cuBLAS).
constexpr int row_op_extra_roundings(RowOp op) {
  switch (op) {
    case RowOp::row_max:
    case RowOp::row_min: return -1;
    case RowOp::row_sumsq: return 1;
    case RowOp::row_mean:
    case RowOp::col_mean: return 2;
    case RowOp::row_sum: break;
  }
  return 0;
}
struct RowsShape {
  int M, N;
  std::size_t pitch;  // elements
  RowOp op;
};
template <class T>
struct RowsArgs {
  using Size = RowsShape;
  const T* A;
  int M, N;
  std::size_t pitch;  // elements between the starts of two rows
  RowOp op;
  T* out;             // M values (row ops) or N values (column ops)
  void* workspace;
};

template <class T> using RowsVariant = Variant<RowsArgs<T>>;

template <class T> std::vector<RowsVariant<T>> rows_handwritten();  // float, double
template <class T> std::vector<RowsVariant<T>> rows_library();

}  // namespace kl
