// rows_cols_cluster's plan and rows_auto's choice of it (handwritten/rows/rows_plan.hpp), checked
// without a GPU against the grids that were measured (H100, 132 SMs, clusters up to 16, float:
// docs/rows-and-dot.md, "The rows ladder (`compare -f rows`)"; the timed grids: docs/log.md,
// "rows and dot").
#include "handwritten/rows/rows_plan.hpp"

#include <doctest/doctest.h>

using namespace kl::rows_plan;

namespace {
constexpr std::size_t kH100 = 132;
ClusterPlan h100(std::size_t M, std::size_t N, std::size_t W = 4) { return cols_cluster(M, N, W, kH100, kMaxClusterChunks); }
}  // namespace

TEST_CASE("cols_cluster: about 4 blocks per SM, chunks doubling up to the device's largest cluster") {
  // 16384² floats, 16-byte path (4 columns a thread): 128 column blocks × 4 chunks = 512 blocks,
  // the fastest chunk count measured (ahead of 8, 2 and 16 chunks).
  ClusterPlan p = h100(16384, 16384);
  CHECK(p.col_blocks == 128);
  CHECK(p.chunks == 4);
  CHECK(p.rows == 4096);
  // 8192²: 64 × 8 = 512 (ahead of 4 and 16 chunks).
  p = h100(8192, 8192);
  CHECK(p.col_blocks == 64);
  CHECK(p.chunks == 8);
  // 1024 × 65536: 512 column blocks, one chunk (ahead of 2 chunks).
  p = h100(1024, 65536);
  CHECK(p.col_blocks == 512);
  CHECK(p.chunks == 1);
  // 1000²: 8 column blocks × 16 chunks of 63 rows (of 1 to 8 chunks, 8 was the fastest).
  p = h100(1000, 1000);
  CHECK(p.col_blocks == 8);
  CHECK(p.chunks == 16);
  CHECK(p.rows == 63);
  // 3000² and 4096²: 16 chunks where 8 leave the grid short (16 measured faster at both).
  CHECK(h100(3000, 3000).chunks == 16);
  CHECK(h100(4096, 4096).chunks == 16);
  // Where the device allows only the portable 8.
  CHECK(cols_cluster(4096, 4096, 4, kH100).chunks == 8);
  // A chunk keeps at least 32 rows: 100 rows are 2 chunks of 50, 31 rows one chunk.
  CHECK(h100(100, 1000).chunks == 2);
  CHECK(h100(31, 1000).chunks == 1);
  // One row, one column: one block.
  p = h100(1, 1, 1);
  CHECK(p.col_blocks == 1);
  CHECK(p.chunks == 1);
  // The SM count is the device's: a 58-SM GPU (an L4) aims at 232 blocks.
  CHECK(cols_cluster(16384, 16384, 4, 58).chunks == 1);
  CHECK(cols_cluster(8192, 8192, 4, 58).chunks == 2);
}

TEST_CASE("cluster_pays: a block per SM, or short columns") {
  const auto pays = [](std::size_t M, std::size_t N) { return cluster_pays(M, h100(M, N), kH100); };
  CHECK(pays(16384, 16384));  // 512 blocks
  CHECK(pays(8192, 8192));    // 512
  CHECK(pays(1024, 65536));   // 512
  CHECK(pays(4096, 4096));    // 512 (ahead of rows_cols_coalesced)
  CHECK(pays(2048, 2048));    // 256 (ahead)
  CHECK(pays(2500, 2000));    // 256 (ahead)
  CHECK(pays(16384, 4096));   // 512 (ahead)
  CHECK(pays(1000, 1000));    // 128 blocks, but 1000 rows: one launch wins
  CHECK_FALSE(pays(65536, 1024));  // 128 blocks at 16 chunks (behind)
  CHECK_FALSE(pays(262144, 64));   // 16 blocks
}
