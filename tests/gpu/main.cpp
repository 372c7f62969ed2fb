// GPU suite entry point. Without a usable CUDA device the suite cannot say anything about the
// kernels, so it reports itself skipped (exit 77, which ctest shows as "Skipped"), never passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include "compare/core/device.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  std::string why;
  if (kl::cuda_device_count(&why) == 0) {
    std::printf("gpu_suite: SKIPPED: %s\n", why.c_str());
    return 77;
  }
  const kl::DeviceInfo d = kl::query_device(0);
  std::printf("gpu_suite: running on %s (CC %d.%d, %d SMs)\n", d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
