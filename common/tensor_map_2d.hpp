// The geometry of a 2-D TMA descriptor for a row-major matrix, as cuTensorMapEncodeTiled takes it
// (common/hopper.cuh encodes it). Host-compilable (no CUDA headers), so the host suite checks it
// (tests/host/test_tensor_map_2d.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kl {

// cuTensorMapEncodeTiled's arrays for a rank-2 map, innermost dimension first: sizes in elements,
// the one stride (between rows) in bytes, the box in elements.
struct TensorMap2d {
  std::uint64_t dims[2];
  std::uint64_t strides[1];
  std::uint32_t box[2];
};

// A row-major rows × cols matrix of elem_bytes elements, rows `pitch` elements apart (0: cols),
// read in boxes of box_rows × box_cols: the columns are the innermost dimension. Only the
// columns below cols are the matrix's: a box reaching past them reads zeros, whatever the pitch
// holds there.
constexpr TensorMap2d row_major_2d(int rows, int cols, int box_rows, int box_cols, std::size_t elem_bytes,
                                   std::size_t pitch = 0) {
  return {{std::uint64_t(cols), std::uint64_t(rows)},
          {std::uint64_t(pitch ? pitch : std::size_t(cols)) * elem_bytes},
          {std::uint32_t(box_cols), std::uint32_t(box_rows)}};
}

// TMA's own limits on such a map (the driver refuses anything else): a row pitch that is a
// multiple of 16 bytes, box sides of 1 to 256 elements, box rows a multiple of 16 bytes; with a
// swizzle (swizzle_bytes 32, 64 or 128; 0 for none) a box row no wider than the swizzle's span.
constexpr bool tma_describes(const TensorMap2d& m, std::size_t elem_bytes, int swizzle_bytes = 0) {
  const std::uint64_t row_bytes = std::uint64_t(m.box[0]) * elem_bytes;
  return m.strides[0] % 16 == 0 && m.box[0] >= 1 && m.box[0] <= 256 && m.box[1] >= 1 && m.box[1] <= 256 &&
         row_bytes % 16 == 0 && (swizzle_bytes == 0 || row_bytes <= std::uint64_t(swizzle_bytes));
}

}  // namespace kl
