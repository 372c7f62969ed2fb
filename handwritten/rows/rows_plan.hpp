// rows_cols_cluster's plan and rows_auto's choice of it, as host arithmetic (no CUDA), so that
// tests/host/test_rows_plan.cpp checks them without a GPU against the plans that were measured
// (H100, float: docs/rows-and-dot.md).
#pragma once

#include <cstddef>

namespace kl::rows_plan {

constexpr std::size_t kColsPerBlock = 32;  // rows_cols_coalesced::kCols: column threads per block
constexpr unsigned kPortableClusterChunks = 8;  // the portable cluster size
constexpr unsigned kMaxClusterChunks = 16;      // the most the plan asks for, where the device allows it (H100, H200)
// The blocks (of 256 threads) per SM the cluster plan aims at. Measured at every chunk count on
// the H100, the fastest grid was about 4 blocks per SM wherever a shape allowed it: float 16384²
// 512 blocks (4 chunks) ahead of 1024 (8) and 256 (2); 8192² 512 (8 chunks) ahead of 256;
// 1024 × 65536 512 (one chunk) ahead of 1024 (the trials docs/log.md cites, "rows and dot").
constexpr std::size_t kBlocksPerSm = 4;
// A chunk keeps at least one round of every thread's loads (8 row-threads × 4 rows).
constexpr std::size_t kMinChunkRows = 32;
// Columns this short (rows) are latency, not bandwidth: one launch beats two even on a grid
// that does not fill the GPU (float 1000²: 64 blocks ahead of rows_cols_coalesced's two
// launches; the same logs).
constexpr std::size_t kShortColumn = 1024;

struct ClusterPlan {
  std::size_t col_blocks;  // column blocks of kColsPerBlock · W columns
  unsigned chunks;         // row chunks of one column block: the cluster's size
  std::size_t rows;        // rows per chunk
};

constexpr std::size_t ceil_div_sz(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// W: columns per thread (4 floats or 2 doubles on the 16-byte path, 1 on the element path);
// max_chunks: the largest cluster the device launches for the kernel (16 on the H100 and H200
// with the non-portable opt-in, else 8). The chunk count doubles, up to max_chunks, while the
// doubled grid stays within kBlocksPerSm blocks per SM and a chunk keeps kMinChunkRows rows.
// 16 chunks were measured where 8 leave the grid short (docs/rows-and-dot.md, "The rows ladder
// (`compare -f rows`)"): faster than 8 chunks at float 3000² (384 blocks), 4096² (512 blocks)
// and 16384 × 4096 (the trials docs/log.md cites, "rows and dot").
constexpr ClusterPlan cols_cluster(std::size_t M, std::size_t N, std::size_t W, std::size_t sms,
                                   unsigned max_chunks = kPortableClusterChunks) {
  const std::size_t col_blocks = ceil_div_sz(N, kColsPerBlock * W);
  const std::size_t target = sms * kBlocksPerSm;
  unsigned S = 1;
  while (S < max_chunks && col_blocks * 2 * S <= target && ceil_div_sz(M, 2 * std::size_t{S}) >= kMinChunkRows) S *= 2;
  return {col_blocks, S, ceil_div_sz(M, S)};
}

// Whether rows_auto takes the cluster (given that the device runs clusters and the 16-byte path
// is open): its grid has a block per SM, or the columns are short. Where it does not, the
// two-launch steps split the rows into as many chunks as filling the GPU takes (up to 1024):
// float 65536 × 1024 gets 128 blocks here even at 16 chunks and loses to rows_cols_coalesced,
// while 2048² at 256 blocks and 2500 × 2000 win (docs/rows-and-dot.md, "The rows ladder
// (`compare -f rows`)"; the trials docs/log.md cites, "rows and dot"). The 16-byte path only:
// on the element path (16384 × 16383) the cluster lost at every chunk count (same logs).
constexpr bool cluster_pays(std::size_t M, const ClusterPlan& p, std::size_t sms) {
  return p.col_blocks * p.chunks >= sms || M <= kShortColumn;
}

}  // namespace kl::rows_plan
