// Timing-only experiment (results are NOT correct): gemm13 with its FMA warps reading A as if it
// were stored transposed ([k][m], two LDS.128 per k for a thread's 8 rows, as gemm12 and cuBLAS's
// kernel read it) instead of TMA's [m][k] (one LDS.128 per row for 4 k). Question: is the FFMA
// stream's issue rate (dispatch stalls 0.41 against cuBLAS's 0.10 per issue) a consequence of
// holding 8 rows × 4 k of A in registers? If this form is much faster, a producer-side transpose
// is worth building (it was: gemm13's _at form, results/h100/session31/gemm13_at_experiment.log
// and docs/sgemm-ladder.md). The experimental kernel is gemm13 as of commit 9cdf08e with the
// change in gemm13_at_experiment.patch (B_OUTER = true selects the A-as-if-transposed loop; the
// namespace becomes gemm13x); it is not kept as a second copy of the kernel. To rebuild:
//   git show 9cdf08e:handwritten/gemm/gemm13_tma_warpspecialized.cuh > scripts/trials/gemm13_at_experiment.cuh
//   patch scripts/trials/gemm13_at_experiment.cuh scripts/trials/gemm13_at_experiment.patch
//   nvcc -std=c++20 -O3 -I. -gencode=arch=compute_90a,code=sm_90a scripts/trials/gemm13_at_experiment.cu -lcublas -o /tmp/g13x
// (-DKL_PROFILE_ONCE: one launch of each form at 4096³ and exit, for ncu).
#include "scripts/trials/gemm13_at_experiment.cuh"
#include "scripts/trials/trial_common.hpp"

#include <random>

using namespace kl;
using namespace trial;

int main() {
  CB(cublasCreate(&g_handle));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gemm13x::prepare<256, 128, 32, 64, 64, 8, 16, 4, 232, false>();
  gemm13x::prepare<256, 128, 32, 64, 64, 8, 16, 4, 232, true>();
  for (int n : {4096, 8192}) {
    const size_t e = size_t(n) * n;
    float *A, *B, *C;
    CK(cudaMalloc(&A, e * 4));
    CK(cudaMalloc(&B, e * 4));
    CK(cudaMalloc(&C, e * 4));
    std::vector<float> h(e);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : h) x = u(rng);
    CK(cudaMemcpy(A, h.data(), e * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, h.data(), e * 4, cudaMemcpyHostToDevice));
    GemmArgs<float> g{A, B, C, n, n, n};
#ifdef KL_PROFILE_ONCE  // one launch of each, for ncu
    gemm13x::launch<256, 128, 32, 64, 64, 8, 16, 4, 232, false>(g, s);
    gemm13x::launch<256, 128, 32, 64, 64, 8, 16, 4, 232, true>(g, s);
    sync_or_die(s, 60, "profile");
    return 0;
#endif
    const double flop = 2.0 * n * n * n;
    for (int rep = 0; rep < 2; ++rep) {
      const double tc = time_us([&] { cublas_gemm(A, B, C, n, n, n, s); }, s, "cublas");
      const double t0 = time_us([&] { gemm13x::launch<256, 128, 32, 64, 64, 8, 16, 4, 232, false>(g, s); }, s, "base");
      const double t1 = time_us([&] { gemm13x::launch<256, 128, 32, 64, 64, 8, 16, 4, 232, true>(g, s); }, s, "A^T");
      std::printf("%d^3: cuBLAS %.1f us %.2f TFLOP/s | gemm13 _r232 %.1f us %.1f%% | A-as-if-transposed %.1f us %.1f%%\n", n, tc,
                  flop / tc * 1e-6, t0, 100 * tc / t0, t1, 100 * tc / t1);
      std::fflush(stdout);
    }
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }
  return 0;
}
