// Error checking shared by every layer (kernels' launchers, library wrappers, the runner).
//
// A failing CUDA or cuBLAS call throws kl::CudaError carrying the call's text, file and line.
// The runner catches it around each variant and prefixes the variant's name, so a report reads
// "reduce3_sequential_addressing: cudaGetLastError() failed at reduce3...cuh:41: invalid argument".
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace kl {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& call, const char* file, int line, const std::string& what)
      : std::runtime_error(call + " failed at " + short_file(file) + ":" + std::to_string(line) +
                           ": " + what) {}

 private:
  static std::string short_file(const char* file) {
    std::string f(file);
    auto pos = f.find_last_of('/');
    return pos == std::string::npos ? f : f.substr(pos + 1);
  }
};

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) {
    throw CudaError(call, file, line,
                    std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err));
  }
}

}  // namespace kl

#define KL_CUDA_CHECK(call) ::kl::check_cuda((call), #call, __FILE__, __LINE__)

// After a <<<...>>> launch: catches bad configurations at once (asynchronous faults surface at the
// runner's next synchronising call, which is checked too).
#define KL_CHECK_LAUNCH() ::kl::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
