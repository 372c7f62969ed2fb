// The order in which the transpose's tiles run: does grouping them help DRAM?
//
// transpose6's blocks run in row-major tile order (blockIdx.x along A's columns): the blocks
// resident at one time hold a few whole tile rows of A, so their reads are long contiguous runs,
// but their writes land in every row of B, 256 bytes per row per tile row (a DRAM page opened for
// 256 bytes). A grouped order (as in grouped GEMM rasterisation) runs G tile rows together, column
// of tiles by column of tiles, so the resident blocks cover a squarer region: shorter runs read,
// longer runs written. This trial times transpose6's kernel body (transpose4::transpose_rows,
// 64 × 64 tiles, 64 × 4 and 64 × 8 threads) in row-major order and grouped by G = 2 ... 256 tile
// rows (G = tiles_y: column-major), against cublasSgeam, each output checked for equality with
// cuBLAS's before and after its timed launches (integer inputs).
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/transpose_order_trial.cu -lcublas -o /tmp/transpose_order
//   /tmp/transpose_order [N]     (N × N float, default 16384)
#include "handwritten/transpose/transpose4_rows_per_thread.cuh"
#include "scripts/trials/trial_common.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace kl;
using namespace trial;

namespace {

// transpose4::transpose_rows' body for the tile chosen by a grouped order from a 1-D block index:
// G tile rows at a time, down each column of tiles. The body is repeated here rather than shared:
// moved into a device function for both kernels, it left transpose_rows with other register
// counts (64 × 4: 32 instead of 40; 64 × 2: 48 instead of 56 and 822.1 µs instead of 740.5,
// results/h100/session34/h100_misses_trial_b.log), and transpose6's code must stay the code the
// H100 and H200 rows measured.
template <int kTile, int kRows>
__global__ void __launch_bounds__(kTile * kRows)
    transpose_grouped(const float* __restrict__ in, float* __restrict__ out, int M, int N, int G) {
  __shared__ float tile[kTile][kTile + 1];
  const int tiles_x = (N + kTile - 1) / kTile, tiles_y = (M + kTile - 1) / kTile;
  const long long pid = blockIdx.x;
  const long long per_group = static_cast<long long>(G) * tiles_x;
  const int first = static_cast<int>(pid / per_group) * G;
  const int rows_here = min(G, tiles_y - first);
  const int in_group = static_cast<int>(pid % per_group);
  const int by = first + in_group % rows_here, bx = in_group / rows_here;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = bx * kTile, row0 = by * kTile;
#pragma unroll
  for (int k = 0; k < kTile / kRows; ++k) {
    const int r = ty + k * kRows;
    if (row0 + r < M && col0 + tx < N) tile[r][tx] = in[static_cast<std::size_t>(row0 + r) * N + col0 + tx];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kTile / kRows; ++k) {
    const int c = ty + k * kRows;
    if (col0 + c < N && row0 + tx < M) out[static_cast<std::size_t>(col0 + c) * M + row0 + tx] = tile[tx][c];
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16384;
  if (n < 1 || n > 32768) {
    std::printf("transpose_order: N must be 1 to 32768\n");
    return 2;
  }
  begin_trial(240);
  FlushTimer tm;
  TransposeProblem pb(n, 3, tm, "order", 40);
  auto row = [&](const char* name, auto&& launch) { pb.row(name, launch); };
  float *A = pb.A, *B = pb.B;
  const TransposeArgs<float> a{A, B, n, n};
  row("row-major 64 x 4 (transpose6)", [&] {
    transpose_detail::launch_tiles(transpose4::transpose_rows<float, 64, 4>, a, 64, dim3(64, 4), nullptr);
  });
  row("row-major 64 x 8 (transpose6)", [&] {
    transpose_detail::launch_tiles(transpose4::transpose_rows<float, 64, 8>, a, 64, dim3(64, 8), nullptr);
  });
  const int tiles = (n + 63) / 64;
  const unsigned blocks = unsigned(tiles) * unsigned(tiles);
  for (int G : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    if (G > tiles) break;
    char name[64];
    std::snprintf(name, sizeof name, "grouped G=%d, 64 x 4", G);
    row(name, [&] { transpose_grouped<64, 4><<<blocks, dim3(64, 4)>>>(A, B, n, n, G); });
    std::snprintf(name, sizeof name, "grouped G=%d, 64 x 8", G);
    row(name, [&] { transpose_grouped<64, 8><<<blocks, dim3(64, 8)>>>(A, B, n, n, G); });
  }
  pb.library_again();
  return 0;
}
