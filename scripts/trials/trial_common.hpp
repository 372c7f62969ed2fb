// What the standalone trials under scripts/trials/ share, said once: CUDA and cuBLAS status
// checks that end the process, a stream wait that turns a hang into an exit, a watchdog for the
// whole run, a row-major cublasSgemm, an fp64 CPU product of chosen rows, CUDA-event timing
// (warm-up, then the median; with the L2 emptied before each sample: FlushTimer), the float
// product's check against the fp64 rows and cuBLAS (check_product) with its buffers and inputs,
// a launch timed and checked bit for bit before and after (checked_median_us), and the gevm
// trials' problem and table (GevmProblem, GevmTable). Each trial is still one .cu file built with one
// nvcc line.
#pragma once

#include "common/cuda_check.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
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

// What every trial's main does first: the whole-run watchdog (`seconds`), the cuBLAS handle, and
// the device's name and SM count printed; returns the device's properties.
inline cudaDeviceProp begin_trial(unsigned seconds) {
  std::signal(SIGALRM, on_alarm);
  alarm(seconds);
  CB(cublasCreate(&g_handle));
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs\n", p.name, p.multiProcessorCount);
  return p;
}

// A device vector of n ones (the column-sum trials' x for cublasSgemv), for the process's life.
inline float* device_ones(std::size_t n) {
  const std::vector<float> h(n, 1.f);
  float* d = nullptr;
  CK(cudaMalloc(&d, n * 4));
  CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  return d;
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

// ---- the float product's check (the gemm13 trials) --------------------------------------------
// Device buffers of one product shape: A, B, cuBLAS's C and `outputs` C's (one per configuration).
struct ProductBuffers {
  float *A = nullptr, *B = nullptr, *Cref = nullptr;
  std::vector<float*> C;
  ProductBuffers(std::size_t nA, std::size_t nB, std::size_t nC, int outputs) : C(outputs, nullptr) {
    CK(cudaMalloc(&A, nA * 4));
    CK(cudaMalloc(&B, nB * 4));
    CK(cudaMalloc(&Cref, nC * 4));
    for (float*& p : C) CK(cudaMalloc(&p, nC * 4));
  }
  ProductBuffers(const ProductBuffers&) = delete;
  ProductBuffers& operator=(const ProductBuffers&) = delete;
  ~ProductBuffers() {
    cudaFree(A), cudaFree(B), cudaFree(Cref);
    for (float* p : C) cudaFree(p);
  }
};

// Inputs: uniform in [-1, 1], or (exact) integers in [-4, 4], whose products every summation order
// adds exactly in float.
inline void fill_inputs(std::vector<float>& v, bool exact, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::uniform_int_distribution<int> ui(-4, 4);
  for (auto& x : v) x = exact ? float(ui(rng)) : u(rng);
}

// Two n × n matrices of uniform values in [-1, 1] for the timed runs (seeded with n).
inline void random_square_pair(float* A, float* B, int n) {
  const std::size_t e = std::size_t(n) * n;
  std::vector<float> h(e);
  std::mt19937 rng(n);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : h) x = u(rng);
  CK(cudaMemcpy(A, h.data(), e * 4, cudaMemcpyHostToDevice));
  for (auto& x : h) x = u(rng);
  CK(cudaMemcpy(B, h.data(), e * 4, cudaMemcpyHostToDevice));
}

// The rows the fp64 reference is computed for: all of them up to 1.1e9 multiply-adds, else the
// `edges` inside [0, M) and 16 random rows.
inline std::vector<int> check_rows(int M, int N, int K, std::initializer_list<int> edges, std::mt19937& rng) {
  std::vector<int> rows;
  if (double(M) * N * K <= 1.1e9) {
    for (int i = 0; i < M; ++i) rows.push_back(i);
  } else {
    for (int i : edges)
      if (i >= 0 && i < M) rows.push_back(i);
    for (int i = 0; i < 16; ++i) rows.push_back(int(rng() % M));
  }
  return rows;
}

// A float product C (row-major, N columns) against the fp64 reference of `rows` (cpu_ref: within
// γ·Σ|a·b|, γ = 4·K·2⁻²⁴) and against cuBLAS's Cref on every element: both within the bound, so at
// most twice it apart, with |a|, |b| <= 1 making Σ|a||b| <= K. NaN never passes; with integer
// inputs (exact) both comparisons must be equalities.
struct ProductCheck {
  double max_err = 0, worst_ratio = 0, max_diff = 0;
  std::size_t bad = 0, unequal = 0, bad_cublas = 0, unequal_cublas = 0;
  bool ok(bool exact) const { return bad == 0 && bad_cublas == 0 && (!exact || (unequal == 0 && unequal_cublas == 0)); }
};
inline ProductCheck check_product(const std::vector<float>& C, const std::vector<float>& Cref, const std::vector<int>& rows,
                                  const std::vector<double>& ref, const std::vector<double>& absref, int N, int K,
                                  bool exact) {
  ProductCheck r;
  const double gamma = 4.0 * K * std::ldexp(1.0, -24);
  for (std::size_t ri = 0; ri < rows.size(); ++ri)
    for (int j = 0; j < N; ++j) {
      const std::size_t idx = std::size_t(rows[ri]) * N + j;
      const double err = std::fabs(double(C[idx]) - ref[ri * std::size_t(N) + j]);
      const double bound = gamma * absref[ri * std::size_t(N) + j] + 1e-30;
      if (!(err <= bound)) ++r.bad;
      if (exact && double(C[idx]) != ref[ri * std::size_t(N) + j]) ++r.unequal;
      r.max_err = std::max(r.max_err, err);
      r.worst_ratio = std::max(r.worst_ratio, err / bound);
    }
  for (std::size_t i = 0; i < C.size(); ++i) {
    const double diff = std::fabs(double(C[i]) - double(Cref[i]));
    if (!(diff == diff) || std::isnan(C[i])) {
      ++r.bad_cublas;
      continue;
    }
    r.max_diff = std::max(r.max_diff, diff);
    if (exact && C[i] != Cref[i]) ++r.unequal_cublas;
    if (!exact && diff > 2 * gamma * double(K)) ++r.bad_cublas;
  }
  return r;
}

// ---- timing with the L2 emptied (the gevm trials) ----------------------------------------------
__global__ void flush_read(const int4* p, std::size_t n, int* sink) {
  int4 acc = {0, 0, 0, 0};
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const int4 v = __ldcg(p + i);
    acc.x ^= v.x, acc.y ^= v.y, acc.z ^= v.z, acc.w ^= v.w;
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x7fffffff) *sink = 1;  // never (keeps the loads)
}

// As compare times: the L2 emptied before each sample (a 100 MiB read), CUDA events around f on
// the default stream, 3 warm-up runs, the median of 60 samples, in µs.
struct FlushTimer {
  int4* flush = nullptr;
  std::size_t flush_n = (100u << 20) / sizeof(int4);
  int* sink = nullptr;
  int blocks = 0;
  cudaEvent_t e0, e1;
  FlushTimer() {
    CK(cudaMalloc(&flush, flush_n * sizeof(int4)));
    CK(cudaMemset(flush, 1, flush_n * sizeof(int4)));
    CK(cudaMalloc(&sink, sizeof(int)));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    blocks = sms * 4;
  }
  template <class F>
  double median_us(F&& f) {
    for (int i = 0; i < 3; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < 60; ++i) {
      flush_read<<<blocks, 512>>>(flush, flush_n, sink);
      CK(cudaEventRecord(e0));
      f();
      CK(cudaEventRecord(e1));
      sync_or_die(nullptr, 30, "timing");
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return 1000.0 * t[t.size() / 2];
  }
};

// ---- checked timing (the split-K and H200 trials) ---------------------------------------------
// Poisons `out` (all bytes 0xff: NaN), runs `launch`, and says whether the ref.size() values it
// left in `out` are `ref`'s bit for bit.
template <class T, class F>
bool equal_after(F&& launch, T* out, const std::vector<T>& ref) {
  CK(cudaMemset(out, 0xff, ref.size() * sizeof(T)));
  launch();
  sync_or_die(nullptr, 30, "check");
  CK(cudaGetLastError());
  std::vector<T> h(ref.size());
  CK(cudaMemcpy(h.data(), out, ref.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return std::memcmp(h.data(), ref.data(), ref.size() * sizeof(T)) == 0;
}
// A launch's median time (FlushTimer), and whether equal_after held both before and after the
// timed launches (a result that only the first run gets right fails).
struct CheckedTime {
  double us;
  bool exact;
};
template <class F, class T>
CheckedTime checked_median_us(FlushTimer& tm, F&& launch, T* out, const std::vector<T>& ref) {
  const bool before = equal_after(launch, out, ref);
  const double us = tm.median_us(launch);
  return {us, before && equal_after(launch, out, ref)};
}

// ---- the transpose trials' problem -----------------------------------------------------------
// n × n integer-valued floats (seeded), cuBLAS's transpose of them (cublasSgeam, timed as the
// table's heading) as the reference for equality, and row(): a launch that writes B, checked and
// timed (checked_median_us) against it. A one-time setup: the buffers live for the process.
struct TransposeProblem {
  int n;
  float *A = nullptr, *B = nullptr, *Bref = nullptr;
  std::vector<float> ref;
  double t_lib = 0;
  FlushTimer& tm;
  int width;  // of the config column
  TransposeProblem(int n_, unsigned seed, FlushTimer& tm_, const char* column, int width_)
      : n(n_), ref(std::size_t(n_) * n_), tm(tm_), width(width_) {
    const std::size_t e = ref.size();
    std::vector<float> h(e);
    std::mt19937 rng(seed);
    fill_inputs(h, true, rng);
    CK(cudaMalloc(&A, e * 4));
    CK(cudaMalloc(&B, e * 4));
    CK(cudaMalloc(&Bref, e * 4));
    CK(cudaMemcpy(A, h.data(), e * 4, cudaMemcpyHostToDevice));
    CB(cublasSetStream(g_handle, nullptr));
    t_lib = tm.median_us([&] { library(); });
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(ref.data(), Bref, e * 4, cudaMemcpyDeviceToHost));
    std::printf("\n## transpose float %d x %d: cublasSgeam %.1f us\n%-*s %9s %8s %s\n", n, n, t_lib, width, column, "us", "vs lib",
                "check");
  }
  TransposeProblem(const TransposeProblem&) = delete;
  TransposeProblem& operator=(const TransposeProblem&) = delete;
  ~TransposeProblem() { cudaFree(A), cudaFree(B), cudaFree(Bref); }
  // Row-major B = Aᵀ: in cuBLAS's column-major view, C (n × n) = op_T(A) with A read as n × n.
  void library() {
    const float one = 1.f, zero = 0.f;
    CB(cublasSgeam(g_handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, A, n, &zero, Bref, n, Bref, n));
  }
  template <class F>
  void row(const char* name, F&& launch) {
    const CheckedTime r = checked_median_us(tm, launch, B, ref);
    std::printf("%-*s %9.1f %7.1f%% %s\n", width, name, r.us, 100.0 * t_lib / r.us, r.exact ? "exact" : "FAIL");
  }
  void library_again() { std::printf("cublasSgeam again: %.1f us\n", tm.median_us([&] { library(); })); }
};

// ---- the gevm trials' problem ----------------------------------------------------------------
// y = x·A, A M × N row-major, with integer-valued inputs in [-4, 4] (every order of the sums is
// exact), and cuBLAS's y (gemv OP_N on the column-major view) as the reference for equality.
template <class T>
struct GevmProblem {
  int M, N;
  T *A = nullptr, *x = nullptr, *y = nullptr, *yref = nullptr;
  std::vector<T> href, hy;
  GevmProblem(int M_, int N_, unsigned seed) : M(M_), N(N_), href(N_), hy(N_) {
    const std::size_t n = std::size_t(M) * N;
    std::vector<T> hA(n), hx(M);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-4, 4);
    for (auto& v : hA) v = T(d(rng));
    for (auto& v : hx) v = T(d(rng));
    CK(cudaMalloc(&A, n * sizeof(T)));
    CK(cudaMalloc(&x, M * sizeof(T)));
    CK(cudaMalloc(&y, N * sizeof(T)));
    CK(cudaMalloc(&yref, N * sizeof(T)));
    CK(cudaMemcpy(A, hA.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x, hx.data(), M * sizeof(T), cudaMemcpyHostToDevice));
  }
  GevmProblem(const GevmProblem&) = delete;
  GevmProblem& operator=(const GevmProblem&) = delete;
  ~GevmProblem() { cudaFree(A), cudaFree(x), cudaFree(y), cudaFree(yref); }
  // cuBLAS's product into yref (what the timed library row runs).
  void library(cublasHandle_t h) const {
    const T one = 1, zero = 0;
    if constexpr (sizeof(T) == 4) CB(cublasSgemv(h, CUBLAS_OP_N, N, M, &one, A, N, x, 1, &zero, yref, 1));
    else CB(cublasDgemv(h, CUBLAS_OP_N, N, M, &one, A, N, x, 1, &zero, yref, 1));
  }
  // The reference: yref after library() has run, on the host.
  void keep_reference() {
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(href.data(), yref, N * sizeof(T), cudaMemcpyDeviceToHost));
  }
  // y poisoned (NaN), one launch, y compared with the reference for equality; a launch error is
  // returned (and `exact` left alone).
  template <class F>
  cudaError_t check(F&& launch, bool& exact) {
    CK(cudaMemset(y, 0xff, N * sizeof(T)));
    launch();
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
    CK(cudaMemcpy(hy.data(), y, N * sizeof(T), cudaMemcpyDeviceToHost));
    for (int j = 0; j < N; ++j) exact = exact && hy[j] == href[j];
    return cudaSuccess;
  }
};

// One table of a gevm trial: the problem, cuBLAS's time (printed as the table's heading and again
// at its end), and row(): a launch checked for equality with cuBLAS, timed, and checked again
// after its timed launches; a launch that fails prints its error and leaves its row out.
template <class T>
struct GevmTable {
  GevmProblem<T> pb;
  FlushTimer& tm;
  cublasHandle_t h;
  int width;  // of the config column
  double t_lib;
  GevmTable(int M, int N, unsigned seed, FlushTimer& tm_, cublasHandle_t h_, int width_)
      : pb(M, N, seed), tm(tm_), h(h_), width(width_) {
    t_lib = tm.median_us([&] { pb.library(h); });
    pb.keep_reference();
    std::printf("\n## %s %d x %d: cublas_gemv_n %.2f us\n", sizeof(T) == 4 ? "float" : "double", M, N, t_lib);
    std::printf("%-*s %9s %8s %7s %s\n", width, "config", "us", "vs lib", "blocks", "check");
  }
  GevmTable(const GevmTable&) = delete;
  GevmTable& operator=(const GevmTable&) = delete;
  ~GevmTable() { std::printf("cublas_gemv_n again: %.2f us\n", tm.median_us([&] { pb.library(h); })); }
  template <class F>
  void row(const char* name, long long blocks, F&& launch) {
    bool exact = true;
    cudaError_t e = pb.check(launch, exact);
    double t = 0;
    if (e == cudaSuccess) {
      t = tm.median_us(launch);
      e = pb.check(launch, exact);
    }
    if (e != cudaSuccess) {
      std::printf("%s: launch failed: %s\n", name, cudaGetErrorString(e));
      cudaGetLastError();
      return;
    }
    std::printf("%-*s %9.2f %7.1f%% %7lld %s\n", width, name, t, 100.0 * t_lib / t, blocks, exact ? "exact" : "WRONG");
  }
};

}  // namespace trial
