// rows_cols_vec16 — beyond the documents: rows_cols_coalesced with 16-byte loads, each thread
// taking kVec<T> adjacent columns (4 floats, 2 doubles).
//
// Lesson: rows_cols_coalesced's loads are coalesced but 4 bytes each, 4 in flight per thread
// (16 bytes): at 16384² float it stayed short of the copy bandwidth where the gevm ladder's
// column tiles, the same access pattern with 16-byte loads (y = x·A is a weighted column sum),
// reached it (docs/rows-and-dot.md, "The rows ladder (`compare -f rows`)"). Here a block of
// 32 × 8 threads covers 128 float columns, a warp reads 512 contiguous bytes of a row, and a
// thread keeps 4 × 16 bytes in flight. The same kernel as rows_cols_coalesced (cols_chunk with
// kVector = true): same chunks over the rows, same fold order per column (each of the kVec<T>
// lanes is its own column), the same second pass.
// The vector path needs every row on a 16-byte boundary (A aligned, the pitch and N multiples of
// kVec<T>); otherwise it runs rows_cols_coalesced's element path, so any shape works.
#pragma once

#include "handwritten/rows/rows_cols_coalesced.cuh"

namespace kl::rows_cols_vec16 {

template <class T>
bool vector_ok(RowsShape s) {
  return s.N % kVec<T> == 0 && s.pitch % kVec<T> == 0;
}

// Whether the 16-byte path's grid fills the GPU: a block covers kVec<T> times the columns, so a
// short, wide matrix gets a quarter of rows_cols_coalesced's blocks (2500 × 2000 float: 160
// against 630, and measured slower), while at 16384² both fill it (and this path is the faster;
// the H100 default run). rows_auto takes this path only when it does.
template <class T>
bool fills_gpu(RowsShape s) {
  const auto ch = rows_cols_coalesced::chunks_for(s.M, s.N, kVec<T>);
  const std::size_t blocks = ceil_div(static_cast<std::size_t>(s.N), std::size_t{rows_cols_coalesced::kCols} * kVec<T>) * ch.count;
  return vector_ok<T>(s) && blocks >= rows_detail::split_target_blocks();
}

// Whether a launch takes the 16-byte path (rows_cols_cluster's launches ask the same).
template <class T>
bool vector_path(const RowsArgs<T>& a) {
  return vector_ok<T>({a.M, a.N, a.pitch, a.op}) && aligned16(a.A);
}

template <class T>
void launch(const RowsArgs<T>& a, cudaStream_t s) {
  if (vector_path(a)) rows_cols_coalesced::launch_path<T, true>(a, s);
  else rows_cols_coalesced::launch_path<T, false>(a, s);
}

// The hooks see the shape only: the worst of the paths it allows (an unaligned A falls back).
template <class T>
std::size_t workspace_bytes(RowsShape s) {
  std::size_t n = rows_cols_coalesced::partial_count(s);
  if (vector_ok<T>(s)) n = std::max(n, rows_cols_coalesced::partial_count(s, kVec<T>));
  return n * sizeof(T);
}

template <class T>
double depth(RowsShape s) {
  double d = rows_cols_coalesced::depth(s);
  if (vector_ok<T>(s)) d = std::max(d, rows_cols_coalesced::depth(s, kVec<T>));
  return d;
}

template <class T>
RowsVariant<T> variant() {
  return {
      .info = {"rows_cols_vec16", "beyond the documents (000 lab variant 3: mean of columns)",
               "rows_cols_coalesced with 16-byte loads: kVec columns per thread, 512 bytes of a row per warp"},
      .launch = launch<T>,
      .workspace_bytes = workspace_bytes<T>,
      .rounding_depth = depth<T>,
      .unsupported = rows_detail::column_ops_only,
  };
}

}  // namespace kl::rows_cols_vec16
