// fp64 reference of the table family: ref[i] = sin(x_i), x_i = sqrt(s·i), for the kernels' float
// step s (given here as the double it converts to exactly). x_i is returned too: the table's error
// bound grows with it (compare/families/family_table.hpp).
//
// s·i is exact in double while i < 2^29 (24 + 29 bits); past that it rounds once (relative
// 2^-53). sqrt is correctly rounded; sin is the host's libm (under one ulp) or CUDA's (two ulps,
// documented). So |ref_i − sin(sqrt(s·i))| <= table_reference_error(x_i), which covers both.
// The host version serves small tables, the GPU one large ones (the GPU suite checks one against
// the other).
#pragma once

#include <cstddef>

namespace kl {

// Above this many elements the reference is computed on the GPU.
inline constexpr std::size_t kHostTableRef = std::size_t(1) << 22;

// A bound on the reference's own error at argument x: the argument's relative error (<= 2^-52)
// moves sin by at most x·2^-52, and two ulps of a result within [-1, 1] are at most 2^-51.
inline double table_reference_error(double x) { return (x + 2.0) * 0x1p-51; }

void reference_table_host(double step, std::size_t n, double* ref, double* x);
// d_ref, d_x: device arrays of n doubles.
void reference_table_device(double step, std::size_t n, double* d_ref, double* d_x);

}  // namespace kl
