// The references themselves, against brute force on small inputs.
#include "compare/core/random.hpp"
#include "compare/core/reference.hpp"
#include "compare/core/tolerance.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace kl;

TEST_CASE_TEMPLATE("reference_sum matches a long-double brute-force sum", T, float, double) {
  for (std::size_t n : {1u, 2u, 31u, 33u, 1000u, 100003u}) {
    std::vector<T> x(n);
    fill_random(x.data(), n, fresh_seed());
    long double exact = 0, abs_sum = 0;
    for (T v : x) exact += v, abs_sum += std::fabs(static_cast<long double>(v));
    const SumReference r = reference_sum(x.data(), n);
    INFO("n = " << n);
    CHECK(std::fabs(static_cast<long double>(r.sum) - exact) <= r.self_error + 1e-300);
    CHECK(r.abs_sum == doctest::Approx(static_cast<double>(abs_sum)).epsilon(1e-12));
  }
}

TEST_CASE("reference_sum is exact for ints and wraps like CUDA int arithmetic") {
  std::vector<int> x(4097);
  fill_random(x.data(), x.size(), fresh_seed());
  long long exact = 0;
  for (int v : x) exact += v;
  CHECK(reference_sum(x.data(), x.size()).exact_int == exact);
  CHECK(wrap_int32(exact) == static_cast<int>(exact));  // small sums do not wrap
  CHECK(wrap_int32(2147483648LL) == -2147483647 - 1);   // 2^31 wraps to INT_MIN
  CHECK(wrap_int32(4294967296LL + 5) == 5);
}

TEST_CASE("the fp64 reference beats naive summation on an ill-conditioned sum") {
  // 1e16 + 1 - 1e16 + ... : naive fp64 loses the ones, the compensated reference keeps them.
  std::vector<double> x;
  for (int i = 0; i < 1000; ++i) x.insert(x.end(), {1e16, 1.0, -1e16});
  CHECK(reference_sum(x.data(), x.size()).sum == 1000.0);
}

TEST_CASE_TEMPLATE("reference_product_host matches a brute-force triple loop", T, float, double) {
  struct Shape { int M, N, K; };
  for (Shape s : {Shape{1, 1, 1}, Shape{17, 33, 9}, Shape{31, 32, 33}, Shape{5, 1, 64}}) {
    std::vector<T> A(static_cast<std::size_t>(s.M) * s.K), B(static_cast<std::size_t>(s.K) * s.N);
    fill_random(A.data(), A.size(), fresh_seed());
    fill_random(B.data(), B.size(), fresh_seed());
    std::vector<double> C(static_cast<std::size_t>(s.M) * s.N), absC(C.size());
    reference_product_host(A.data(), s.K, 1, B.data(), s.N, 1, s.M, s.N, s.K, C.data(), absC.data());
    for (int i = 0; i < s.M; ++i)
      for (int j = 0; j < s.N; ++j) {
        long double c = 0, a = 0;
        for (int k = 0; k < s.K; ++k) {
          c += static_cast<long double>(A[i * s.K + k]) * B[k * s.N + j];
          a += std::fabs(static_cast<long double>(A[i * s.K + k]) * B[k * s.N + j]);
        }
        // gamma_K for the reference's own chain of K products in double, and two units more: one
        // for rounding the long-double brute force to double (|c| <= a), one for the brute
        // force's own error (long double does not hold a product of doubles exactly; its
        // K roundings at 2^-64 stay below 2^-53 · a here). With gamma_K alone a draw whose c
        // lies near a double's midpoint failed by that rounding.
        const double tol = gamma_bound(s.K + 2, 0x1p-53) * static_cast<double>(a) + 1e-300;
        REQUIRE(std::fabs(C[i * s.N + j] - static_cast<double>(c)) <= tol);
        REQUIRE(absC[i * s.N + j] == doctest::Approx(static_cast<double>(a)).epsilon(1e-12));
      }
  }
}

TEST_CASE("reference_product_host computes A·Aᵀ through strides") {
  const int M = 7, K = 5;
  std::vector<float> A(M * K);
  fill_random(A.data(), A.size(), fresh_seed());
  std::vector<double> C(M * M), absC(M * M);
  // b(k, j) = A[j*K + k]: stride 1 along k, K along j.
  reference_product_host(A.data(), K, 1, A.data(), 1, K, M, M, K, C.data(), absC.data());
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      double c = 0;
      for (int k = 0; k < K; ++k) c += static_cast<double>(A[i * K + k]) * A[j * K + k];
      CHECK(C[i * M + j] == doctest::Approx(c).epsilon(1e-14));
      CHECK(C[i * M + j] == C[j * M + i]);
    }
}

TEST_CASE("random inputs are fresh, in range, and not constant") {
  std::vector<float> a(1000), b(1000);
  fill_random(a.data(), a.size(), fresh_seed());
  fill_random(b.data(), b.size(), fresh_seed());
  CHECK(a != b);
  for (float v : a) CHECK((v >= -1.0f && v < 1.0f));
  std::vector<int> i(1000);
  fill_random(i.data(), i.size(), 42);
  int lo = 0, hi = 0;
  for (int v : i) lo = std::min(lo, v), hi = std::max(hi, v);
  CHECK(lo >= -1000);
  CHECK(hi <= 1000);
  CHECK(hi - lo > 1000);
}
