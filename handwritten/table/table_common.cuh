// What every table kernel does the same way, said once: the argument as the document forms it,
// the two ways of evaluating sin(sqrt(x)), and the 256-thread block.
//
// The document writes `__sinf(__sqrtf(x))`. CUDA has __sinf, but no __sqrtf (not in CUDA 13's
// crt/device_functions.h or math_functions.h, nor in the Programming Guide's intrinsics); the
// document means the fast hardware square root, which is what sqrtf becomes under
// -prec-sqrt=false (or -use_fast_math): PTX sqrt.approx.f32, one MUFU.SQRT on sm_90, documented at
// 1 ulp. sqrt_approx() asks for exactly that instruction, per call, without changing the compile
// flags of the whole translation unit. The IEEE square root sqrtf (nvcc's default -prec-sqrt=true)
// is MUFU.RSQ followed by a Newton step and a fix-up branch; __fsqrt_rn is the same IEEE root.
//
// Each math policy names its error model, which the runner's check uses
// (compare/families/family_table.hpp derives the bounds; the names must match).
#pragma once

#include "common/device_helpers.cuh"
#include "common/args/table_args.hpp"

namespace kl::table_detail {

constexpr int kBlock = 256;  // the document's block

// The argument step·index as the document forms it: in float, the index converted first. The
// conversion goes through 32 bits (a one-instruction I2FP; 64-bit conversions are slower), so a
// variant refuses n > 2^32 (the runner's limit, 2^30, is below it).
__device__ __forceinline__ float argument(float step, std::size_t i) {
  return step * static_cast<float>(static_cast<unsigned>(i));
}
inline const char* unsupported(TableShape s) {
  return s.n > (std::size_t(1) << 32) ? "the index is converted to float through 32 bits (n <= 2^32)" : nullptr;
}

__device__ __forceinline__ float sqrt_approx(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// The document's choice: fast approximate square root and sine.
struct Intrinsics {
  static constexpr const char* error_model = "__sinf(sqrt.approx)";
  __device__ static float f(float x) { return __sinf(sqrt_approx(x)); }
};

// The accurate functions: IEEE sqrtf and sinf (2 ulps, full range, with a slow path for huge
// arguments).
struct Accurate {
  static constexpr const char* error_model = "sinf(sqrtf)";
  __device__ static float f(float x) { return sinf(sqrtf(x)); }
};

// A table step as a variant: every step shares the index limit above and checks against its math
// policy's error model. name, origin and lesson: string literals.
template <class Math>
TableVariant<float> variant(std::string_view name, std::string_view origin, std::string_view lesson,
                            void (*launch)(const TableArgs<float>&, cudaStream_t)) {
  return {
      .info = {name, origin, lesson},
      .launch = launch,
      .unsupported = unsupported,
      .error_model = Math::error_model,
  };
}

}  // namespace kl::table_detail
