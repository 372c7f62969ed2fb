// Device-side helpers said once for every family: handwritten/ and library_baselines/ include
// this, never each other's internals.
//
//   ceil_div        blocks for n items, without the overflow of (a + b - 1) / b near the top
//   grid_blocks     a 1-D grid size, refused with a clear error past 2^31 - 1 blocks
//   sm_count        multiprocessors of the current device, asked once per process
//   with_pow2_width from a lane-group or tile width chosen at run time (1, 2, 4, ..., 32) to the
//                   kernel instantiated for it
//   Vec16<T>        the 16-byte vector of T (float4, int4, double2) and its width; load_vec /
//                   store_vec move one through registers (the pointer must be 16-byte aligned)
//   aligned16       whether a pointer may be read as 16-byte vectors
#pragma once

#include "common/cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace kl {

// a, b >= 0 (b > 0) of any integer types; the result has their common type.
template <class I, class J>
__host__ __device__ constexpr std::common_type_t<I, J> ceil_div(I a, J b) {
  return static_cast<std::common_type_t<I, J>>(a / b + (a % b != 0));
}

// A 1-D grid holds at most 2^31 - 1 blocks; beyond that a launch would fail with a less helpful
// "invalid argument".
inline unsigned grid_blocks(std::size_t blocks) {
  if (blocks > 0x7fffffffu) throw std::invalid_argument("too many blocks for one grid (more than 2^31 - 1)");
  return static_cast<unsigned>(blocks);
}

// Multiprocessors of the current device, asked once per process (the runner uses one device).
inline unsigned sm_count() {
  static const unsigned count = [] {
    int dev = 0, sms = 0;
    KL_CUDA_CHECK(cudaGetDevice(&dev));
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return static_cast<unsigned>(sms);
  }();
  return count;
}

// Calls f(std::integral_constant<int, W>{}) with W = w for w in {1, 2, 4, 8, 16}, W = 32
// otherwise: the launchers' one switch from a width planned at run time (lanes per row, column
// items per tile, lanes per output) to the template instantiated for it.
template <class F>
decltype(auto) with_pow2_width(int w, F&& f) {
  switch (w) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
    default: return f(std::integral_constant<int, 32>{});
  }
}

template <class T> struct Vec16;
template <> struct Vec16<float> { using type = float4; static constexpr int width = 4; };
template <> struct Vec16<int> { using type = int4; static constexpr int width = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int width = 2; };
template <class T> using vec16_t = typename Vec16<T>::type;
template <class T> inline constexpr int kVec = Vec16<T>::width;

// dst[0, kVec) = the 16-byte vector at src (src 16-byte aligned).
template <class T>
__device__ __forceinline__ void load_vec(T* dst, const T* src) {
  const vec16_t<T> v = *reinterpret_cast<const vec16_t<T>*>(src);
  const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
  for (int i = 0; i < kVec<T>; ++i) dst[i] = e[i];
}

// The 16-byte vector at dst = src[0, kVec) (dst 16-byte aligned).
template <class T>
__device__ __forceinline__ void store_vec(T* dst, const T* src) {
  vec16_t<T> v;
  T* e = reinterpret_cast<T*>(&v);
#pragma unroll
  for (int i = 0; i < kVec<T>; ++i) e[i] = src[i];
  *reinterpret_cast<vec16_t<T>*>(dst) = v;
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace kl
