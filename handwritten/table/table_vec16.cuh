// table_vec16_<math> — beyond document 000: the table written at the store bandwidth.
//
// Lesson: the table reads nothing, so its only traffic is its stores, and a store stream needs
// the same thing a load stream does: enough bytes in flight per instruction and per thread. The
// document's kernel stores one float per thread (4 bytes, one STG.32 per element, one short-lived
// thread per element with its own index arithmetic); at 2^28 elements on the H100 it reaches 56%
// of the copy bandwidth and 69.5% of thrust::tabulate (results/h100/session28/default.md). Here a
// thread computes kU groups of 4 consecutive elements and writes each group as one 16-byte store
// (STG.128): the block's 256 threads cover 256 · 4 · kU consecutive elements, each store
// instruction of a warp writes 512 contiguous bytes, and the kU stores are independent (issued
// back to back: the sines of the next group do not wait for the last store).
//
// Every element is the same function of its index as in table_arg_<math>: argument(step, i)
// formed in float, then the same Math::f, so the results are those of the document's kernel bit
// for bit and the error model (and bound) is the math policy's. Only the mapping of elements to
// threads and the width of the stores change.
//
// Edges: any n. Blocks past the last whole block of groups take the rest element by element
// (the tail kernel below: at most 256 · 4 · kU − 1 elements); a y that is not 16-byte aligned
// (never from cudaMalloc, possible from a user's offset pointer) takes the element path for all.
#pragma once

#include "handwritten/table/table_common.cuh"

#include <string_view>

namespace kl::table_vec16 {

constexpr int kU = 2;                                   // 16-byte stores per thread
constexpr std::size_t kPerBlock = std::size_t(table_detail::kBlock) * 4 * kU;  // elements per block

template <class Math>
__global__ void __launch_bounds__(table_detail::kBlock) table_groups(float* __restrict__ y, float step) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kPerBlock;
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    const std::size_t i = base + (static_cast<std::size_t>(u) * table_detail::kBlock + threadIdx.x) * 4;
    float4 v;
    v.x = Math::f(table_detail::argument(step, i));
    v.y = Math::f(table_detail::argument(step, i + 1));
    v.z = Math::f(table_detail::argument(step, i + 2));
    v.w = Math::f(table_detail::argument(step, i + 3));
    *reinterpret_cast<float4*>(y + i) = v;
  }
}

// Elements [first, n), one per thread.
template <class Math>
__global__ void __launch_bounds__(table_detail::kBlock) table_tail(float* __restrict__ y, float step, std::size_t first,
                                                                   std::size_t n) {
  const std::size_t i = first + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = Math::f(table_detail::argument(step, i));
}

template <class Math>
void launch(const TableArgs<float>& a, cudaStream_t s) {
  const std::size_t whole = aligned16(a.y) ? a.n / kPerBlock : 0;  // blocks of whole groups
  if (whole > 0) {
    table_groups<Math><<<grid_blocks(whole), table_detail::kBlock, 0, s>>>(a.y, a.step);
    KL_CHECK_LAUNCH();
  }
  const std::size_t first = whole * kPerBlock;
  if (first < a.n) {
    table_tail<Math><<<grid_blocks(ceil_div(a.n - first, std::size_t(table_detail::kBlock))), table_detail::kBlock, 0, s>>>(
        a.y, a.step, first, a.n);
    KL_CHECK_LAUNCH();
  }
}

// name and lesson: string literals.
template <class Math>
TableVariant<float> variant(std::string_view name, std::string_view lesson) {
  return {
      .info = {name, "beyond the document (after 000's tableKernel)", lesson},
      .launch = launch<Math>,
      .unsupported = table_detail::unsupported,
      .error_model = Math::error_model,
  };
}

}  // namespace kl::table_vec16
