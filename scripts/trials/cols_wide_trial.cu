// Column sums of a row-major float matrix: how wide a block's row segment should be.
//
// The row reductions read 16384² float at 3187 GB/s on the H100 and 4528 on the H200 (rows_block_deep,
// rows_block_split); the column mean reads the same gigabyte at 3007 and 4214 (rows_cols_vec16;
// results/h100/session33/h100.md, results/h200/session33/h200.md), and cublasSgemv with ones at 2947
// and 4264. Both are pure streams of the same bytes, so the column kernel's 6-7% is a question of
// access shape, not of work. rows_cols_vec16's block is 32 × 8 threads: each warp reads 512 bytes
// of a row, the block's 8 warps read 8 different rows. Here a block is one row of threads (the
// fold across row-threads through shared memory goes away) as wide as kThreads × 16 bytes (512
// bytes to 4 KiB of one row per load), each thread keeping kUnroll rows in flight, over a chunk of
// rows; the chunk partials go through the same ordered second pass (combine_parts). Standalone:
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/cols_wide_trial.cu -lcublas -o /tmp/cols_wide
//   /tmp/cols_wide [M N]    (default 16384 16384)
// Every row is checked for equality with cublasSgemv's sums (integer inputs: every order is exact)
// before and after its timed launches; timing as compare does it (FlushTimer: L2 emptied, median of
// 60). "kernel only" rows time rows_cols_vec16's first kernel without its second pass (their output
// is partials, so they are not checked): the second pass's share of the time.
#include "handwritten/rows/rows_cols_coalesced.cuh"
#include "scripts/trials/trial_common.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace kl;
using namespace trial;

namespace {

enum class Load { plain, streaming };

// kThreads threads along one row, 4 adjacent columns each (a float4), kUnroll rows in flight; the
// block's chunk of rows [r0, r1) folded per thread in kUnroll accumulators, then pairwise.
// kSwap: the chunk is blockIdx.x and the column block blockIdx.y, so the blocks resident at one
// time hold every chunk of a few column blocks (many rows, few columns: the row kernels' pattern)
// instead of every column block of a few chunks.
template <int kThreads, int kUnroll, Load kLoad, bool kSwap = false>
__global__ void __launch_bounds__(kThreads)
    cols_wide(const float* __restrict__ A, int M, int N, std::size_t pitch, std::size_t chunk_rows, float* __restrict__ out,
              float* __restrict__ partials) {
  const unsigned cb = kSwap ? blockIdx.y : blockIdx.x, chunk = kSwap ? blockIdx.x : blockIdx.y;
  const unsigned chunks = kSwap ? gridDim.x : gridDim.y;
  const int col = (static_cast<int>(cb) * kThreads + static_cast<int>(threadIdx.x)) * 4;
  if (col >= N) return;
  const std::size_t r0 = static_cast<std::size_t>(chunk) * chunk_rows;
  const std::size_t m = static_cast<std::size_t>(M);
  const std::size_t r1 = r0 + chunk_rows < m ? r0 + chunk_rows : m;
  float4 acc[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) acc[u] = make_float4(0.f, 0.f, 0.f, 0.f);
  const float* a = A + col;
  auto load = [&](std::size_t r) {
    const float4* p = reinterpret_cast<const float4*>(a + r * pitch);
    if constexpr (kLoad == Load::streaming) return __ldcs(p);
    else return *p;
  };
  auto add = [](float4& s, float4 v) { s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w; };
  std::size_t r = r0;
  for (; r + kUnroll <= r1; r += kUnroll) {
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = load(r + u);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) add(acc[u], v[u]);
  }
#pragma unroll
  for (int u = 0; u + 1 < kUnroll; ++u)
    if (r + u < r1) add(acc[u], load(r + u));
#pragma unroll
  for (int half = kUnroll / 2; half > 0; half >>= 1)
#pragma unroll
    for (int u = 0; u < half; ++u) add(acc[u], acc[u + half]);
  const float s[4] = {acc[0].x, acc[0].y, acc[0].z, acc[0].w};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    if (chunks == 1) out[col + e] = s[e];
    else partials[static_cast<std::size_t>(col + e) * chunks + chunk] = s[e];
  }
}

// A block reads whole rows of its chunk, as the row kernels do: kThreads threads × kItems float4
// per row (N = kThreads · 4 · kItems exactly), each thread summing its kItems column quads over the
// chunk's rows, two rows in flight (2 · kItems loads).
template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    cols_fullrow(const float* __restrict__ A, int M, int N, std::size_t chunk_rows, float* __restrict__ partials) {
  const std::size_t r0 = static_cast<std::size_t>(blockIdx.x) * chunk_rows;
  const std::size_t m = static_cast<std::size_t>(M);
  const std::size_t r1 = r0 + chunk_rows < m ? r0 + chunk_rows : m;
  float4 acc[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) acc[k] = make_float4(0.f, 0.f, 0.f, 0.f);
  const float4* a = reinterpret_cast<const float4*>(A) + threadIdx.x;
  const std::size_t row4 = static_cast<std::size_t>(N) / 4;
  std::size_t r = r0;
  for (; r + 2 <= r1; r += 2) {
    float4 v[2][kItems];
#pragma unroll
    for (int u = 0; u < 2; ++u)
#pragma unroll
      for (int k = 0; k < kItems; ++k) v[u][k] = a[(r + u) * row4 + k * kThreads];
#pragma unroll
    for (int u = 0; u < 2; ++u)
#pragma unroll
      for (int k = 0; k < kItems; ++k) acc[k].x += v[u][k].x, acc[k].y += v[u][k].y, acc[k].z += v[u][k].z, acc[k].w += v[u][k].w;
  }
  if (r < r1)
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const float4 v = a[r * row4 + k * kThreads];
      acc[k].x += v.x, acc[k].y += v.y, acc[k].z += v.z, acc[k].w += v.w;
    }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::size_t col = (static_cast<std::size_t>(k) * kThreads + threadIdx.x) * 4;
    const float s[4] = {acc[k].x, acc[k].y, acc[k].z, acc[k].w};
#pragma unroll
    for (int e = 0; e < 4; ++e) partials[(col + e) * gridDim.x + blockIdx.x] = s[e];
  }
}

using Sum = rows_detail::Sum<float>;

struct Problem {
  int M, N;
  float *A = nullptr, *y = nullptr, *yref = nullptr, *ones = nullptr, *parts = nullptr;
  std::vector<float> ref;
  static constexpr std::size_t kMaxParts = 1024;
  Problem(int M_, int N_) : M(M_), N(N_), ref(N_) {
    const std::size_t e = std::size_t(M) * N;
    std::vector<float> h(e);
    std::mt19937 rng(7);
    fill_inputs(h, true, rng);
    CK(cudaMalloc(&A, e * 4));
    CK(cudaMemcpy(A, h.data(), e * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&y, N * 4));
    CK(cudaMalloc(&yref, N * 4));
    CK(cudaMalloc(&parts, std::size_t(N) * kMaxParts * 4));
    ones = device_ones(M);
  }
  // Column sums of row-major A (M × N): in the column-major view X = Aᵀ (N × M), y = X·1.
  void library() const {
    const float one = 1.f, zero = 0.f;
    CB(cublasSgemv(g_handle, CUBLAS_OP_N, N, M, &one, A, N, ones, 1, &zero, yref, 1));
  }
};

template <int kThreads, int kUnroll, Load kLoad, bool kSwap = false>
void wide_rows(Problem& p, FlushTimer& tm, double t_lib, int sms) {
  const unsigned col_blocks = static_cast<unsigned>(ceil_div(p.N, kThreads * 4));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, cols_wide<kThreads, kUnroll, Load::plain>, kThreads, 0));
  const std::size_t slots = std::size_t(occ) * sms;
  for (double waves : {0.5, 1.0, 2.0, 4.0}) {
    std::size_t count = std::max<std::size_t>(1, std::size_t(waves * slots / col_blocks));
    count = std::min({count, Problem::kMaxParts, std::size_t(p.M)});
    const std::size_t rows = ceil_div(std::size_t(p.M), count);
    const std::size_t used = ceil_div(std::size_t(p.M), rows);
    auto launch = [&] {
      const dim3 grid = kSwap ? dim3(unsigned(used), col_blocks) : dim3(col_blocks, unsigned(used));
      cols_wide<kThreads, kUnroll, kLoad, kSwap><<<grid, kThreads>>>(p.A, p.M, p.N, p.N, rows, p.y, p.parts);
      if (used > 1) rows_detail::launch_combine_parts<float, Sum>(p.parts, std::size_t(p.N), unsigned(used), 0, p.y, nullptr);
    };
    const CheckedTime r = checked_median_us(tm, launch, p.y, p.ref);
    std::printf("wide%s %4d thr x %d rows%s, %4zu chunks (%5zu blocks, %.1f waves)  %8.1f %7.1f%% %s\n", kSwap ? " swap" : "", kThreads, kUnroll,
                kLoad == Load::streaming ? " ldcs" : "     ", used, used * col_blocks, double(used * col_blocks) / slots, r.us,
                100.0 * t_lib / r.us, r.exact ? "exact" : "FAIL");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int M = argc > 2 ? std::atoi(argv[1]) : 16384;
  const int N = argc > 2 ? std::atoi(argv[2]) : 16384;
  if (M < 1 || N < 4 || N % 4 != 0 || double(M) * N > 1.1e9) {
    std::printf("cols_wide: M >= 1, N a multiple of 4, M·N <= 1.1e9\n");
    return 2;
  }
  const cudaDeviceProp prop = begin_trial(240);
  FlushTimer tm;
  Problem p(M, N);
  const double t_lib = tm.median_us([&] { p.library(); });
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(p.ref.data(), p.yref, N * 4, cudaMemcpyDeviceToHost));
  std::printf("\n## column sums float %d x %d: cublasSgemv (ones) %.1f us (%.0f GB/s)\n", M, N, t_lib,
              double(M) * N * 4 / t_lib * 1e-3);
  std::printf("%-72s %8s %8s %s\n", "config", "us", "vs lib", "check");

  // rows_cols_vec16 as it launches (the sum, without the mean's division), and its first kernel alone.
  namespace rc = rows_cols_coalesced;
  const auto ch = rc::chunks_for(M, N, 4);
  const unsigned vb = static_cast<unsigned>(ceil_div(N, rc::kCols * 4));
  auto vec16_kernel = [&] {
    rc::cols_chunk<float, Sum, true><<<dim3(vb, unsigned(ch.count)), dim3(rc::kCols, rc::kRowThreads)>>>(p.A, M, N, N, ch.rows,
                                                                                                          p.y, p.parts);
  };
  auto vec16 = [&] {
    vec16_kernel();
    if (ch.count > 1) rows_detail::launch_combine_parts<float, Sum>(p.parts, std::size_t(N), unsigned(ch.count), 0, p.y, nullptr);
  };
  {
    const CheckedTime r = checked_median_us(tm, vec16, p.y, p.ref);
    char name[96];
    std::snprintf(name, sizeof name, "rows_cols_vec16 (32 x 8 threads x 4 rows, %zu chunks, %zu blocks)", ch.count, ch.count * vb);
    std::printf("%-72s %8.1f %7.1f%% %s\n", name, r.us, 100.0 * t_lib / r.us, r.exact ? "exact" : "FAIL");
    const double tk = tm.median_us(vec16_kernel);
    std::printf("%-72s %8.1f %7.1f%% (timing only)\n", "rows_cols_vec16, first kernel only", tk, 100.0 * t_lib / tk);
  }
  const int sms = prop.multiProcessorCount;
  if (std::getenv("COLS_ALL")) {  // the first sweep (results/h100/session34/cols_wide_trial_a.log)
    wide_rows<32, 4, Load::plain>(p, tm, t_lib, sms);
    wide_rows<128, 4, Load::plain>(p, tm, t_lib, sms);
    wide_rows<256, 4, Load::plain>(p, tm, t_lib, sms);
    wide_rows<512, 4, Load::plain>(p, tm, t_lib, sms);
    wide_rows<1024, 4, Load::plain>(p, tm, t_lib, sms);
  }
  wide_rows<32, 8, Load::plain>(p, tm, t_lib, sms);
  wide_rows<128, 8, Load::plain>(p, tm, t_lib, sms);
  wide_rows<256, 8, Load::plain>(p, tm, t_lib, sms);
  wide_rows<256, 8, Load::streaming>(p, tm, t_lib, sms);
  wide_rows<32, 8, Load::plain, true>(p, tm, t_lib, sms);
  wide_rows<32, 8, Load::streaming, true>(p, tm, t_lib, sms);
  wide_rows<128, 8, Load::plain, true>(p, tm, t_lib, sms);
  wide_rows<256, 8, Load::plain, true>(p, tm, t_lib, sms);
  wide_rows<256, 8, Load::streaming, true>(p, tm, t_lib, sms);
  if (N == 16384) {
    auto fullrow = [&](auto kernel, int threads, const char* what) {
      for (int count : {sms, 2 * sms, 4 * sms}) {
        const std::size_t rows = ceil_div(std::size_t(M), std::size_t(count));
        const unsigned used = unsigned(ceil_div(std::size_t(M), rows));
        auto launch = [&] {
          kernel<<<used, threads>>>(p.A, M, N, rows, p.parts);
          rows_detail::launch_combine_parts<float, Sum>(p.parts, std::size_t(N), used, 0, p.y, nullptr);
        };
        const CheckedTime r = checked_median_us(tm, launch, p.y, p.ref);
        char name[96];
        std::snprintf(name, sizeof name, "full rows, %s, %u chunks", what, used);
        std::printf("%-72s %8.1f %7.1f%% %s\n", name, r.us, 100.0 * t_lib / r.us, r.exact ? "exact" : "FAIL");
      }
    };
    fullrow(cols_fullrow<512, 8>, 512, "512 thr x 8 quads");
    fullrow(cols_fullrow<1024, 4>, 1024, "1024 thr x 4 quads");
  }
  std::printf("cublasSgemv again: %.1f us\n", tm.median_us([&] { p.library(); }));
  return 0;
}
