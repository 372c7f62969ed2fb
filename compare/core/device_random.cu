// fill_random on the device: the input set of each timed sample drawn where it is used, outside
// the timed window, with exactly the values the host's fill_random (compare/core/random.hpp) draws
// from the same seed (element i: the (i + 1)-th number of SplitMix64(seed)), so a sample's
// reference can be computed on the host from its seed alone. The GPU suite holds the two to the
// same bits.
#include "common/cuda_check.hpp"
#include "compare/core/problem.hpp"
#include "compare/core/random.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace kl {
namespace {

__device__ std::uint64_t splitmix_at(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * SplitMix64::kIncrement;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
__device__ T random_value(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t r = splitmix_at(seed, i);
  if constexpr (std::is_integral_v<T>) {
    const auto mag = static_cast<std::int64_t>(1 + r % 1000);
    return static_cast<T>((r >> 40) & 1 ? mag : -mag);
  } else {
    // The host's 2.0 * uniform01 - 1.0: 2u is exact, so a fused or a separate subtraction rounds
    // the same way.
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
    return static_cast<T>(__dsub_rn(__dmul_rn(2.0, u), 1.0));
  }
}

// Row r, column c < cols of a rows × pitch buffer: the value the host draws for element r·cols + c
// of the packed rows; the columns from cols to pitch hold `pad`.
template <class T>
__global__ void random_rows_kernel(T* p, std::size_t rows, std::size_t cols, std::size_t pitch, T pad,
                                   std::uint64_t seed) {
  const std::size_t n = rows * pitch;
  for (std::size_t idx = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t r = idx / pitch, c = idx - r * pitch;
    p[idx] = c < cols ? random_value<T>(seed, r * cols + c) : pad;
  }
}

template <class T>
__device__ bool same_bits(T a, T b) {
  if constexpr (sizeof(T) == 8) return __double_as_longlong(static_cast<double>(a)) == __double_as_longlong(static_cast<double>(b));
  else if constexpr (std::is_integral_v<T>) return a == b;
  else return __float_as_int(a) == __float_as_int(b);
}

template <class T>
__global__ void random_mismatch_kernel(const T* p, std::size_t rows, std::size_t cols, std::size_t pitch, T pad,
                                       std::uint64_t seed, unsigned long long* count) {
  const std::size_t n = rows * pitch;
  unsigned long long local = 0;
  for (std::size_t idx = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t r = idx / pitch, c = idx - r * pitch;
    local += !same_bits(p[idx], c < cols ? random_value<T>(seed, r * cols + c) : pad);
  }
  if (local) atomicAdd(count, local);
}

std::size_t blocks_for(std::size_t n) { return std::max<std::size_t>(1, std::min<std::size_t>((n + 255) / 256, 8192)); }

}  // namespace

template <class T>
void fill_random_device(T* p, const RandomLayout& layout, std::uint64_t seed, cudaStream_t s) {
  const std::size_t n = layout.rows * layout.pitch;
  if (n == 0) return;
  random_rows_kernel<T><<<static_cast<unsigned>(blocks_for(n)), 256, 0, s>>>(p, layout.rows, layout.cols, layout.pitch,
                                                                     static_cast<T>(layout.pad), seed);
  KL_CHECK_LAUNCH();
}

template <class T>
std::size_t random_mismatches(const T* p, const RandomLayout& layout, std::uint64_t seed) {
  const std::size_t n = layout.rows * layout.pitch;
  if (n == 0) return 0;
  DeviceArray<unsigned long long> count(1);
  KL_CUDA_CHECK(cudaMemset(count.get(), 0, sizeof(unsigned long long)));
  random_mismatch_kernel<T><<<static_cast<unsigned>(blocks_for(n)), 256, 0, cudaStream_t{}>>>(
      p, layout.rows, layout.cols, layout.pitch, static_cast<T>(layout.pad), seed, count.get());
  KL_CHECK_LAUNCH();
  unsigned long long h = 0;
  KL_CUDA_CHECK(cudaMemcpy(&h, count.get(), sizeof h, cudaMemcpyDeviceToHost));
  return static_cast<std::size_t>(h);
}

template void fill_random_device<int>(int*, const RandomLayout&, std::uint64_t, cudaStream_t);
template void fill_random_device<float>(float*, const RandomLayout&, std::uint64_t, cudaStream_t);
template void fill_random_device<double>(double*, const RandomLayout&, std::uint64_t, cudaStream_t);

template std::size_t random_mismatches<int>(const int*, const RandomLayout&, std::uint64_t);
template std::size_t random_mismatches<float>(const float*, const RandomLayout&, std::uint64_t);
template std::size_t random_mismatches<double>(const double*, const RandomLayout&, std::uint64_t);

}  // namespace kl
