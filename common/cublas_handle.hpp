// cuBLAS for every library baseline: status checks in the style of common/cuda_check.hpp, one
// handle per process, and the choice between a routine's S and D forms.
//
// Creating a handle costs milliseconds and allocates device memory, so it is made once, in a
// variant's prepare() (outside any timed region), as a function-local static: thread-safe
// initialisation, destroyed at exit. Each launch binds it to its stream (cublas_on).
//
// Precision: the math mode is set to CUBLAS_DEFAULT_MATH, plain FP32 for S routines and FP64 for
// D routines: no TF32 tensor-core down-conversion and no BF16x9 / fixed-point emulation (those
// need their own math-mode flags). On the H100, DGEMM may run on the FP64 tensor cores (DMMA),
// which are full IEEE FP64 arithmetic, so comparisons with the hand-written kernels stay like for
// like. Pointer mode host: alpha and beta are host values.
#pragma once

#include <cublas_v2.h>

#include <string>
#include <type_traits>

#include "common/cuda_check.hpp"

namespace kl {

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(call, file, line,
                    std::string(cublasGetStatusName(status)) + ": " + cublasGetStatusString(status));
  }
}

}  // namespace kl

#define KL_CUBLAS_CHECK(call) ::kl::check_cublas((call), #call, __FILE__, __LINE__)

namespace kl {

class CublasHandle {
 public:
  CublasHandle() {
    KL_CUBLAS_CHECK(cublasCreate(&handle_));
    try {
      KL_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));  // pure FP32 / FP64
      KL_CUBLAS_CHECK(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST));
    } catch (...) {
      (void)cublasDestroy(handle_);
      throw;
    }
  }
  // At exit there is nobody left to report a failure to (and the CUDA runtime may already be
  // shutting down), so the status is deliberately ignored.
  ~CublasHandle() { (void)cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// The process's handle, created on first use.
inline cublasHandle_t cublas_handle() {
  static CublasHandle h;
  return h.get();
}

// A variant's prepare(): creates the handle before the first (untimed) launch.
inline void prepare_cublas() { (void)cublas_handle(); }

// The handle, bound to this launch's stream.
inline cublasHandle_t cublas_on(cudaStream_t stream) {
  cublasHandle_t h = cublas_handle();
  KL_CUBLAS_CHECK(cublasSetStream(h, stream));
  return h;
}

// Element-type dispatch, said once for every baseline: cublas_sd<T>(cublasSgemm, cublasDgemm) is
// the routine for T (S for float, D for double), called with the same arguments as either, so
// the compiler checks them against the routine that runs:
//   KL_CUBLAS_CHECK(cublas_sd<T>(cublasSgeam, cublasDgeam)(h, ta, tb, m, n, &one, A, lda, ...));
template <class T, class SRoutine, class DRoutine>
constexpr auto cublas_sd([[maybe_unused]] SRoutine s_routine, [[maybe_unused]] DRoutine d_routine) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "cuBLAS's S and D routines: float or double");
  if constexpr (std::is_same_v<T, float>) {
    return s_routine;
  } else {
    return d_routine;
  }
}

}  // namespace kl
