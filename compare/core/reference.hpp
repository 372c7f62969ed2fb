// fp64 references. The tests check these against brute force; the runner and the GPU suite use
// them (never a copy of them) as the truth. Sums and products accumulate with compensation, so
// the reference is far more accurate than any double kernel it judges (whose error grows with the
// length of its chain): its own error is about one rounding of the result.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kl {

// Neumaier's compensated sum: error <= 2u|s| + O(n u^2) sum|x| (Higham (4.8)).
struct CompensatedSum {
  double s = 0, c = 0;
  void add(double v) {
    const double t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  double value() const { return s + c; }
};

// p + e = a·b exactly (Dekker's product; an FMA where the host has one).
inline void two_product(double a, double b, double& p, double& e) {
  p = a * b;
#if defined(FP_FAST_FMA)
  e = std::fma(a, b, -p);
#else
  constexpr double split = 134217729.0;  // 2^27 + 1 (Veltkamp)
  const double ca = split * a, cb = split * b;
  const double ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
  e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

// Sum of products with compensation (Ogita, Rump, Oishi's Dot2 with Neumaier's sum): as if
// computed in twice the precision, then rounded. abs accumulates sum |a·b| (plain fp64).
struct CompensatedDot {
  CompensatedSum sum;
  double err = 0, abs = 0;
  void add(double a, double b) {
    double p, e;
    two_product(a, b, p, e);
    sum.add(p);
    err += e;
    abs += std::fabs(p);
  }
  double value() const { return sum.value() + err; }
  // A bound on value()'s own error: 2u|value| + 2 (n u)^2 abs, with a margin (Ogita et al.,
  // Proposition 5.5, for Neumaier's in place of TwoSum's accumulation).
  static double self_error(double value, double abs, double n);
};

// Sum of n values with its error-bound ingredients.
struct SumReference {
  double sum = 0;        // compensated fp64 sum
  double abs_sum = 0;    // sum |x_i| (the scale of the rounding-error bound)
  double self_error = 0; // a bound on this reference's own error
  std::int64_t exact_int = 0;  // exact integer sum (integer inputs only)
};

template <class T>
SumReference reference_sum(const T* x, std::size_t n);

// What an int32 accumulator holds after summing values whose exact sum is `exact`: CUDA's
// int adds wrap modulo 2^32, in any order, so this is exact whatever the summation order.
std::int32_t wrap_int32(std::int64_t exact);

// Bound for a variant's sum: gamma(depth, u_T)·sum|x| plus the reference's own error.
double sum_bound(const SumReference& ref, double depth, double unit_roundoff);

// Prefix sums of x[0, n), inclusive (ref[i] = x_0 + ... + x_i) or exclusive (ref[0] = 0,
// ref[i] = x_0 + ... + x_{i-1}), with each element's bound ingredients: abs[i], the sum of |x_j|
// over the same terms (an upper bound of it: the fp64 sum's own rounding is allowed for), and
// err[i], a bound on ref[i]'s own error. Floating types: compensated (Neumaier) running sums, the
// array cut into chunks scanned on every core, each chunk started from the compensated sum of the
// chunks before it; err[i] = u|ref[i]| + u·R_i, R_i the sum of the magnitudes of every compensation
// term formed on the way to element i (each compensation add rounds by at most u times its
// result, and the main sum's errors are captured exactly), so the bound holds whatever the inputs
// and however long the prefix. Integers: the exact prefix, wrapped modulo 2^32 as CUDA's int adds
// wrap (abs and err 0).
template <class T>
void reference_scan(const T* x, std::size_t n, bool inclusive, double* ref, double* abs, double* err);

// Host product reference, C = A·B row-major (A M×K, B K×N) given by element strides so that
// A·Aᵀ uses it too: a(i,k) = A[i*sa_i + k*sa_k], b(k,j) = B[k*sb_k + j*sb_j].
// Fills C (M×N, compensated: CompensatedDot per element) and |A|·|B| (M×N, the bound's scale).
template <class T>
void reference_product_host(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                            std::size_t sb_k, std::size_t sb_j, int M, int N, int K,
                            double* C, double* absC);

// The same on the GPU (compare/core/reference_gpu.cu), for sizes where the host one is too slow;
// the GPU suite checks it against reference_product_host. Pointers are device pointers. Any
// M (rows beyond the grid's y limit are taken in a grid-stride loop).
template <class T>
void reference_product_device(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                              std::size_t sb_k, std::size_t sb_j, int M, int N, int K,
                              double* C, double* absC, void* stream);

}  // namespace kl
