// A cache that sees through a transform of its input: 64 entries of (n, eight sampled inputs,
// their sum), enough to keep every input set of a problem's validation and timing. When the
// sampled inputs of this launch are those of an entry times one power of two (the only change an
// older runner made between timed samples), it writes the remembered sum times that factor
// without reading the input. Must FAIL: every timed sample now runs on inputs drawn from its own
// seed, so it hits only on the probes (the inputs its validation run saw), and is faster there
// than on inputs new to it ("ran faster on inputs it had already seen").
#include "common/user_kernel.hpp"

namespace {

constexpr unsigned kBlocks = 264, kThreads = 256;
constexpr int kEntries = 64, kKeys = 8;
struct Entry {
  unsigned long long n;
  float key[kKeys];
  float sum;
  int valid;
};
__device__ Entry cache[kEntries];
__device__ int hit;  // -1: compute
__device__ unsigned next_slot;

__device__ std::size_t key_at(std::size_t n, int k) { return (n - 1) * static_cast<std::size_t>(k) / (kKeys - 1); }

// The factor f = 2^e with in[key] == f * entry.key for every key, or 0.
__device__ float factor_of(const Entry& c, const float* in, std::size_t n) {
  if (!c.valid || c.n != n || c.key[0] == 0.f) return 0.f;
  const float f = in[key_at(n, 0)] / c.key[0];
  int e = 0;
  if (frexpf(fabsf(f), &e) != 0.5f) return 0.f;  // not a power of two
  for (int k = 1; k < kKeys; ++k)
    if (in[key_at(n, k)] != f * c.key[k]) return 0.f;
  return f;
}

__global__ void lookup(const float* in, std::size_t n, float* out) {
  hit = -1;
  *out = 0.f;
  for (int e = 0; e < kEntries; ++e) {
    const float f = factor_of(cache[e], in, n);
    if (f != 0.f) {
      *out = cache[e].sum * f;
      hit = e;
      return;
    }
  }
}
__global__ void sum_unless_hit(const float* __restrict__ in, std::size_t n, float* out) {
  if (hit >= 0) return;
  float s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
__global__ void remember(const float* in, std::size_t n, const float* out) {
  if (hit >= 0) return;
  Entry& c = cache[next_slot++ % kEntries];
  c.n = n;
  for (int k = 0; k < kKeys; ++k) c.key[k] = in[key_at(n, k)];
  c.sum = *out;
  c.valid = 1;
}

}  // namespace

KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"sum", "", "remembers sums and sees through a power-of-two scaling of the input"},
    .launch =
        [](const kl::ReduceArgs<float>& a, cudaStream_t s) {
          lookup<<<1, 1, 0, s>>>(a.in, a.n, a.out);
          sum_unless_hit<<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
          remember<<<1, 1, 0, s>>>(a.in, a.n, a.out);
          KL_CHECK_LAUNCH();
        },
    .rounding_depth = [](std::size_t n) { return double(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32); },
})
