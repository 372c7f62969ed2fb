// Registers an int matrix product: the gemm family runs float and double only. Must be left out,
// naming the types the family runs.
#include "common/user_kernel.hpp"

namespace {
__global__ void zero(int* C) { C[0] = 0; }
}  // namespace

KL_REGISTER_VARIANT("gemm", kl::GemmVariant<int>{
    .info = {"int_gemm", "", "an element type the family does not have"},
    .launch = [](const kl::GemmArgs<int>& a, cudaStream_t s) { zero<<<1, 1, 0, s>>>(a.C); },
})
