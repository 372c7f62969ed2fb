// NCCL status checks in the style of common/cuda_check.hpp: a failing call throws kl::CudaError
// naming the call, file and line, and NCCL's own message.
#pragma once

#include "common/cuda_check.hpp"

#include <nccl.h>

#include <string>

namespace kl {

inline void check_nccl(ncclResult_t r, const char* call, const char* file, int line) {
  if (r != ncclSuccess) {
    const char* last = ncclGetLastError(nullptr);
    throw CudaError(call, file, line,
                    std::string(ncclGetErrorString(r)) + (last && *last ? std::string(" (") + last + ")" : ""));
  }
}

}  // namespace kl

#define KL_NCCL_CHECK(call) ::kl::check_nccl((call), #call, __FILE__, __LINE__)
