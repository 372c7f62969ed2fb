// Library baselines for the dot family: cuBLAS, Thrust and CUB, the same job as the hand-written
// ladder (handwritten/dot/), wrapped to the same contract (common/variant.hpp).
//
//   "cublas_dot"            cublasSdot_64 / cublasDdot_64 (the 64-bit-size API, so n past 2^31
//                           works) with the result written to *out on the device: the handle is
//                           switched to CUBLAS_POINTER_MODE_DEVICE for the call and back to host
//                           mode after it (the other cuBLAS baselines pass alpha and beta from the
//                           host). cuBLAS has no integer dot product (cublas<t>dot is S, D, C, Z):
//                           int is declared unsupported.
//   "thrust_inner_product"  thrust::inner_product(par(alloc).on(stream), x, x + n, y, 0). Like
//                           thrust::reduce it hands the value back to the host: the call runs
//                           CUB's kernels, copies the result device -> host and synchronises the
//                           stream; the wrapper then copies it to *out from pinned memory. Its
//                           timed region holds those copies and the host's wake-up: the cost of
//                           Thrust's interface. Temporary storage comes from the workspace.
//   "cub_transform_reduce"  cub::DeviceReduce::TransformReduce over a zip iterator of (x, y) with
//                           a multiply as the transform: the products are formed as the tiles
//                           are loaded, never stored. Temporary storage = workspace.
//
// Rounding depth. cuBLAS documents no order for dot: the family's default, n (any order of n
// additions is at most n roundings high). For float that bound means nothing from n = 2^23 - 1 on
// (gamma(n + 1) >= 1: the runner would fail cuBLAS on a meaningless bound, 2^28 included), so
// cublas_dot declares those sizes unsupported rather than claim an order nobody documents;
// Thrust and CUB, whose order is read from the CCCL source, remain the yardsticks there.
// Thrust's inner_product is cub::DeviceReduce::Reduce over transform(zip(x, y), multiplies) with
// plus and a zero init (thrust/system/cuda/detail/inner_product.h, reduce.h: reduce_n_impl), and
// TransformReduce is the same DispatchReduce with the transform inside: both have
// cub::DeviceReduce's depth (lib_detail::cub_reduce_depth in library_common.cuh, which recovers
// CUB's grid from its own temporary-storage query for the very iterator and offset types that are
// launched). The one rounding of each product is added by the family.
#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/zip_function.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "common/cached_query.hpp"
#include "common/cublas_handle.hpp"
#include "common/cuda_check.hpp"
#include "common/reduce_launch.cuh"
#include "common/args/dot_args.hpp"
#include "library_baselines/library_common.cuh"

namespace kl {
namespace {

using lib_detail::cub_reduce_depth;

// ---------------------------------------------------------------------------------------------
// cublas_dot

template <class T>
void cublas_launch(const DotArgs<T>& a, cudaStream_t s) {
  if constexpr (std::is_integral_v<T>) {
    throw std::logic_error("cuBLAS has no integer dot product");  // unsupported() says so first
  } else {
    cublasHandle_t h = cublas_on(s);
    KL_CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    const cublasStatus_t status =
        cublas_sd<T>(cublasSdot_64, cublasDdot_64)(h, static_cast<std::int64_t>(a.n), a.x, 1, a.y, 1, a.out);
    KL_CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    KL_CUBLAS_CHECK(status);
  }
}

// ---------------------------------------------------------------------------------------------
// thrust_inner_product

// The iterator Thrust's CUDA backend reduces (cuda_cub::inner_product): products formed on the fly.
template <class T>
auto thrust_dot_iterator(const T* x, const T* y) {
  return thrust::make_transform_iterator(thrust::make_zip_iterator(x, y), thrust::make_zip_function(thrust::multiplies<T>()));
}

// thrust::inner_product is Reduce(plus, 0) over that iterator.
template <class T>
std::size_t thrust_cub_bytes(std::size_t n) {
  const T* null = nullptr;
  return lib_detail::thrust_reduce_cub_bytes<T>(thrust_dot_iterator(null, null), n, thrust::plus<T>());
}
template <class T>
using ThrustDot = lib_detail::ThrustReduction<T, thrust_cub_bytes<T>>;

template <class T>
void thrust_launch(const DotArgs<T>& a, cudaStream_t s) {
  ThrustDot<T>::run([&](const auto& policy) { return thrust::inner_product(policy, a.x, a.x + a.n, a.y, T(0)); },
                    a.workspace, a.n, a.out, s);
}

// ---------------------------------------------------------------------------------------------
// cub_transform_reduce

template <class T>
struct MultiplyPair {
  template <class Pair>
  __host__ __device__ T operator()(const Pair& p) const {
    return thrust::get<0>(p) * thrust::get<1>(p);
  }
};

template <class T>
cudaError_t cub_transform_reduce(void* ws, std::size_t& bytes, const T* x, const T* y, T* out, std::size_t n,
                                 cudaStream_t s) {
  return cub::DeviceReduce::TransformReduce(ws, bytes, thrust::make_zip_iterator(x, y), out, n, ::cuda::std::plus<T>(),
                                            MultiplyPair<T>{}, T(0), s);
}

template <class T>
std::size_t cub_workspace_bytes(std::size_t n) {
  std::size_t bytes = 0;
  KL_CUDA_CHECK(cub_transform_reduce<T>(nullptr, bytes, nullptr, nullptr, nullptr, n, nullptr));
  return bytes;
}

template <class T>
void cub_launch(const DotArgs<T>& a, cudaStream_t s) {
  std::size_t bytes = remembered<cub_workspace_bytes<T>>(a.n);
  KL_CUDA_CHECK(cub_transform_reduce<T>(a.workspace, bytes, a.x, a.y, a.out, a.n, s));
}

}  // namespace

template <class T>
std::vector<DotVariant<T>> dot_library() {
  return {
      {
          .info = {"cublas_dot", "cuBLAS", "cublasSdot_64/cublasDdot_64, result written on the device", Source::library},
          .launch = cublas_launch<T>,
          .unsupported = [](std::size_t n) -> const char* {
            if (std::is_integral_v<T>) return "cuBLAS has no integer dot product (cublas<t>dot is S, D, C, Z only)";
            // The family's default depth n, plus the product's rounding.
            if (reduce_launch::unbounded_depth<T>(static_cast<double>(n) + 1))
              return "cuBLAS documents no summation order for dot, and the bound that holds for every order (a chain "
                     "of n roundings) means nothing at this n: gamma(n) >= 1";
            return nullptr;
          },
          .prepare = prepare_cublas,
      },
      {
          .info = {"thrust_inner_product", "Thrust",
                   "thrust::inner_product: returns to the host, so the time includes a D->H copy, a stream sync "
                   "and the H->D copy to *out",
                   Source::library},
          .launch = thrust_launch<T>,
          .workspace_bytes = ThrustDot<T>::workspace_bytes,
          .rounding_depth = ThrustDot<T>::rounding_depth,
          .prepare = ThrustDot<T>::prepare,
      },
      {
          .info = {"cub_transform_reduce", "CUB",
                   "cub::DeviceReduce::TransformReduce over zip(x, y) with a multiply: products formed as tiles load",
                   Source::library},
          .launch = cub_launch<T>,
          .workspace_bytes = cub_workspace_bytes<T>,
          .rounding_depth = [](std::size_t n) { return cub_reduce_depth<T>(n, cub_workspace_bytes<T>(n)); },
      },
  };
}

template std::vector<DotVariant<int>> dot_library<int>();
template std::vector<DotVariant<float>> dot_library<float>();
template std::vector<DotVariant<double>> dot_library<double>();

}  // namespace kl
