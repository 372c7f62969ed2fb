// Sums on the host inside the launch: copies the input to pinned memory, adds it up in a host
// function (cudaLaunchHostFunc), copies the sum back; every step is capturable. Must FAIL: a
// captured graph with host nodes or host copies "did work on the host".
#include "common/user_kernel.hpp"

#include <vector>

namespace {

struct Host {
  float* pinned = nullptr;
  std::size_t cap = 0;
  std::size_t n = 0;
};
Host host;

void CUDART_CB add_on_host(void*) {
  float s = 0;
  for (std::size_t i = 0; i < host.n; ++i) s += host.pinned[i];
  host.pinned[host.n] = s;
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "the sum done by the CPU"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          host.n = a.n;
          KL_CUDA_CHECK(cudaMemcpyAsync(host.pinned, a.in, a.n * sizeof(float), cudaMemcpyDeviceToHost, s));
          KL_CUDA_CHECK(cudaLaunchHostFunc(s, add_on_host, nullptr));
          KL_CUDA_CHECK(cudaMemcpyAsync(a.out, host.pinned + a.n, sizeof(float), cudaMemcpyHostToDevice, s));
        },
    .prepare = [] {
      // Pinned memory for the largest size it will see, allocated outside any launch.
      if (!host.pinned) {
        host.cap = (std::size_t{1} << 25) + 1;
        KL_CUDA_CHECK(cudaMallocHost(&host.pinned, host.cap * sizeof(float)));
      }
    },
})
