// What the standalone trials under scripts/trials/ share, said once: CUDA and cuBLAS status
// checks that end the process, a stream wait that turns a hang into an exit, a watchdog for the
// whole run, a row-major cublasSgemm, an fp64 CPU product of chosen rows, and CUDA-event timing
// (warm-up, then the median). Each trial is still one .cu file built with one nvcc line.
#pragma once

#include "common/cuda_check.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>

#define CK(x) KL_CUDA_CHECK(x)
#define CB(x)                                                        \
  do {                                                               \
    if ((x) != CUBLAS_STATUS_SUCCESS) {                              \
      std::printf("cublas error %d at line %d\n", int(x), __LINE__); \
      std::exit(2);                                                  \
    }                                                                \
  } while (0)

namespace trial {

inline cublasHandle_t g_handle;

// Waits for the stream, but gives up (and exits) after `seconds`: a barrier bug hangs, and the
// process must end so the device run still prints what it has.
inline void sync_or_die(cudaStream_t s, double seconds, const char* what) {
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t e = cudaStreamQuery(s);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) {
      std::printf("FAIL %s: %s\n", what, cudaGetErrorString(e));
      std::fflush(stdout);
      _exit(3);
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
      std::printf("HANG %s (over %.0f s)\n", what, seconds);
      std::fflush(stdout);
      _exit(4);
    }
    usleep(200);
  }
}

// SIGALRM's handler for a whole-run watchdog (std::signal(SIGALRM, on_alarm); alarm(seconds)).
inline void on_alarm(int) {
  const char msg[] = "HANG watchdog: the whole trial ran past its limit\n";
  (void)!write(1, msg, sizeof msg - 1);
  _exit(5);
}

// Row-major C = A·B with cuBLAS (column-major): Cᵀ = Bᵀ·Aᵀ.
inline void cublas_gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  const float one = 1.f, zero = 0.f;
  CB(cublasSetStream(g_handle, s));
  CB(cublasSgemm(g_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
}

// The rows `rows` of the row-major product A (· × K) · B (K × N) in double, and of |A|·|B|, rows in
// parallel over the host's threads.
inline void cpu_ref(const std::vector<float>& A, const std::vector<float>& B, int N, int K, const std::vector<int>& rows,
                    std::vector<double>& ref, std::vector<double>& absref) {
  ref.assign(rows.size() * size_t(N), 0.0);
  absref.assign(rows.size() * size_t(N), 0.0);
  unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> th;
  for (unsigned t = 0; t < nt; ++t)
    th.emplace_back([&, t] {
      for (size_t ri = t; ri < rows.size(); ri += nt) {
        const int i = rows[ri];
        double* r = &ref[ri * N];
        double* ar = &absref[ri * N];
        for (int k = 0; k < K; ++k) {
          const double a = A[size_t(i) * K + k];
          const float* b = &B[size_t(k) * N];
          for (int j = 0; j < N; ++j) {
            r[j] += a * b[j];
            ar[j] += std::fabs(a * b[j]);
          }
        }
      }
    });
  for (auto& x : th) x.join();
}

// Median of 25 CUDA-event timings of f() on stream s after 5 warm-up runs, in µs (L2 not flushed).
template <class F>
double time_us(F&& f, cudaStream_t s, const char* what) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 5; ++i) f();
  sync_or_die(s, 30, what);
  std::vector<float> ms;
  for (int i = 0; i < 25; ++i) {
    CK(cudaEventRecord(e0, s));
    f();
    CK(cudaEventRecord(e1, s));
    sync_or_die(s, 30, what);
    float t = 0;
    CK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(ms.begin(), ms.end());
  return 1e3 * ms[ms.size() / 2];
}

}  // namespace trial
