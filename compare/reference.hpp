// Host fp64 references. The tests check these against brute force; the runner and the GPU
// suite use them (never a copy of them) as the truth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kl {

// Sum of n values with its error-bound ingredients.
struct SumReference {
  double sum = 0;        // Neumaier-compensated fp64 sum: error <= 2u|s| + O(n u^2) sum|x|
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

// Host product reference, C = A·B row-major (A M×K, B K×N) given by element strides so that
// A·Aᵀ uses it too: a(i,k) = A[i*sa_i + k*sa_k], b(k,j) = B[k*sb_k + j*sb_j].
// Fills C (M×N) and |A|·|B| (M×N), both in fp64, the second being the bound's scale.
template <class T>
void reference_product_host(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                            std::size_t sb_k, std::size_t sb_j, int M, int N, int K,
                            double* C, double* absC);

// The same on the GPU (compare/reference_gpu.cu), for sizes where the host one is too slow;
// the GPU suite checks it against reference_product_host. Pointers are device pointers.
template <class T>
void reference_product_device(const T* A, std::size_t sa_i, std::size_t sa_k, const T* B,
                              std::size_t sb_k, std::size_t sb_j, int M, int N, int K,
                              double* C, double* absC, void* stream);

}  // namespace kl
