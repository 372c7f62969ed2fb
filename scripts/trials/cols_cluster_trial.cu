// The column mean in one launch (rows_cols_cluster) against the two-launch steps and cuBLAS, and
// the cluster's chunk count: what rows_cols_cluster's plan and rows_auto's choice rest on.
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/cols_cluster_trial.cu -lcublas -o /tmp/cols_cluster
//   /tmp/cols_cluster            (float; the shapes below)
// Per shape: cublasSgemv with a ones vector (column sums: the library row of compare's col_mean,
// which scales them by 1/M in the same call), rows_cols_coalesced and rows_cols_vec16 as they
// launch (with their second pass), rows_cols_cluster with its plan and with every chunk count 1, 2,
// 4, 8. Integer inputs in [-4, 4]: every column sum is exact in any order, so every variant's mean
// must equal float(sum) / float(M) bit for bit, before and after its timed launches (cuBLAS's sums
// equal the host's). Timing as compare does it (FlushTimer: L2 emptied, median of 60).
#include "handwritten/rows/rows_auto.cuh"
#include "handwritten/rows/rows_cols_cluster.cuh"
#include "scripts/trials/trial_common.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kl;
using namespace trial;

namespace {

struct Shape {
  int M, N;
};

void run_shape(Shape sh, const float* A, const std::vector<float>& hA, float* y, float* yref, const float* ones, void* ws,
               FlushTimer& tm) {
  const int M = sh.M, N = sh.N;
  std::vector<double> sums(N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) sums[j] += hA[std::size_t(i) * N + j];
  std::vector<float> ref_sum(N), ref_mean(N);
  for (int j = 0; j < N; ++j) ref_sum[j] = float(sums[j]), ref_mean[j] = float(sums[j]) / float(M);
  const float one = 1.f, zero = 0.f;
  auto lib = [&] { CB(cublasSgemv(g_handle, CUBLAS_OP_N, N, M, &one, A, N, ones, 1, &zero, yref, 1)); };
  const CheckedTime lt = checked_median_us(tm, lib, yref, ref_sum);
  std::printf("\n## col_mean float %d x %d: cublasSgemv (ones) %.1f us (%.0f GB/s) %s\n", M, N, lt.us,
              double(M) * N * 4 / lt.us * 1e-3, lt.exact ? "exact" : "FAIL");
  std::printf("%-48s %9s %8s %s\n", "variant", "us", "vs lib", "check");
  const RowsArgs<float> a{A, M, N, std::size_t(N), RowOp::col_mean, y, ws};
  auto row = [&](const char* name, auto&& launch) {
    const CheckedTime r = checked_median_us(tm, launch, y, ref_mean);
    std::printf("%-48s %9.1f %7.1f%% %s\n", name, r.us, 100.0 * lt.us / r.us, r.exact ? "exact" : "FAIL");
  };
  row("rows_cols_coalesced", [&] { rows_cols_coalesced::launch<float>(a, nullptr); });
  {
    const auto ch = rows_cols_coalesced::chunks_for(M, N, kVec<float>);
    char name[64];
    std::snprintf(name, sizeof name, "rows_cols_vec16 (%zu chunks)", ch.count);
    row(name, [&] { rows_cols_vec16::launch<float>(a, nullptr); });
  }
  {
    const auto path = rows_auto::path_for<float>({M, N, std::size_t(N), RowOp::col_mean});
    const char* names[] = {"coalesced", "vec16", "cluster", "split", "deep", "subwarp"};
    char name[64];
    std::snprintf(name, sizeof name, "rows_auto (takes %s)", names[int(path)]);
    row(name, [&] { rows_auto::variant<float>().launch(a, nullptr); });
  }
  const bool vector = rows_cols_cluster::vector_path(a);
  const int W = vector ? kVec<float> : 1;
  const auto plan = rows_cols_cluster::plan_for<float>(M, N, W);
  for (unsigned S : {1u, 2u, 4u, 8u, 16u}) {
    rows_cols_cluster::Plan p = plan;
    p.chunks = S;
    p.rows = ceil_div(std::size_t(M), std::size_t(S));
    char name[96];
    std::snprintf(name, sizeof name, "rows_cols_cluster S=%u (%zu blocks)%s", S, p.col_blocks * S, S == plan.chunks ? " <- plan" : "");
    row(name, [&] {
      if (vector) rows_cols_cluster::launch_plan<float, true>(a, p, nullptr);
      else rows_cols_cluster::launch_plan<float, false>(a, p, nullptr);
    });
  }
  // The element path's plan (4-byte loads, 4 times the column blocks), where the 16-byte one is open.
  if (vector)
    for (unsigned S : {0u, 16u}) {
      rows_cols_cluster::Plan p = rows_cols_cluster::plan_for<float>(M, N, 1);
      if (S) p.chunks = S, p.rows = ceil_div(std::size_t(M), std::size_t(S));
      char name[96];
      std::snprintf(name, sizeof name, "rows_cols_cluster element path S=%u (%zu blocks)", p.chunks, p.col_blocks * p.chunks);
      row(name, [&] { rows_cols_cluster::launch_plan<float, false>(a, p, nullptr); });
    }
}

}  // namespace

int main() {
  begin_trial(400);
  // TRIAL_SHAPES=mid: the shapes cuBLAS still led at in results/h100/session34/cols_cluster_trial_b.log.
  const bool mid = std::getenv("TRIAL_SHAPES") && std::string(std::getenv("TRIAL_SHAPES")) == "mid";
  const std::vector<Shape> shapes =
      mid ? std::vector<Shape>{{16384, 16384}, {4096, 4096}, {3000, 3000}, {2048, 2048}, {2500, 2000}, {16384, 4096}, {65536, 1024}, {8192, 8192}}
          : std::vector<Shape>{{16384, 16384}, {16384, 16383}, {8192, 8192},  {4096, 4096},  {2500, 2000},
                               {1000, 1000},   {65536, 1024},  {1024, 65536}, {262144, 64},  {1000003, 8},
                               {3000, 3000},   {16384, 4096},  {4096, 16384}, {1000, 4000},  {600, 20000},
                               {1024, 1024},   {2048, 2048},   {200, 200},    {12000, 12000}};
  std::size_t most = 0;
  for (Shape s : shapes) most = std::max(most, std::size_t(s.M) * s.N);
  std::vector<float> hA(most);
  std::mt19937 rng(11);
  fill_inputs(hA, true, rng);
  float *A = nullptr, *y = nullptr, *yref = nullptr;
  void* ws = nullptr;
  CK(cudaMalloc(&A, most * 4));
  CK(cudaMemcpy(A, hA.data(), most * 4, cudaMemcpyHostToDevice));
  int widest = 0, tallest = 0;
  for (Shape s : shapes) widest = std::max(widest, s.N), tallest = std::max(tallest, s.M);
  CK(cudaMalloc(&y, widest * 4));
  CK(cudaMalloc(&yref, widest * 4));
  CK(cudaMalloc(&ws, std::size_t(widest) * rows_cols_coalesced::kMaxChunks * 4));
  const float* ones = device_ones(tallest);
  FlushTimer tm;
  for (Shape s : shapes) run_shape(s, A, hA, y, yref, ones, ws, tm);
  return 0;
}
