// cuBLAS status checking, in the style of common/cuda_check.hpp: a failing call throws
// kl::CudaError carrying the call's text, file and line, and cuBLAS's own name and description
// of the status.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "common/cuda_check.hpp"

namespace kl {

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(call, file, line,
                    std::string(cublasGetStatusName(status)) + ": " +
                        cublasGetStatusString(status));
  }
}

}  // namespace kl

#define KL_CUBLAS_CHECK(call) ::kl::check_cublas((call), #call, __FILE__, __LINE__)
