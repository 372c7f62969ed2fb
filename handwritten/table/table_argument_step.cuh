// table_arg_<math> — document 000 (lab 3), `tableKernel` as printed: `tableKernel(float* devPtr,
// float step)`, the step an argument of the kernel.
//
// Lesson: the counterpart of table_const_<math>: the same kernel, the step delivered inside the
// launch. Kernel arguments are placed in constant bank 0 by the launch and read through the
// constant cache, so the read is the same uniform broadcast as a __constant__ variable's, with no
// copy command before the launch. The profiler shows the same instructions in both kernels
// (one constant-bank operand); the difference is the cudaMemcpyToSymbolAsync on the stream.
//
// Changed from the document: any n (ceil(n / 256) blocks, a guard), a 64-bit index (see
// table_constant_step.cuh). The math is a template parameter: the document's intrinsics, or the
// accurate sinf(sqrtf(x)).
#pragma once

#include "handwritten/table/table_common.cuh"

#include <string_view>

namespace kl::table_arg {

template <class Math>
__global__ void __launch_bounds__(table_detail::kBlock)
    tableKernel(float* __restrict__ devPtr, float step, std::size_t n) {
  const std::size_t index = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index < n) devPtr[index] = Math::f(table_detail::argument(step, index));
}

template <class Math>
void launch(const TableArgs<float>& a, cudaStream_t s) {
  tableKernel<Math><<<grid_blocks(ceil_div(a.n, std::size_t(table_detail::kBlock))), table_detail::kBlock, 0, s>>>(
      a.y, a.step, a.n);
  KL_CHECK_LAUNCH();
}

// name and lesson: string literals (the list says what the configuration teaches).
template <class Math>
TableVariant<float> variant(std::string_view name, std::string_view lesson) {
  return table_detail::variant<Math>(name, "000: tableKernel(devPtr, step) as printed", lesson, launch<Math>);
}

}  // namespace kl::table_arg
