// Inputs: the parallel random fill, and the precision sentinels of the exact input set (compare/core/problem.hpp, sentinel_value):
// every partial sum stays exact in the type, in any order, while a down-conversion of the
// sentinel-bearing operand (TF32, bf16, fp16 in a float product; float in a double one) changes
// the result, at every size.
#include "compare/core/problem.hpp"
#include "compare/core/random.hpp"
#include "compare/core/reference.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace kl;

namespace {

// Round a float to `mantissa` explicit bits, to nearest even (TF32: 10, bf16: 7, fp16: 10).
float narrow(float x, int mantissa) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  const int drop = 23 - mantissa;
  const std::uint32_t half = 1u << (drop - 1), mask = (1u << drop) - 1;
  const std::uint32_t rest = u & mask;
  u &= ~mask;
  if (rest > half || (rest == half && (u >> drop) & 1)) u += 1u << drop;
  float y;
  std::memcpy(&y, &u, 4);
  return y;
}

template <class T, class Acc>
Acc dot_in(const std::vector<T>& a, const std::vector<T>& b, bool reverse) {
  Acc s = 0;
  const std::size_t n = a.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = reverse ? n - 1 - k : k;
    s += static_cast<Acc>(a[i]) * static_cast<Acc>(b[i]);
  }
  return s;
}

}  // namespace

TEST_CASE("float sentinels: exact in float in any order, lost in TF32, bf16 and fp16") {
  for (std::size_t n : {1ul, 31ul, 1000ul, 4096ul, 100003ul, 1ul << 25}) {
    CAPTURE(n);
    const ExactValues e = exact_values<float>(static_cast<double>(n), 2, true);
    std::vector<float> a(n), b(n);
    fill_exact(a.data(), n, 7 + n, e, Sentinels{n, 0});
    fill_exact(b.data(), n, 11 + n, e.density < 1 ? ExactValues{1, 1} : e);
    CHECK(std::fabs(a[0]) == 2049.0f);
    CompensatedDot exact;
    for (std::size_t i = 0; i < n; ++i) exact.add(a[i], b[i]);
    const double truth = exact.value();
    // float accumulation, forwards and backwards: equal to the exact value.
    CHECK(static_cast<double>(dot_in<float, float>(a, b, false)) == truth);
    CHECK(static_cast<double>(dot_in<float, float>(a, b, true)) == truth);
    // The operand with the sentinel narrowed (TF32 and fp16 keep 10 explicit bits, bf16 7): the
    // result moves, even accumulated exactly.
    for (int mantissa : {10, 7}) {
      CAPTURE(mantissa);
      std::vector<float> na(n);
      for (std::size_t i = 0; i < n; ++i) na[i] = narrow(a[i], mantissa);
      CHECK(dot_in<float, double>(na, b, false) != truth);
    }
  }
}

TEST_CASE("double sentinels: exact in double in any order, lost when the operand goes through float") {
  for (std::size_t n : {1ul, 33ul, 4096ul, 100003ul}) {
    CAPTURE(n);
    const ExactValues e = exact_values<double>(static_cast<double>(n), 2, true);
    std::vector<double> a(n), b(n);
    fill_exact(a.data(), n, 3 + n, e, Sentinels{n, 0});
    fill_exact(b.data(), n, 5 + n, e.density < 1 ? ExactValues{1, 1} : e);
    CompensatedDot exact;
    for (std::size_t i = 0; i < n; ++i) exact.add(a[i], b[i]);
    const double truth = exact.value();
    CHECK(dot_in<double, double>(a, b, false) == truth);
    CHECK(dot_in<double, double>(a, b, true) == truth);
    std::vector<double> fa(n);
    for (std::size_t i = 0; i < n; ++i) fa[i] = static_cast<float>(a[i]);
    CHECK(dot_in<double, double>(fa, b, false) != truth);
  }
}

TEST_CASE("a sentinel squared (A·Aᵀ's diagonal, a sum of squares) still fits the budget") {
  const std::size_t M = 7, K = 4096;
  const ExactValues e = exact_values<float>(static_cast<double>(K), 2, true);
  std::vector<float> a(M * K);
  fill_exact(a.data(), a.size(), 9, e, Sentinels{K, 0});
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < M; ++j) {
      std::vector<float> ri(a.begin() + i * K, a.begin() + (i + 1) * K), rj(a.begin() + j * K, a.begin() + (j + 1) * K);
      CompensatedDot exact;
      for (std::size_t k = 0; k < K; ++k) exact.add(ri[k], rj[k]);
      CHECK(static_cast<double>(dot_in<float, float>(ri, rj, false)) == exact.value());
      CHECK(static_cast<double>(dot_in<float, float>(ri, rj, true)) == exact.value());
    }
}

TEST_CASE("sentinels go where the family asks") {
  std::vector<float> v(12);
  fill_exact(v.data(), v.size(), 1, ExactValues{3, 1}, Sentinels{4, 0});
  for (std::size_t i = 0; i < v.size(); ++i) CHECK((std::fabs(v[i]) == 2049.0f) == (i % 4 == 0));
  fill_exact(v.data(), v.size(), 1, ExactValues{3, 1}, Sentinels{0, 5});
  for (std::size_t i = 0; i < v.size(); ++i) CHECK((std::fabs(v[i]) == 2049.0f) == (i < 5));
  std::vector<int> w(12);
  fill_exact(w.data(), w.size(), 1, ExactValues{3, 1}, Sentinels{1, 0});  // integers: none
  for (int x : w) CHECK(std::abs(x) <= 3);
}

TEST_CASE("fill_random on every core draws the values one thread would") {
  const std::size_t n = (std::size_t{1} << 22) + 12345;
  std::vector<float> par(n);
  fill_random(par.data(), n, 77);
  SplitMix64 g(77);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < n; ++i) differ += par[i] != static_cast<float>(2.0 * g.uniform01() - 1.0);
  CHECK(differ == 0);
}
