// gemm13 trial: correctness (double CPU reference, cuBLAS, exact integer inputs) and timing
// against cublasSgemm for handwritten/gemm/gemm13_tma_warpspecialized.cuh. Standalone:
//   nvcc -std=c++20 -O3 -I. -gencode=arch=compute_90a,code=sm_90a scripts/trials/gemm13_trial.cu -lcublas -o /tmp/g13
// Timing: cudaEvent around each launch, 5 warm-up runs, median of 25; L2 is NOT flushed between
// runs (neither for cuBLAS nor for gemm13). cuBLAS runs in its default math mode (no TF32).
#include "handwritten/gemm/gemm13_tma_warpspecialized.cuh"
#include "scripts/trials/trial_common.hpp"

#include <random>
#include <string>

using namespace kl;
using namespace trial;

struct Cfg {
  const char* name;
  void (*prepare)();
  void (*launch)(const GemmArgs<float>&, cudaStream_t);
  const void* kernel;
};

#define G13(BM, BN, BK, WM, WN, TM, TN, ST, R, P)                                                                \
  Cfg {                                                                                                         \
    "gemm13_" #BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_r" #R "_bouter" #P,                \
        gemm13::prepare<BM, BN, BK, WM, WN, TM, TN, ST, R, P>, gemm13::launch<BM, BN, BK, WM, WN, TM, TN, ST, R, P>, \
        (const void*)gemm13::kernel_for<BM, BN, BK, WM, WN, TM, TN, ST, R, P>                                   \
  }

#define G13T(BM, BN, BK, WM, WN, TM, TN, ST, R)                                                                   \
  Cfg {                                                                                                         \
    "gemm13_" #BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_r" #R "_at",                       \
        gemm13::prepare<BM, BN, BK, WM, WN, TM, TN, ST, R, false, 1, true>,                                      \
        gemm13::launch<BM, BN, BK, WM, WN, TM, TN, ST, R, false, 1, true>,                                       \
        (const void*)gemm13::kernel_for<BM, BN, BK, WM, WN, TM, TN, ST, R, false, 1, true>                       \
  }

// The configurations of the last run (session 31): the kept tile, and the same tile with A
// transposed into [k][m] by the producer warpgroup (_at). Earlier runs (B-outer order, 16 × 8,
// 128 × 256, REGS = 0; session 31's twelve FMA warps of 8 × 8 in 160 registers) were all slower:
// results/h100/trials/gemm13_trial.log and results/h100/session31/.
static std::vector<Cfg> configs() {
  return {
      G13(256, 128, 32, 64, 64, 8, 16, 4, 232, 0),
      G13T(256, 128, 32, 64, 64, 8, 16, 4, 232),
      G13T(128, 256, 32, 64, 64, 8, 16, 4, 232),
      G13T(128, 256, 32, 64, 64, 8, 16, 4, 224),
      Cfg{"gemm12_256x128x16_s4 (previous step)", gemm12::prepare<float, 256, 128, 16, 64, 64, 16, 8, 4>,
          gemm12::launch<float, 256, 128, 16, 64, 64, 16, 8, 4>,
          (const void*)gemm12::kernel_for<float, 256, 128, 16, 64, 64, 16, 8, 4, true>},
  };
}

static int g_fail = 0;

// One shape, one configuration, two input sets (random in [-1, 1]; small integers): against the
// fp64 rows and cuBLAS (trial::check_product).
static void check_shape(const Cfg& cfg, int M, int N, int K, cudaStream_t s) {
  const size_t nA = size_t(M) * K, nB = size_t(K) * N, nC = size_t(M) * N;
  std::mt19937 rng(M * 7919u + N * 31u + K);
  std::vector<float> A(nA), B(nB), C(nC), Cc(nC);
  ProductBuffers d(nA, nB, nC, 1);
  const std::vector<int> rows = check_rows(M, N, K, {0, 1, 255, 256, M / 2, M - 257, M - 256, M - 2, M - 1}, rng);
  for (int set = 0; set < 2; ++set) {
    const bool exact = set == 1;
    fill_inputs(A, exact, rng);
    fill_inputs(B, exact, rng);
    CK(cudaMemcpy(d.A, A.data(), nA * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.B, B.data(), nB * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(d.C[0], 0xff, nC * 4));  // NaN: every element must be written
    GemmArgs<float> g{d.A, d.B, d.C[0], M, N, K};
    cfg.launch(g, s);
    cublas_gemm(d.A, d.B, d.Cref, M, N, K, s);
    sync_or_die(s, 20, cfg.name);
    CK(cudaMemcpy(C.data(), d.C[0], nC * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(Cc.data(), d.Cref, nC * 4, cudaMemcpyDeviceToHost));
    std::vector<double> ref, absref;
    cpu_ref(A, B, N, K, rows, ref, absref);
    const ProductCheck r = check_product(C, Cc, rows, ref, absref, N, K, exact);
    const bool ok = r.ok(exact);
    if (!ok) ++g_fail;
    std::printf("%-4s %-44s %5dx%5dx%5d %s %s rows=%zu max_err=%.3g err/bound=%.3g bad=%zu | vs cuBLAS max_diff=%.3g bad=%zu%s\n",
                ok ? "ok" : "FAIL", cfg.name, M, N, K, exact ? "int " : "rand", gemm13::tma_ok(g) ? "tma " : "fallback",
                rows.size(), r.max_err, r.worst_ratio, r.bad, r.max_diff, r.bad_cublas,
                exact ? (std::string(" exact: unequal_cpu=") + std::to_string(r.unequal) + " unequal_cublas=" + std::to_string(r.unequal_cublas)).c_str() : "");
    std::fflush(stdout);
  }
}

static double time_ms(auto&& f, cudaStream_t s, const char* what) { return time_us(f, s, what) / 1e3; }

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs, cc %d.%d\n", p.name, p.multiProcessorCount, p.major, p.minor);
  CB(cublasCreate(&g_handle));
  CB(cublasSetMathMode(g_handle, CUBLAS_DEFAULT_MATH));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto cfgs = configs();
  for (auto& c : cfgs) {
    c.prepare();
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, c.kernel));
    std::printf("%-44s regs=%d local=%zu B ptx=%d bin=%d maxThreads=%d\n", c.name, a.numRegs, a.localSizeBytes,
                a.ptxVersion, a.binaryVersion, a.maxThreadsPerBlock);
  }
  std::fflush(stdout);
  if (argc > 3 && std::string(argv[1]) == "profile") {  // one configuration, one launch, for ncu
    const auto& c = cfgs.at(std::atoi(argv[2]));
    const int n = std::atoi(argv[3]);
    const size_t e = size_t(n) * n;
    ProductBuffers d(e, e, e, 1);
    CK(cudaMemset(d.A, 0, e * 4));
    CK(cudaMemset(d.B, 0, e * 4));
    GemmArgs<float> g{d.A, d.B, d.C[0], n, n, n};
    c.launch(g, s);
    cublas_gemm(d.A, d.B, d.C[0], n, n, n, s);
    sync_or_die(s, 60, c.name);
    return 0;
  }

  const int shapes[][3] = {{1, 1, 1},       {31, 33, 17},     {127, 129, 131},  {4097, 4095, 17},
                           {513, 257, 129}, {1000, 1000, 1000}, {4, 4, 4},      {1, 4, 4},
                           {3, 8, 12},      {260, 132, 36},   {513, 260, 132},  {4097, 4096, 20},
                           {300, 8, 4000},  {257, 129, 4},    {4100, 4096, 4092}};
  for (const auto& c : cfgs) {
    for (const auto& sh : shapes) {
      if (quick && double(sh[0]) * sh[1] * sh[2] > 2e9) continue;
      check_shape(c, sh[0], sh[1], sh[2], s);
    }
  }
  std::printf("correctness: %s (%d failing checks)\n", g_fail ? "FAIL" : "all ok", g_fail);
  std::fflush(stdout);

  for (int n : {2048, 4096, 8192}) {
    const size_t e = size_t(n) * n;
    ProductBuffers d(e, e, e, 1);
    random_square_pair(d.A, d.B, n);
    const double flop = 2.0 * n * n * n;
    const double tc = time_ms([&] { cublas_gemm(d.A, d.B, d.C[0], n, n, n, s); }, s, "cublas");
    std::printf("%d^3 cublasSgemm: %.3f ms %.2f TFLOP/s\n", n, tc, flop / tc * 1e-9);
    for (const auto& c : cfgs) {
      GemmArgs<float> g{d.A, d.B, d.C[0], n, n, n};
      const double t = time_ms([&] { c.launch(g, s); }, s, c.name);
      std::printf("%d^3 %-44s: %.3f ms %.2f TFLOP/s %.1f%% of cuBLAS\n", n, c.name, t, flop / t * 1e-9, 100 * tc / t);
      std::fflush(stdout);
    }
    const double tc2 = time_ms([&] { cublas_gemm(d.A, d.B, d.C[0], n, n, n, s); }, s, "cublas");
    std::printf("%d^3 cublasSgemm again: %.3f ms %.2f TFLOP/s\n", n, tc2, flop / tc2 * 1e-9);
    std::fflush(stdout);
  }
  cublasDestroy(g_handle);
  return g_fail ? 1 : 0;
}
