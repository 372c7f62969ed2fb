#include "compare/core/reference.hpp"

#include "compare/core/tolerance.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

namespace kl {

namespace {
constexpr double kU64 = std::numeric_limits<double>::epsilon() / 2;
}

double CompensatedDot::self_error(double value, double abs, double n) {
  const double g = gamma_bound(n, kU64);
  return 2 * kU64 * std::fabs(value) + 2 * g * g * abs * 1.01;
}

template <class T>
SumReference reference_sum(const T* x, std::size_t n) {
  SumReference r;
  if constexpr (std::is_integral_v<T>) {
    for (std::size_t i = 0; i < n; ++i) r.exact_int += static_cast<std::int64_t>(x[i]);
    r.sum = static_cast<double>(r.exact_int);
    for (std::size_t i = 0; i < n; ++i) r.abs_sum += std::fabs(static_cast<double>(x[i]));
  } else {
    // Compensated: the fp64 reference must be far more accurate than a double kernel's tree
    // (error ~ log2(n)·u·sum|x|), so plain fp64 summation would not do.
    CompensatedSum s;
    double a = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(x[i]);
      s.add(v);
      a += std::fabs(v);
    }
    r.sum = s.value();
    r.abs_sum = a;
    // Higham (4.8): |err| <= 2u|s| + 2 n u^2 sum|x| (plus the abs-sum's own rounding, negligible)
    r.self_error = 2 * kU64 * std::fabs(r.sum) + 2.0 * static_cast<double>(n) * kU64 * kU64 * a * 1.01;
  }
  return r;
}

std::int32_t wrap_int32(std::int64_t exact) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(exact)));
}

double sum_bound(const SumReference& ref, double depth, double unit_roundoff) {
  if (unit_roundoff == 0) return 0;  // integers: exact
  return gamma_bound(depth, unit_roundoff) * ref.abs_sum + ref.self_error;
}

template <class T>
void reference_product_host(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                            std::size_t sb_k, std::size_t sb_j, int M, int N, int K, double* C,
                            double* absC) {
  const std::size_t n = static_cast<std::size_t>(N);
  // i-k-j order: the inner loop runs along a row of C, so it stays in cache; one compensated
  // accumulator per element of the row.
  std::vector<CompensatedDot> row(n);
  for (int i = 0; i < M; ++i) {
    for (auto& d : row) d = CompensatedDot{};
    for (int k = 0; k < K; ++k) {
      const double a = static_cast<double>(A[i * sa_i + k * sa_k]);
      const T* b = B + k * sb_k;
      for (std::size_t j = 0; j < n; ++j) row[j].add(a, static_cast<double>(b[j * sb_j]));
    }
    double* c = C + static_cast<std::size_t>(i) * n;
    double* ac = absC + static_cast<std::size_t>(i) * n;
    for (std::size_t j = 0; j < n; ++j) c[j] = row[j].value(), ac[j] = row[j].abs;
  }
}

template SumReference reference_sum<int>(const int*, std::size_t);
template SumReference reference_sum<float>(const float*, std::size_t);
template SumReference reference_sum<double>(const double*, std::size_t);
template void reference_product_host<float>(const float*, std::size_t, std::size_t, const float*,
                                            std::size_t, std::size_t, int, int, int, double*, double*);
template void reference_product_host<double>(const double*, std::size_t, std::size_t, const double*,
                                             std::size_t, std::size_t, int, int, int, double*, double*);

}  // namespace kl
