// A cache keyed on the content: 16 entries of (n, the first four values, the sum) in a __device__
// array; a hit writes the remembered sum without reading the input. Right on every input it has
// seen before, and fast there. Must FAIL: the inputs change between timed samples, and the
// samples on inputs it has not seen are slower than the repeats ("ran faster on inputs it had
// already seen").
#include "common/user_kernel.hpp"

namespace {

constexpr unsigned kBlocks = 264, kThreads = 256;
constexpr int kEntries = 16;
struct Entry {
  unsigned long long n;
  float key[4];
  float sum;
  int valid;
};
__device__ Entry cache[kEntries];
__device__ int hit_slot;
__device__ unsigned next_slot;  // round-robin replacement

__global__ void lookup(const float* in, std::size_t n, float* out) {
  hit_slot = -1;
  for (int e = 0; e < kEntries; ++e) {
    const Entry& c = cache[e];
    bool same = c.valid && c.n == n;
    for (int k = 0; k < 4 && same && static_cast<std::size_t>(k) < n; ++k) same = c.key[k] == in[k];
    if (same) {
      *out = c.sum;
      hit_slot = e;
      return;
    }
  }
  *out = 0;
}
__global__ void sum_unless_hit(const float* __restrict__ in, std::size_t n, float* out) {
  if (hit_slot >= 0) return;
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
__global__ void remember(const float* in, std::size_t n, const float* out) {
  if (hit_slot >= 0) return;
  const unsigned slot = next_slot++ % kEntries;
  cache[slot].n = n;
  for (int k = 0; k < 4; ++k) cache[slot].key[k] = static_cast<std::size_t>(k) < n ? in[k] : 0.f;
  cache[slot].sum = *out;
  cache[slot].valid = 1;
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "remembers sums by content"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          lookup<<<1, 1, 0, s>>>(a.in, a.n, a.out);
          sum_unless_hit<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          remember<<<1, 1, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
