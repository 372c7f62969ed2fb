#include "compare/core/reference.hpp"

#include "compare/core/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <type_traits>
#include <vector>

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

namespace {

// Neumaier's running sum, and R: the sum of the magnitudes of its compensation term after every
// add. The main sum's rounding errors are captured exactly ((s - t) + v with |s| >= |v|, or the
// other way round), so the only errors left are the compensation's own roundings, each at most u
// times its result: |s + c - exact| <= u·r.
struct TrackedSum {
  double s = 0, c = 0, r = 0;
  void add(double v) {
    const double t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    r += std::fabs(c);
    s = t;
  }
  double value() const { return s + c; }
};

// Runs body(chunk, lo, hi) for `chunks` contiguous chunks of [0, n), on as many threads.
template <class Body>
void for_chunks(std::size_t n, std::size_t chunks, Body&& body) {
  std::vector<std::thread> threads;
  for (std::size_t k = 1; k < chunks; ++k) threads.emplace_back([&, k] { body(k, n * k / chunks, n * (k + 1) / chunks); });
  body(0, 0, n / chunks);
  for (auto& t : threads) t.join();
}

}  // namespace

template <class T>
void reference_scan(const T* x, std::size_t n, bool inclusive, double* ref, double* abs, double* err) {
  constexpr std::size_t kMinChunk = std::size_t{1} << 16;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = std::max<std::size_t>(1, std::min(cores, n / kMinChunk));
  if constexpr (std::is_integral_v<T>) {
    // Modulo 2^64 (a prefix of 2^36 ints may pass 2^63): that agrees with the exact prefix modulo
    // 2^32, which is all an int32 result holds.
    std::vector<std::uint64_t> sums(chunks, 0), start(chunks, 0);
    for_chunks(n, chunks, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      std::uint64_t acc = 0;
      for (std::size_t i = lo; i < hi; ++i) acc += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
      sums[k] = acc;
    });
    for (std::size_t k = 1; k < chunks; ++k) start[k] = start[k - 1] + sums[k - 1];
    for_chunks(n, chunks, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      std::uint64_t acc = start[k];
      for (std::size_t i = lo; i < hi; ++i) {
        const std::uint64_t before = acc;
        acc += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
        ref[i] = wrap_int32(static_cast<std::int64_t>(inclusive ? acc : before));
        abs[i] = 0;
        err[i] = 0;
      }
    });
  } else {
    // Pass 1: each chunk's compensated sum (its value s + c, its R) and its sum of |x|.
    std::vector<TrackedSum> part(chunks);
    std::vector<double> part_abs(chunks, 0);
    for_chunks(n, chunks, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      TrackedSum acc;
      double a = 0;
      for (std::size_t i = lo; i < hi; ++i) {
        const double v = static_cast<double>(x[i]);
        acc.add(v);
        a += std::fabs(v);
      }
      part[k] = acc;
      part_abs[k] = a;
    });
    // Where each chunk starts: the compensated sum of the chunks before it (their s and c added to
    // one accumulator), its R (that accumulator's and the chunks' own), their sum of |x|.
    struct Start {
      double s, c, r, a;
    };
    std::vector<Start> start(chunks);
    TrackedSum offset;
    double r_parts = 0, a_parts = 0;
    for (std::size_t k = 0; k < chunks; ++k) {
      start[k] = {offset.s, offset.c, offset.r + r_parts, a_parts};
      offset.add(part[k].s);
      offset.add(part[k].c);
      r_parts += part[k].r;
      a_parts += part_abs[k];
    }
    // The fp64 sums of |x| round too (relative error within gamma(n) in fp64): scaled up so that
    // abs[i] stays an upper bound of the exact sum.
    const double abs_scale = 1 / (1 - gamma_bound(static_cast<double>(n), kU64));
    // Pass 2: each chunk from its start, writing every element.
    for_chunks(n, chunks, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      TrackedSum acc{start[k].s, start[k].c, 0};
      const double r0 = start[k].r;
      double a = start[k].a;
      const auto emit = [&](std::size_t i) {
        ref[i] = acc.value();
        abs[i] = a * abs_scale;
        err[i] = kU64 * std::fabs(ref[i]) * (1 + 2 * kU64) + kU64 * (r0 + acc.r) * 1.01;
      };
      for (std::size_t i = lo; i < hi; ++i) {
        if (!inclusive) emit(i);
        const double v = static_cast<double>(x[i]);
        acc.add(v);
        a += std::fabs(v);
        if (inclusive) emit(i);
      }
    });
  }
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

template void reference_scan<int>(const int*, std::size_t, bool, double*, double*, double*);
template void reference_scan<float>(const float*, std::size_t, bool, double*, double*, double*);
template void reference_scan<double>(const double*, std::size_t, bool, double*, double*, double*);
template SumReference reference_sum<int>(const int*, std::size_t);
template SumReference reference_sum<float>(const float*, std::size_t);
template SumReference reference_sum<double>(const double*, std::size_t);
template void reference_product_host<float>(const float*, std::size_t, std::size_t, const float*,
                                            std::size_t, std::size_t, int, int, int, double*, double*);
template void reference_product_host<double>(const double*, std::size_t, std::size_t, const double*,
                                             std::size_t, std::size_t, int, int, int, double*, double*);

}  // namespace kl
