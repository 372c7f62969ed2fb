// Library baselines for the table family: the same job through CCCL, with the accurate
// functions (sinf(sqrtf(step·i)), the argument formed as the hand-written kernels form it).
//
//   "thrust_tabulate"  thrust::tabulate(par_nosync.on(stream), y, y + n, op): y[i] = op(i). In
//                      CCCL 3.0 it is cub::DeviceFor::Bulk over the indices, one element per
//                      thread, and par_nosync leaves out the synchronisation thrust would
//                      otherwise add after it.
//   "cub_transform"    cub::DeviceTransform::Transform from a counting iterator over [0, n) into
//                      y: CUB's element-wise transform, which picks its own tiling and stores.
//
// Neither needs temporary storage. The op's error model is "sinf(sqrtf)" (compare/families/family_table.hpp).
#include <cub/device/device_transform.cuh>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/tabulate.h>

#include <vector>

#include "common/cuda_check.hpp"
#include "common/args/table_args.hpp"

namespace kl {
namespace {

// sin(sqrt(step·i)) with IEEE sqrtf and sinf; the index converted through 32 bits (n <= 2^30).
struct SinSqrt {
  float step;
  template <class Index>
  __device__ float operator()(Index i) const {
    return sinf(sqrtf(step * static_cast<float>(static_cast<unsigned>(i))));
  }
};

void launch_tabulate(const TableArgs<float>& a, cudaStream_t s) {
  thrust::tabulate(thrust::cuda::par_nosync.on(s), a.y, a.y + a.n, SinSqrt{a.step});
  KL_CHECK_LAUNCH();
}

void launch_transform(const TableArgs<float>& a, cudaStream_t s) {
  KL_CUDA_CHECK(cub::DeviceTransform::Transform(thrust::counting_iterator<unsigned>(0u), a.y, a.n, SinSqrt{a.step}, s));
}

const char* unsupported(TableShape s) {
  return s.n > (std::size_t(1) << 32) ? "the index is converted to float through 32 bits (n <= 2^32)" : nullptr;
}

}  // namespace

template <class T>
std::vector<TableVariant<T>> table_library() {
  return {
      {.info = {"thrust_tabulate", "Thrust", "thrust::tabulate (cub::DeviceFor::Bulk), sinf(sqrtf(step*i))", Source::library},
       .launch = launch_tabulate,
       .unsupported = unsupported,
       .error_model = "sinf(sqrtf)"},
      {.info = {"cub_transform", "CUB", "cub::DeviceTransform from a counting iterator, sinf(sqrtf(step*i))", Source::library},
       .launch = launch_transform,
       .unsupported = unsupported,
       .error_model = "sinf(sqrtf)"},
  };
}

template std::vector<TableVariant<float>> table_library<float>();

}  // namespace kl
