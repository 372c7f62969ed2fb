// A 64-wide transpose tile moved with 8- or 16-byte accesses: does it beat transpose6?
//
// transpose6 (a 64 × 64 padded tile, 4-byte accesses) is ahead of cublasSgeam on the H100 and
// 0.8% behind it on the H200 at float 16384² (results/h200/session33/h200.md), where the double
// transpose, whose accesses are 8 bytes, is 4.5% ahead. transpose5 moved 16 bytes per access
// but with a 32-wide tile (128-byte row segments per DRAM page opened), and lost to transpose6 on
// both cards. This trial keeps transpose6's 64-wide tile and its 256-byte row segments and
// widens the accesses: a thread reads V consecutive floats of V consecutive rows of A (V = 2:
// float2, V = 4: float4), transposes that V × V block in registers, and stores its V columns as
// V-float chunks of the transposed tile in shared memory; the second phase reads one chunk per
// thread and writes it to B with one V-float store. The chunks are XOR-swizzled (chunk g of tile
// row c lives at g ^ ((c / V) & (32 / V − 1))): the V·tx + j rows a half-warp (V = 2) or
// quarter-warp (V = 4) scatters into then hit distinct bank groups, and the second phase's
// reads of one row are a permutation of its chunks, so neither phase has a bank conflict.
// The step transpose7_vec_tile (handwritten/transpose/transpose7_vec_tile.cuh) is this kernel with
// edge guards and an element-wise path for any shape. The trial keeps its own guard-free body,
// the code its logs measured: moving a kernel's body into shared code changes its registers
// (transpose_order_trial.cu says how much that cost once).
// N multiple of 64 only (a trial: no edge guards), against cublasSgeam and transpose6's kernel
// at 64 × 4 and 64 × 8, each output checked for equality with cuBLAS's before and after its
// timed launches (integer inputs).
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/transpose_vec_tile_trial.cu -lcublas -o /tmp/transpose_vec_tile
//   /tmp/transpose_vec_tile [N ...]     (N × N float, default 16384 8192)
#include "handwritten/transpose/transpose4_rows_per_thread.cuh"
#include "scripts/trials/trial_common.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace kl;
using namespace trial;

namespace {

template <int V>
struct Vec;
template <>
struct Vec<2> {
  using type = float2;
};
template <>
struct Vec<4> {
  using type = float4;
};

template <int V, int kRows>
__global__ void __launch_bounds__(64 / V * kRows)
    transpose_vec_tile(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  using VT = typename Vec<V>::type;
  constexpr int kTile = 64, kChunks = kTile / V, kMask = 32 / V - 1;
  static_assert(kChunks % kRows == 0, "thread rows tile the row groups");
  __shared__ VT tile[kTile][kChunks];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = blockIdx.x * kTile;
  const int tiles_y = M / kTile;
  for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const int row0 = by * kTile;
#pragma unroll
    for (int k = 0; k < kChunks / kRows; ++k) {
      const int g = ty + k * kRows;  // row group: tile rows V·g ... V·g + V − 1
      float v[V][V];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const VT x = *reinterpret_cast<const VT*>(in + static_cast<std::size_t>(row0 + V * g + e) * N + col0 + V * tx);
        const float* xp = reinterpret_cast<const float*>(&x);
#pragma unroll
        for (int j = 0; j < V; ++j) v[e][j] = xp[j];
      }
#pragma unroll
      for (int j = 0; j < V; ++j) {
        VT w;
        float* wp = reinterpret_cast<float*>(&w);
#pragma unroll
        for (int e = 0; e < V; ++e) wp[e] = v[e][j];
        tile[V * tx + j][g ^ (tx & kMask)] = w;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile / kRows; ++k) {
      const int c = ty + k * kRows;
      *reinterpret_cast<VT*>(out + static_cast<std::size_t>(col0 + c) * M + row0 + V * tx) = tile[c][tx ^ ((c / V) & kMask)];
    }
    __syncthreads();
  }
}

void run(int n, FlushTimer& tm) {
  TransposeProblem pb(n, 7, tm, "config", 36);
  const TransposeArgs<float> a{pb.A, pb.B, n, n};
  const dim3 grid = transpose_detail::tile_grid(n, n, 64, 64);
  pb.row("transpose6 64 x 4", [&] { transpose_detail::launch_tiles(transpose4::transpose_rows<float, 64, 4>, a, 64, dim3(64, 4), nullptr); });
  pb.row("transpose6 64 x 8", [&] { transpose_detail::launch_tiles(transpose4::transpose_rows<float, 64, 8>, a, 64, dim3(64, 8), nullptr); });
  pb.row("float2, 32 x 4", [&] { transpose_vec_tile<2, 4><<<grid, dim3(32, 4)>>>(pb.A, pb.B, n, n); });
  pb.row("float2, 32 x 8", [&] { transpose_vec_tile<2, 8><<<grid, dim3(32, 8)>>>(pb.A, pb.B, n, n); });
  pb.row("float2, 32 x 16", [&] { transpose_vec_tile<2, 16><<<grid, dim3(32, 16)>>>(pb.A, pb.B, n, n); });
  pb.row("float4, 16 x 4", [&] { transpose_vec_tile<4, 4><<<grid, dim3(16, 4)>>>(pb.A, pb.B, n, n); });
  pb.row("float4, 16 x 8", [&] { transpose_vec_tile<4, 8><<<grid, dim3(16, 8)>>>(pb.A, pb.B, n, n); });
  pb.row("float4, 16 x 16", [&] { transpose_vec_tile<4, 16><<<grid, dim3(16, 16)>>>(pb.A, pb.B, n, n); });
  pb.library_again();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {16384, 8192};
  for (int n : sizes)
    if (n < 64 || n > 32768 || n % 64) {
      std::printf("transpose_vec_tile: N must be a multiple of 64 from 64 to 32768\n");
      return 2;
    }
  begin_trial(240);
  FlushTimer tm;
  for (int n : sizes) run(n, tm);
  return 0;
}
