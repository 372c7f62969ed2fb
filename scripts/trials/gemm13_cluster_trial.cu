// gemm13 cluster trial: the CLUSTER_M = 2 form of handwritten/gemm/gemm13_tma_warpspecialized.cuh
// (pairs of vertically adjacent C tiles in a thread-block cluster, each B tile multicast to the
// pair by TMA) against the CLUSTER_M = 1 kernel and cublasSgemm. Standalone:
//   nvcc -std=c++20 -O3 -I. -gencode=arch=compute_90a,code=sm_90a scripts/trials/gemm13_cluster_trial.cu -lcublas -o /tmp/g13c
//   /tmp/g13c          # correctness, then timing at 2048³, 4096³, 8192³
//   /tmp/g13c quick    # correctness only
// Correctness: every shape runs c1 (CLUSTER_M = 1), c2 (CLUSTER_M = 2, REGS = 232) and c2_r0
// (CLUSTER_M = 2 without setmaxnreg: the inline producer) on random inputs in [-1, 1] and on
// small integers; each result is checked against an fp64 CPU product (error bound 4·K·2⁻²⁴·Σ|ab|;
// integers: equality), c2 and c2_r0 must equal c1 bit for bit (same FFMA chain per output), and
// integers must equal cuBLAS. Shapes with K % 4 or N % 4 != 0 take the gemm12 fallback (marked).
// Timing: cudaEvent around each launch, 5 warm-up runs, median of 25, L2 not flushed; cuBLAS in
// its default math mode (no TF32), timed before and after. Each timing line also checks its own
// output (c1: against cuBLAS within the bound; c2: bitwise against c1 and within the bound).
// A hang (barrier bug) ends the process: sync_or_die after every launch, and a watchdog alarm.
#include "handwritten/gemm/gemm13_tma_warpspecialized.cuh"
#include "scripts/trials/trial_common.hpp"

#include <csignal>
#include <cstring>
#include <random>
#include <string>

using namespace kl;
using namespace trial;

struct Cfg {
  const char* name;
  void (*prepare)();
  void (*launch)(const GemmArgs<float>&, cudaStream_t);
  const void* kernel;
  int cluster;
  bool timed;
};

#define G13(tag, R, CL, TIMED)                                                                                     \
  Cfg {                                                                                                            \
    tag, gemm13::prepare<256, 128, 32, 64, 64, 8, 16, 4, R, false, CL>,                                            \
        gemm13::launch<256, 128, 32, 64, 64, 8, 16, 4, R, false, CL>,                                              \
        (const void*)gemm13::kernel_for<256, 128, 32, 64, 64, 8, 16, 4, R, false, CL>, CL, TIMED                    \
  }

// [0] is the reference for the bitwise comparisons.
static std::vector<Cfg> configs() {
  return {
      G13("c1 gemm13_256x128x32_r232", 232, 1, true),
      G13("c2 gemm13_256x128x32_r232_c2", 232, 2, true),
      G13("c2_r0 gemm13_256x128x32_r0_c2", 0, 2, false),
  };
}

static int g_fail = 0;

// One shape, every configuration, two input sets (random in [-1, 1]; small integers): each
// against the fp64 rows and cuBLAS (trial::check_product), and bitwise against c1.
static void check_shape(const std::vector<Cfg>& cfgs, int M, int N, int K, cudaStream_t s) {
  const size_t nA = size_t(M) * K, nB = size_t(K) * N, nC = size_t(M) * N;
  std::mt19937 rng(M * 7919u + N * 31u + K);
  std::vector<float> A(nA), B(nB), Cc(nC);
  std::vector<std::vector<float>> C(cfgs.size(), std::vector<float>(nC));
  ProductBuffers d(nA, nB, nC, int(cfgs.size()));
  // sampled rows: the first, the last, tile and pair edges, some in between
  const std::vector<int> rows =
      check_rows(M, N, K, {0, 1, 255, 256, 511, 512, M / 2, M - 513, M - 257, M - 256, M - 2, M - 1}, rng);
  GemmArgs<float> g0{d.A, d.B, d.C[0], M, N, K};
  const bool tma = gemm13::tma_ok(g0);
  for (int set = 0; set < 2; ++set) {
    const bool exact = set == 1;
    fill_inputs(A, exact, rng);
    fill_inputs(B, exact, rng);
    CK(cudaMemcpy(d.A, A.data(), nA * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.B, B.data(), nB * 4, cudaMemcpyHostToDevice));
    cublas_gemm(d.A, d.B, d.Cref, M, N, K, s);
    sync_or_die(s, 20, "cublas");
    CK(cudaMemcpy(Cc.data(), d.Cref, nC * 4, cudaMemcpyDeviceToHost));
    std::vector<double> ref, absref;
    cpu_ref(A, B, N, K, rows, ref, absref);
    for (size_t ci = 0; ci < cfgs.size(); ++ci) {
      const Cfg& cfg = cfgs[ci];
      CK(cudaMemset(d.C[ci], 0xff, nC * 4));  // NaN: every element must be written
      GemmArgs<float> g{d.A, d.B, d.C[ci], M, N, K};
      cfg.launch(g, s);
      sync_or_die(s, 20, cfg.name);
      CK(cudaMemcpy(C[ci].data(), d.C[ci], nC * 4, cudaMemcpyDeviceToHost));
      const std::vector<float>& Ch = C[ci];
      const ProductCheck r = check_product(Ch, Cc, rows, ref, absref, N, K, exact);
      size_t unequal_c1 = 0;
      if (ci > 0)
        for (size_t i = 0; i < nC; ++i) unequal_c1 += std::memcmp(&Ch[i], &C[0][i], 4) != 0;
      const bool ok = r.ok(exact) && unequal_c1 == 0;
      if (!ok) ++g_fail;
      std::printf("%-4s %-32s %5dx%5dx%5d %s %s rows=%zu max_err=%.3g err/bound=%.3g bad=%zu | cuBLAS max_diff=%.3g bad=%zu%s%s\n",
                  ok ? "pass" : "FAIL", cfg.name, M, N, K, exact ? "int " : "rand", tma ? "tma     " : "fallback", rows.size(),
                  r.max_err, r.worst_ratio, r.bad, r.max_diff, r.bad_cublas,
                  exact ? (" unequal_cpu=" + std::to_string(r.unequal) + " unequal_cublas=" + std::to_string(r.unequal_cublas)).c_str() : "",
                  ci > 0 ? (" unequal_c1=" + std::to_string(unequal_c1)).c_str() : "");
      std::fflush(stdout);
    }
  }
}

static int run(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs, cc %d.%d\n", p.name, p.multiProcessorCount, p.major, p.minor);
  CB(cublasCreate(&g_handle));
  CB(cublasSetMathMode(g_handle, CUBLAS_DEFAULT_MATH));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const auto cfgs = configs();
  for (const auto& c : cfgs) {
    c.prepare();
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, c.kernel));
    // How many blocks (clusters) can be resident at once: a cluster of 2 needs two free SMs of one GPC.
    int active = 0;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(2 * 66, 66);
    lc.blockDim = dim3(a.maxThreadsPerBlock);
    lc.dynamicSmemBytes = a.maxDynamicSharedSizeBytes;
    cudaLaunchAttribute at = {};
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = unsigned(c.cluster), at.val.clusterDim.y = 1, at.val.clusterDim.z = 1;
    lc.attrs = &at;
    lc.numAttrs = 1;
    const cudaError_t oe = cudaOccupancyMaxActiveClusters(&active, c.kernel, &lc);
    if (oe != cudaSuccess) (void)cudaGetLastError();
    std::printf("%-32s regs=%d local=%zu B smem=%d B ptx=%d bin=%d threads=%d max active clusters of %d: %d%s\n", c.name,
                a.numRegs, a.localSizeBytes, a.maxDynamicSharedSizeBytes, a.ptxVersion, a.binaryVersion,
                a.maxThreadsPerBlock, c.cluster, active, oe == cudaSuccess ? "" : cudaGetErrorString(oe));
  }
  std::fflush(stdout);

  // Shapes: tiles_m (= ceil(M / 256)) odd and even, 1 (a lone pair with a padding block), K
  // tiles below, at and well past the 4 stages, ragged M, N, K; and the fallback (K or N % 4).
  const int shapes[][3] = {{1, 1, 1},        {31, 33, 17},      {257, 129, 100},  {300, 200, 1000}, {513, 257, 129},
                           {1000, 1000, 1000}, {1, 4, 4},       {4, 4, 4},        {31, 36, 20},     {257, 132, 100},
                           {513, 260, 132},  {769, 128, 64},    {1200, 388, 96},  {260, 132, 36},   {1300, 516, 260},
                           {4097, 4096, 20}, {2048, 2048, 2048}, {4100, 4096, 4092}};
  for (const auto& sh : shapes) {
    if (quick && double(sh[0]) * sh[1] * sh[2] > 1e10) continue;
    check_shape(cfgs, sh[0], sh[1], sh[2], s);
  }
  std::printf("correctness: %s (%d failing checks)\n", g_fail ? "FAIL" : "all pass", g_fail);
  std::fflush(stdout);
  if (quick) return g_fail ? 1 : 0;

  for (int n : {2048, 4096, 8192}) {
    const size_t e = size_t(n) * n;
    ProductBuffers d(e, e, e, int(cfgs.size()));
    random_square_pair(d.A, d.B, n);
    const double flop = 2.0 * n * n * n, gamma = 4.0 * n * std::ldexp(1.0, -24);
    const double tc = time_us([&] { cublas_gemm(d.A, d.B, d.Cref, n, n, n, s); }, s, "cublas");
    std::printf("%5d^3 %-32s %9.1f us %6.2f TFLOP/s %6.1f%% of cuBLAS pass\n", n, "cublasSgemm", tc, flop / tc * 1e-6, 100.0);
    std::fflush(stdout);
    std::vector<float> hc(e), h1(e), hx(e);
    CK(cudaMemcpy(hc.data(), d.Cref, e * 4, cudaMemcpyDeviceToHost));
    for (size_t ci = 0; ci < cfgs.size(); ++ci) {
      const Cfg& c = cfgs[ci];
      if (!c.timed) continue;
      CK(cudaMemset(d.C[ci], 0xff, e * 4));
      GemmArgs<float> g{d.A, d.B, d.C[ci], n, n, n};
      const double t = time_us([&] { c.launch(g, s); }, s, c.name);
      std::vector<float>& h = ci == 0 ? h1 : hx;
      CK(cudaMemcpy(h.data(), d.C[ci], e * 4, cudaMemcpyDeviceToHost));
      size_t bad = 0, unequal_c1 = 0;
      for (size_t i = 0; i < e; ++i) {
        const double diff = std::fabs(double(h[i]) - double(hc[i]));
        if (!(diff <= 2 * gamma * n)) ++bad;
        if (ci > 0 && std::memcmp(&h[i], &h1[i], 4) != 0) ++unequal_c1;
      }
      const bool ok = bad == 0 && unequal_c1 == 0;
      if (!ok) ++g_fail;
      std::printf("%5d^3 %-32s %9.1f us %6.2f TFLOP/s %6.1f%% of cuBLAS %s", n, c.name, t, flop / t * 1e-6, 100 * tc / t,
                  ok ? "pass" : "FAIL");
      if (!ok) std::printf(" (bad=%zu unequal_c1=%zu)", bad, unequal_c1);
      std::printf("\n");
      std::fflush(stdout);
    }
    const double tc2 = time_us([&] { cublas_gemm(d.A, d.B, d.Cref, n, n, n, s); }, s, "cublas");
    std::printf("%5d^3 %-32s %9.1f us %6.2f TFLOP/s %6.1f%% of cuBLAS (first) pass\n", n, "cublasSgemm again", tc2,
                flop / tc2 * 1e-6, 100 * tc / tc2);
    std::fflush(stdout);
  }
  std::printf("overall: %s (%d failing checks)\n", g_fail ? "FAIL" : "all pass", g_fail);
  cublasDestroy(g_handle);
  return g_fail ? 1 : 0;
}

int main(int argc, char** argv) {
  std::signal(SIGALRM, on_alarm);
  alarm(480);  // under the 600 s a device command may run
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::printf("FAIL exception: %s\n", e.what());
    std::fflush(stdout);
    return 2;
  }
}
