// table_vec16_<math> — beyond document 000: the table written at the store bandwidth.
//
// Lesson: the table reads nothing, so its only traffic is its stores, and a store stream needs
// the same thing a load stream does: enough bytes in flight per instruction and per thread. The
// document's kernel stores one float per thread (4 bytes, one STG.32 per element, one short-lived
// thread per element with its own index arithmetic); at 2^28 elements on the H100 it reaches
// little more than half the copy bandwidth and stays behind thrust::tabulate
// (docs/transpose-and-table.md, "Writing at the store bandwidth: table_vec16"). Here a
// thread computes 4 consecutive elements and writes them as one 16-byte store (STG.128): each
// store instruction of a warp writes 512 contiguous bytes, a quarter of the threads carry the
// same bytes. Two such stores per thread (a first version) wrote 2^28 floats as fast, well ahead
// of thrust::tabulate, but left half the threads for a million elements (behind thrust there),
// with a second kernel for the tail (same section).
//
// Every element is the same function of its index as in table_arg_<math>: argument(step, i)
// formed in float, then the same Math::f, so the results are those of the document's kernel bit
// for bit and the error model (and bound) is the math policy's. Only the mapping of elements to
// threads and the width of the stores change.
//
// Edges: any n, one kernel: the group that straddles n is written element by element; a y that is
// not 16-byte aligned (never from cudaMalloc, possible from a user's offset pointer) takes the
// element stores everywhere.
#pragma once

#include "handwritten/table/table_common.cuh"

#include <string_view>

namespace kl::table_vec16 {

constexpr std::size_t kPerBlock = std::size_t(table_detail::kBlock) * 4;  // elements per block

// VEC: thread t of block b writes elements 4(256b + t) .. + 3, one 16-byte store when all four
// are inside n, element stores for the group that straddles n. !VEC (y not 16-byte aligned): the
// same elements, four element stores.
template <class Math, bool VEC>
__global__ void __launch_bounds__(table_detail::kBlock) table_groups(float* __restrict__ y, float step, std::size_t n) {
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * table_detail::kBlock + threadIdx.x) * 4;
  if (VEC && i + 4 <= n) {
    float4 v;
    v.x = Math::f(table_detail::argument(step, i));
    v.y = Math::f(table_detail::argument(step, i + 1));
    v.z = Math::f(table_detail::argument(step, i + 2));
    v.w = Math::f(table_detail::argument(step, i + 3));
    *reinterpret_cast<float4*>(y + i) = v;
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (i + e < n) y[i + e] = Math::f(table_detail::argument(step, i + e));
  }
}

template <class Math>
void launch(const TableArgs<float>& a, cudaStream_t s) {
  const auto kernel = aligned16(a.y) ? table_groups<Math, true> : table_groups<Math, false>;
  kernel<<<grid_blocks(ceil_div(a.n, kPerBlock)), table_detail::kBlock, 0, s>>>(a.y, a.step, a.n);
  KL_CHECK_LAUNCH();
}

// name and lesson: string literals.
template <class Math>
TableVariant<float> variant(std::string_view name, std::string_view lesson) {
  return table_detail::variant<Math>(name, "beyond the document (after 000's tableKernel)", lesson, launch<Math>);
}

}  // namespace kl::table_vec16
