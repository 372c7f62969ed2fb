// The two rows of issue 24 that the H200 left below its library (results/h200/session33/h200.md):
// float 16384² transpose (transpose6 64×4 540.8 µs against cublasSgeam's 536.5) and the float
// 16384² column mean (rows_cols_vec16 254.8 µs against cublasSgemv with ones, 251.8). On the H100
// both are ahead (101.2%, 102.0%). This trial times the choices each kernel fixed on the H100, so
// one call on an H200 says whether another one wins there. Standalone:
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/h200_misses_trial.cu -lcublas -o /tmp/h200_misses
//   /tmp/h200_misses [N]       (default N = 16384: N × N float)
// - transpose: transpose4::transpose_rows (transpose4 and transpose6's kernel) at tile 32 and 64
//   with every thread-row count, against cublasSgeam; each output checked for equality with
//   cuBLAS's before and after its timed launches.
// - column sums (the column mean without its final division, so integer inputs give exact sums):
//   rows_cols_coalesced's 16-byte kernel at every chunk count from 1 (one pass, no second kernel)
//   to 64, and the count rows_cols_vec16 takes on this GPU, against cublasSgemv (OP_N on the
//   column-major view, a ones vector filled before timing); each checked for equality with
//   cuBLAS's sums before and after timing.
// Timing as compare does it (trial::FlushTimer: L2 emptied before each sample, CUDA events, the
// median of 60). Run on an H200 in session 35: results/h200/session35/h200_misses_trial.log.
#include "handwritten/rows/rows_cols_coalesced.cuh"
#include "handwritten/transpose/transpose4_rows_per_thread.cuh"
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

// Device memory holding `n` integer-valued floats in [-4, 4] (every sum of them up to 2^22 terms
// is exact in float).
float* integer_matrix(std::size_t n, unsigned seed) {
  std::vector<float> h(n);
  std::mt19937 rng(seed);
  fill_inputs(h, true, rng);
  float* d = nullptr;
  CK(cudaMalloc(&d, n * 4));
  CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  return d;
}

template <class F>
void row(const char* name, F&& launch, float* out, const std::vector<float>& ref, double t_lib, FlushTimer& tm) {
  const CheckedTime r = checked_median_us(tm, launch, out, ref);
  std::printf("%-34s %9.1f %7.1f%% %s\n", name, r.us, 100.0 * t_lib / r.us, r.exact ? "exact" : "FAIL");
}

void transpose(int n, FlushTimer& tm) {
  TransposeProblem pb(n, 1, tm, "config", 34);
  const TransposeArgs<float> a{pb.A, pb.B, n, n};
  auto run = [&](const char* name, auto kernel, int tile, dim3 block) {
    pb.row(name, [&] { transpose_detail::launch_tiles(kernel, a, tile, block, nullptr); });
  };
  run("tile 32, 32 x 4", transpose4::transpose_rows<float, 32, 4>, 32, dim3(32, 4));
  run("tile 32, 32 x 8 (transpose4)", transpose4::transpose_rows<float, 32, 8>, 32, dim3(32, 8));
  run("tile 32, 32 x 16", transpose4::transpose_rows<float, 32, 16>, 32, dim3(32, 16));
  run("tile 64, 64 x 2", transpose4::transpose_rows<float, 64, 2>, 64, dim3(64, 2));
  run("tile 64, 64 x 4 (transpose6)", transpose4::transpose_rows<float, 64, 4>, 64, dim3(64, 4));
  run("tile 64, 64 x 8 (transpose6)", transpose4::transpose_rows<float, 64, 8>, 64, dim3(64, 8));
  run("tile 64, 64 x 16", transpose4::transpose_rows<float, 64, 16>, 64, dim3(64, 16));
  pb.library_again();
}

void column_sums(int n, FlushTimer& tm) {
  using Op = rows_detail::Sum<float>;
  namespace rc = rows_cols_coalesced;
  const std::size_t e = std::size_t(n) * n;
  float* A = integer_matrix(e, 2);
  float* ones = device_ones(n);
  float *y = nullptr, *yref = nullptr, *parts = nullptr;
  CK(cudaMalloc(&y, n * 4));
  CK(cudaMalloc(&yref, n * 4));
  CK(cudaMalloc(&parts, std::size_t(n) * rc::kMaxChunks * 4));
  const float one = 1.f, zero = 0.f;
  // Column sums of row-major A (n × n): in the column-major view X = Aᵀ, y = X·1 (OP_N).
  auto lib = [&] { CB(cublasSgemv(g_handle, CUBLAS_OP_N, n, n, &one, A, n, ones, 1, &zero, yref, 1)); };
  const double t_lib = tm.median_us(lib);
  std::vector<float> ref(n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ref.data(), yref, n * 4, cudaMemcpyDeviceToHost));
  const std::size_t chosen = rc::chunks_for(n, n, kVec<float>).count;
  std::printf("\n## column sums float %d x %d: cublasSgemv (ones) %.1f us; rows_cols_vec16 takes %zu chunks here\n"
              "%-34s %9s %8s %s\n",
              n, n, t_lib, chosen, "chunks (blocks)", "us", "vs lib", "check");
  constexpr int W = kVec<float>;
  const unsigned col_blocks = static_cast<unsigned>(ceil_div(n, rc::kCols * W));
  for (std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}, std::size_t{12}, std::size_t{16},
                            chosen, std::size_t{24}, std::size_t{32}, std::size_t{48}, std::size_t{64}}) {
    const std::size_t rows = ceil_div(std::size_t(n), count);
    const std::size_t used = ceil_div(std::size_t(n), rows);
    auto launch = [&] {
      rc::cols_chunk<float, Op, true><<<dim3(col_blocks, unsigned(used)), dim3(rc::kCols, rc::kRowThreads)>>>(A, n, n, n, rows, y,
                                                                                                              parts);
      if (used > 1) rows_detail::launch_combine_parts<float, Op>(parts, std::size_t(n), unsigned(used), n, y, nullptr);
    };
    char name[64];
    std::snprintf(name, sizeof name, "%zu (%zu)%s", used, used * col_blocks, used == chosen ? " <- vec16" : "");
    row(name, launch, y, ref, t_lib, tm);
  }
  std::printf("cublasSgemv again: %.1f us\n", tm.median_us(lib));
  cudaFree(A), cudaFree(ones), cudaFree(y), cudaFree(yref), cudaFree(parts);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16384;
  if (n < 1 || n > 32768) {
    std::printf("h200_misses: N must be 1 to 32768, not '%s'\n", argv[1]);
    return 2;
  }
  begin_trial(240);
  FlushTimer tm;
  transpose(n, tm);
  column_sums(n, tm);
  return 0;
}
