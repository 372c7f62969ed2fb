// common/tensor_map_2d.hpp: the arrays a 2-D TMA descriptor is encoded from, and TMA's limits on
// them, checked without a GPU (the driver would refuse a map that breaks them at launch time).
#include "common/tensor_map_2d.hpp"

#include <doctest/doctest.h>

using kl::row_major_2d;
using kl::tma_describes;

TEST_CASE("tensor map 2d: a row-major matrix, innermost dimension first") {
  // 300 rows × 1000 floats, read in boxes of 128 rows × 32 floats.
  const kl::TensorMap2d m = row_major_2d(300, 1000, 128, 32, sizeof(float));
  CHECK(m.dims[0] == 1000);
  CHECK(m.dims[1] == 300);
  CHECK(m.strides[0] == 4000);  // bytes between rows
  CHECK(m.box[0] == 32);
  CHECK(m.box[1] == 128);
  CHECK(tma_describes(m, sizeof(float)));
  CHECK(tma_describes(m, sizeof(float), 128));  // a 128-byte box row fits the 128-byte swizzle
  // Large matrices: the stride is computed in 64 bits.
  CHECK(row_major_2d(8, 1 << 30, 8, 32, sizeof(float)).strides[0] == (std::uint64_t(1) << 32));
}

TEST_CASE("tensor map 2d: TMA's limits") {
  // Row pitches must be multiples of 16 bytes: 1001 floats are not.
  CHECK_FALSE(tma_describes(row_major_2d(300, 1001, 128, 32, sizeof(float)), sizeof(float)));
  CHECK(tma_describes(row_major_2d(300, 1004, 128, 32, sizeof(float)), sizeof(float)));
  // Box sides of 1 to 256 elements.
  CHECK(tma_describes(row_major_2d(4096, 4096, 256, 256, sizeof(float)), sizeof(float)));
  CHECK_FALSE(tma_describes(row_major_2d(4096, 4096, 257, 32, sizeof(float)), sizeof(float)));
  CHECK_FALSE(tma_describes(row_major_2d(4096, 4096, 32, 512, sizeof(float)), sizeof(float)));
  CHECK_FALSE(tma_describes(row_major_2d(4096, 4096, 0, 32, sizeof(float)), sizeof(float)));
  // Box rows in whole 16-byte units: 2 floats are 8 bytes.
  CHECK_FALSE(tma_describes(row_major_2d(4096, 4096, 32, 2, sizeof(float)), sizeof(float)));
  // A swizzled box row no wider than the swizzle's span.
  CHECK(tma_describes(row_major_2d(4096, 4096, 128, 16, sizeof(float)), sizeof(float), 64));
  CHECK_FALSE(tma_describes(row_major_2d(4096, 4096, 128, 32, sizeof(float)), sizeof(float), 64));
}

TEST_CASE("tensor map 2d: a padded copy's pitch, the matrix's own columns") {
  // 300 rows of 1001 floats copied into rows of 1004 (gemm13's padded operands): TMA reads the
  // copy's pitch, but the matrix still ends at column 1001 (a box past it reads zeros).
  const kl::TensorMap2d m = row_major_2d(300, 1001, 128, 32, sizeof(float), 1004);
  CHECK(m.dims[0] == 1001);
  CHECK(m.dims[1] == 300);
  CHECK(m.strides[0] == 1004 * 4);
  CHECK(tma_describes(m, sizeof(float), 128));
  CHECK(row_major_2d(300, 1001, 128, 32, sizeof(float), 0).strides[0] == 1001 * 4);  // 0: the columns
}
