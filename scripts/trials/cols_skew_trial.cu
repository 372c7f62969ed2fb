// Why a column reduction reads a gigabyte slower than a row reduction (H100, float 16384²: 352-358
// µs for the column steps against 337 µs for rows_block_deep, results/h100/session34/h100.md):
// is it the power-of-two row pitch? In the column kernels every block reads the same rows at the
// same moment, 64 KiB apart, so the addresses in flight share their low 16 bits; if DRAM's channel
// hash leans on those bits, the requests crowd a few channels. Two ways to test it:
//   - a padded pitch (16384 + 32 floats): the same kernel, rows no longer 64 KiB apart;
//   - a skew: each column block starts its chunk at another round of rows (the rounds rotated by
//     blockIdx.x), so the blocks in flight read different rows at any moment.
// The kernel is rows_cols_cluster's (its plan: 128 column blocks × 4 chunks at 16384²) with the
// rotation added, the sums folded through the cluster as there. Column sums of integer inputs,
// checked for equality with the host's before and after timing; cublasSgemv with ones beside.
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/cols_skew_trial.cu -lcublas -o /tmp/cols_skew
//   /tmp/cols_skew
#include "handwritten/rows/rows_cols_cluster.cuh"
#include "scripts/trials/trial_common.hpp"

#include <cooperative_groups.h>

#include <cstdio>
#include <random>
#include <vector>

using namespace kl;
using namespace trial;

namespace {

namespace rc = rows_cols_coalesced;
constexpr int kRound = rc::kRowThreads * rc::kUnroll;  // rows one round of a block's loads covers

// rows_cols_cluster's kernel for the 16-byte path with chunk_rows a multiple of kRound, the rounds
// of the chunk taken from round (blockIdx.x · skew) mod rounds onwards, wrapping.
__global__ void __launch_bounds__(rc::kThreads)
    cols_skewed(const float* __restrict__ A, int N, std::size_t pitch, std::size_t chunk_rows, int skew, float* __restrict__ out) {
  namespace cg = cooperative_groups;
  constexpr int W = 4;
  constexpr int kColumns = rc::kCols * W;
  __shared__ __align__(16) float part[rc::kRowThreads][kColumns];
  __shared__ float folds[kColumns];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned S = cluster.num_blocks(), q = cluster.block_rank();
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = (static_cast<int>(blockIdx.x) * rc::kCols + tx) * W;
  const std::size_t r0 = static_cast<std::size_t>(q) * chunk_rows;
  const int rounds = static_cast<int>(chunk_rows / kRound);
  const int first = static_cast<int>((static_cast<long long>(blockIdx.x) * skew) % rounds);
  float4 acc[rc::kUnroll];
#pragma unroll
  for (int u = 0; u < rc::kUnroll; ++u) acc[u] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (col < N) {
    const float* a = A + col;
    for (int i = 0; i < rounds; ++i) {
      int j = first + i;
      if (j >= rounds) j -= rounds;
      const std::size_t r = r0 + static_cast<std::size_t>(j) * kRound + ty;
      float4 v[rc::kUnroll];
#pragma unroll
      for (int u = 0; u < rc::kUnroll; ++u) v[u] = *reinterpret_cast<const float4*>(a + (r + u * rc::kRowThreads) * pitch);
#pragma unroll
      for (int u = 0; u < rc::kUnroll; ++u) acc[u].x += v[u].x, acc[u].y += v[u].y, acc[u].z += v[u].z, acc[u].w += v[u].w;
    }
  }
  acc[0].x += acc[2].x, acc[0].y += acc[2].y, acc[0].z += acc[2].z, acc[0].w += acc[2].w;
  acc[1].x += acc[3].x, acc[1].y += acc[3].y, acc[1].z += acc[3].z, acc[1].w += acc[3].w;
  acc[0].x += acc[1].x, acc[0].y += acc[1].y, acc[0].z += acc[1].z, acc[0].w += acc[1].w;
  *reinterpret_cast<float4*>(&part[ty][tx * W]) = acc[0];
  __syncthreads();
  for (int c = ty * rc::kCols + tx; c < kColumns; c += rc::kThreads) {
    float s = part[0][c];
    for (int k = 1; k < rc::kRowThreads; ++k) s += part[k][c];
    folds[c] = s;
  }
  cluster.sync();
  const int tid = ty * rc::kCols + tx;
  for (int c = static_cast<int>(q) + static_cast<int>(S) * tid; c < kColumns; c += static_cast<int>(S * rc::kThreads)) {
    const int column = static_cast<int>(blockIdx.x) * kColumns + c;
    if (column >= N) continue;
    float s = *cluster.map_shared_rank(&folds[c], 0);
    for (unsigned p = 1; p < S; ++p) s += *cluster.map_shared_rank(&folds[c], p);
    out[column] = s;
  }
  cluster.sync();
}

void launch_skewed(const float* A, int N, std::size_t pitch, std::size_t col_blocks, unsigned S, std::size_t rows, int skew, float* out) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(col_blocks), S);
  cfg.blockDim = dim3(rc::kCols, rc::kRowThreads);
  cudaLaunchAttribute cl = {};
  cl.id = cudaLaunchAttributeClusterDimension;
  cl.val.clusterDim.x = 1, cl.val.clusterDim.y = S, cl.val.clusterDim.z = 1;
  cfg.attrs = &cl;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, cols_skewed, A, N, pitch, rows, skew, out));
}

}  // namespace

int main() {
  begin_trial(300);
  const int M = 16384, N = 16384;
  const std::size_t padded = N + 32;
  std::vector<float> h(std::size_t(M) * padded, 0.f);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<double> sums(N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const float v = float(d(rng));
      h[std::size_t(i) * padded + j] = v;
      sums[j] += v;
    }
  std::vector<float> ref(N), ref_mean(N);
  for (int j = 0; j < N; ++j) ref[j] = float(sums[j]), ref_mean[j] = float(sums[j]) / float(M);
  float *Ap = nullptr, *A = nullptr, *y = nullptr;
  CK(cudaMalloc(&Ap, h.size() * 4));
  CK(cudaMalloc(&A, std::size_t(M) * N * 4));
  CK(cudaMemcpy(Ap, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy2D(A, N * 4, Ap, padded * 4, N * 4, M, cudaMemcpyDeviceToDevice));
  CK(cudaMalloc(&y, N * 4));
  const float* ones = device_ones(M);
  FlushTimer tm;
  const float one = 1.f, zero = 0.f;
  auto row = [&](const char* name, auto&& launch, const std::vector<float>& want, double t_lib) {
    const CheckedTime r = checked_median_us(tm, launch, y, want);
    std::printf("%-56s %9.1f %7.1f%% %s\n", name, r.us, t_lib > 0 ? 100.0 * t_lib / r.us : 100.0, r.exact ? "exact" : "FAIL");
    return r.us;
  };
  std::printf("\n## column sums float %d x %d\n%-56s %9s %8s %s\n", M, N, "config", "us", "vs lib", "check");
  const double t_lib = row("cublasSgemv (ones), packed",
                           [&] { CB(cublasSgemv(g_handle, CUBLAS_OP_N, N, M, &one, A, N, ones, 1, &zero, y, 1)); }, ref, 0);
  row("cublasSgemv (ones), pitch N + 32",
      [&] { CB(cublasSgemv(g_handle, CUBLAS_OP_N, N, M, &one, Ap, int(padded), ones, 1, &zero, y, 1)); }, ref, t_lib);
  // rows_cols_cluster itself (means), packed and padded.
  const RowsArgs<float> packed_args{A, M, N, std::size_t(N), RowOp::col_mean, y, nullptr};
  const RowsArgs<float> padded_args{Ap, M, N, padded, RowOp::col_mean, y, nullptr};
  row("rows_cols_cluster (mean), packed", [&] { rows_cols_cluster::launch<float>(packed_args, nullptr); }, ref_mean, t_lib);
  row("rows_cols_cluster (mean), pitch N + 32", [&] { rows_cols_cluster::launch<float>(padded_args, nullptr); }, ref_mean, t_lib);
  const std::size_t col_blocks = ceil_div(std::size_t(N), std::size_t(rc::kCols) * 4);
  for (unsigned S : {4u, 8u}) {
    const std::size_t rows = M / S;
    for (int skew : {0, 1, 7, 37}) {
      for (bool pad : {false, true}) {
        char name[96];
        std::snprintf(name, sizeof name, "skewed S=%u, skew %d rounds, %s", S, skew, pad ? "pitch N + 32" : "packed");
        row(name, [&] { launch_skewed(pad ? Ap : A, N, pad ? padded : std::size_t(N), col_blocks, S, rows, skew, y); }, ref, t_lib);
      }
    }
  }
  return 0;
}
