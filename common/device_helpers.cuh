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
//   KL_ARCH_AT_LEAST(cc)  in a kernel body: the device pass compiles for compute capability cc
//                   or newer (80 = 8.0); the guard a step beyond 7.5 puts around its body
//   launch_with_cluster  cudaLaunchKernelEx with a thread-block cluster of the given shape
//   device_cc, device_smem_optin, kernel_ptx_version, kernel_runs_here
//                   the current device and the image of a kernel that loaded on it, for the
//                   launch-time choosers (gemm_auto): pick only what runs on this device
#pragma once

#include "common/cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

// A kernel that needs a feature of a newer GPU exists for every target; its body only where the
// feature does (CUTLASS's idiom; CCCL's is NV_IF_TARGET(NV_PROVIDES_SM_80, ...)):
//   __global__ void k(...) {
//   #if KL_ARCH_AT_LEAST(80)   // cp.async
//     ... the body ...
//   #endif
//   }
// The host pass and a device pass for an older target see an empty body; the variant declares
// the same compute capability in its Requirements (common/variant.hpp), so the runner never
// launches the empty kernel (it checks the loaded image's ptxVersion, which is that target).
#if defined(__CUDA_ARCH__)
#define KL_ARCH_AT_LEAST(cc) (__CUDA_ARCH__ >= (cc) * 10)
#else
#define KL_ARCH_AT_LEAST(cc) 0
#endif

// Threads one SM holds on the target being compiled: 1024 on 7.5, 1536 on 8.6, 8.7, 8.9 and 11.0+,
// 2048 on 8.0, 9.0, 10.x (and in the host pass, where __launch_bounds__ means nothing).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KL_MAX_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1100)
#define KL_MAX_THREADS_PER_SM 1536
#else
#define KL_MAX_THREADS_PER_SM 2048
#endif
// __launch_bounds__'s second argument for `blocks` resident blocks of `threads` per SM, capped at
// what the target holds (ptxas refuses a minimum above it: 8 blocks of 256 threads is 2048, more
// than 7.5's 1024 or 8.6's 1536). Where they fit it is `blocks`, so those targets' code is unchanged.
#define KL_MIN_BLOCKS(threads, blocks) \
  ((threads) * (blocks) <= KL_MAX_THREADS_PER_SM ? (blocks) : KL_MAX_THREADS_PER_SM / (threads))

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

// kernel<<<grid, block, smem, s>>>(args...) with the blocks grouped into thread-block clusters of
// `cluster` blocks (cudaLaunchAttributeClusterDimension), through cudaLaunchKernelEx; returns its
// status so that the caller's KL_CUDA_CHECK names the caller's line.
template <class... KernelArgs, class... Args>
cudaError_t launch_with_cluster(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, dim3 cluster, std::size_t smem,
                                cudaStream_t s, Args&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster.x;
  attr.val.clusterDim.y = cluster.y;
  attr.val.clusterDim.z = cluster.z;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args&&>(args)...);
}

// Compute capability of the current device, 10 * major + minor (86 for 8.6), asked once.
inline int device_cc() {
  static const int cc = [] {
    int dev = 0, major = 0, minor = 0;
    KL_CUDA_CHECK(cudaGetDevice(&dev));
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    return 10 * major + minor;
  }();
  return cc;
}

// The most dynamic shared memory one block may opt in to on the current device (bytes), asked once:
// 64 KB on 7.5, 99 KB on 8.6/8.9/12.0, 163 KB on 8.0, 227 KB on 9.0/10.0.
inline std::size_t device_smem_optin() {
  static const std::size_t bytes = [] {
    int dev = 0, optin = 0;
    KL_CUDA_CHECK(cudaGetDevice(&dev));
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return static_cast<std::size_t>(optin);
  }();
  return bytes;
}

// The virtual architecture the loaded image of `kernel` was compiled from (cudaFuncAttributes::
// ptxVersion: 75 for compute_75 code, even JIT-compiled on a 9.0 GPU), or -1 when the build has
// no code for this device.
inline int kernel_ptx_version(const void* kernel) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
    cudaGetLastError();  // not sticky; clear it
    return -1;
  }
  return a.ptxVersion;
}

// Whether `kernel`, which needs compute capability min_cc and `smem` bytes of dynamic shared
// memory, runs on the current device: the device has both, and the image that loaded was built
// for min_cc or newer (its guarded body is there). Callers cache the answer (it cannot change
// within a process).
inline bool kernel_runs_here(const void* kernel, int min_cc, std::size_t smem = 0) {
  return device_cc() >= min_cc && smem <= device_smem_optin() && kernel_ptx_version(kernel) >= min_cc;
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

__host__ __device__ inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace kl
