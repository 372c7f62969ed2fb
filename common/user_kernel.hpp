// The one header a kernel from outside the tree includes (docs/your-kernel.md). It brings the
// variant contract (common/variant.hpp), every family's argument struct, the error checks, and
// the registration:
//
//   #include "common/user_kernel.hpp"
//   __global__ void my_sum(const float* in, std::size_t n, float* out) { ... }
//   KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
//       .info = {"warp_sum", "mine", "one warp per block, atomics"},
//       .launch = [](const kl::ReduceArgs<float>& a, cudaStream_t s) { ...<<<g, b, 0, s>>>...; KL_CHECK_LAUNCH(); },
//   });
//
// Built with -DKL_USER_KERNELS=DIR, each .cu file of DIR's sub-folder SUB registers its variants
// as "SUB/<name>" (the submission's name is KL_SUBMISSION, set by CMake). Everything the runner
// does for its own variants applies: poison, exact inputs, the stream check, guard bands, the
// library cross-check, isolation of a faulting kernel. What a variant may leave out, and what
// then happens, is in docs/your-kernel.md ("What you may declare").
#pragma once

#include "common/cuda_check.hpp"
#include "common/variant.hpp"
#include "common/variant_registry.hpp"
#include "handwritten/dot/dot_args.hpp"
#include "handwritten/gemm/gemm_args.hpp"
#include "handwritten/gemv/matvec_args.hpp"
#include "handwritten/reduce/reduce_args.hpp"
#include "handwritten/rows/rows_args.hpp"
#include "handwritten/table/table_args.hpp"
#include "handwritten/transpose/transpose_args.hpp"



#ifndef KL_SUBMISSION
#define KL_SUBMISSION ""
#endif
#define KL_USER_CONCAT2(a, b) a##b
#define KL_USER_CONCAT(a, b) KL_USER_CONCAT2(a, b)
// Registers a variant into an existing family ("reduce", "dot", "rows", "gemm", "aat", "gemv",
// "gevm", "transpose", "table"): KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{...});
#define KL_REGISTER_VARIANT(family, ...)                                                     \
  namespace {                                                                                \
  [[maybe_unused]] const bool KL_USER_CONCAT(kl_user_variant_, __LINE__) =                   \
      ::kl::register_user_variant(family, KL_SUBMISSION, __VA_ARGS__);                       \
  }
