// table_const_<math> — document 000 (lab 3, "Работа с константной памятью"), `tableKernel`
// with its step in __constant__ memory written by cudaMemcpyToSymbol, as the section teaches.
//
// Lesson: constant memory is a small read-only space cached per SM; when every thread of a warp
// reads the same address (here: all read `step`) the constant cache broadcasts it in one
// access. What the document does not say is that a kernel's arguments already live there: on
// current GPUs the launch copies them into constant bank 0 and the kernel reads them through the
// same constant cache (SASS: the step is an operand c[0x0][...] of the multiply, or a ULDC,
// exactly like a __constant__ variable's c[0x3][...]). So for one scalar a __constant__ variable
// buys nothing in the kernel, and costs a copy: the host has to write it with
// cudaMemcpyToSymbol before the launch, a separate command on the stream, where an argument
// travels inside the launch itself. table_arg_<math> (table_argument_step.cuh) is the same kernel
// with the step as an argument; docs/transpose-and-table.md compares them.
//
// The copy: the step is an input of the operation (a table for this step), so the launcher
// writes it with cudaMemcpyToSymbolAsync on the launch's stream every time, and the timed
// operation holds that copy. The source is pageable (the launch arguments' step), which the
// runtime documents as consumed before the call returns: staged into pinned memory, or copied
// synchronously ("API synchronization behavior": for pageable memory an async copy "might be
// synchronous with respect to host", and where it must be staged "the driver may synchronize
// with the stream"). So the argument may go out of scope at once, and no later step can leak
// into this copy; what the documentation does not promise is that the call never waits for the
// stream: where a driver does, the timing of table_const_* shows it (beside table_const_once_*,
// which skips the copy). table_const_once_<math> writes it only when it changes
// (the runner's repeated launches then time the kernel alone): the steady state of a parameter
// set once for many launches, which isolates the read path from the copy. It uses its own
// constant slot, so no other variant's copies can leave a value it does not know about.
//
// Math: __sinf(__sqrtf(x)) in the document; see table_common.cuh for what __sqrtf is today and
// for the accurate alternative, a template parameter here.
//
// Changed from the document: the document asserts n % 256 == 0 and launches n / 256 blocks; here
// any n works (ceil(n / 256) blocks, threads past n write nothing), and the index is 64-bit (the
// document's int overflows past 2^31 elements). In the printed code step is in fact passed as an
// argument even in the constant-memory section; that version is table_arg_intrinsics.
#pragma once

#include "handwritten/table/table_common.cuh"

#include <cstring>
#include <string_view>

namespace kl::table_const {

// Slot 0: written before every launch; slot 1: written when it changes (table_const_once_*).
__constant__ float c_step[2];

template <class Math, int kSlot>
__global__ void __launch_bounds__(table_detail::kBlock) tableKernel(float* __restrict__ devPtr, std::size_t n) {
  const std::size_t index = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index < n) devPtr[index] = Math::f(table_detail::argument(c_step[kSlot], index));
}

// `step` is read before the call returns (pageable source: see the header). It is read from a
// copy that lives as long as the program: a CUDA graph that captured the launch (the runner's
// stream check replays one, as any graph of a user's would) reads the copy's source when it
// replays, and the argument is gone by then.
inline void write_step(int slot, float step, cudaStream_t s) {
  static float staged[2];
  staged[slot] = step;
  KL_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_step, &staged[slot], sizeof(float), slot * sizeof(float), cudaMemcpyHostToDevice, s));
}

// What slot 1 holds, as far as this process wrote it (bits, so that NaN never compares equal and
// -0 differs from +0). Only write_step_if_changed writes slot 1.
inline void write_step_if_changed(const float& step, cudaStream_t s) {
  static unsigned held = 0xffffffffu;  // a NaN's bits, which no step has: the first launch writes
  unsigned bits;
  std::memcpy(&bits, &step, sizeof bits);
  if (bits == held) return;
  write_step(1, step, s);
  held = bits;
}

template <class Math, int kSlot>
void launch(const TableArgs<float>& a, cudaStream_t s) {
  if constexpr (kSlot == 0) write_step(0, a.step, s);
  else write_step_if_changed(a.step, s);
  tableKernel<Math, kSlot><<<grid_blocks(ceil_div(a.n, std::size_t(table_detail::kBlock))), table_detail::kBlock, 0, s>>>(
      a.y, a.n);
  KL_CHECK_LAUNCH();
}

// name and lesson: string literals (the list says what the configuration teaches).
template <class Math>
TableVariant<float> variant(std::string_view name, std::string_view lesson) {
  return table_detail::variant<Math>(name, "000: tableKernel, step in __constant__ (cudaMemcpyToSymbol)", lesson,
                                     launch<Math, 0>);
}

template <class Math>
TableVariant<float> variant_once(std::string_view name, std::string_view lesson) {
  return table_detail::variant<Math>(name, "000: tableKernel, step in __constant__, set once", lesson, launch<Math, 1>);
}

}  // namespace kl::table_const
