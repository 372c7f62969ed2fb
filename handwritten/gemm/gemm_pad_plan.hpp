// Where gemm13's TMA path puts padded copies of its operands (gemm13_padded.cuh runs it), as pure
// functions of the shape: which operand is copied, its padded row pitch, where the copy lies in
// the workspace behind the step's own partial products, the bytes it takes, and what the copy
// costs in gemm_auto's time model. Host-compilable: the host suite checks it without a GPU
// (tests/host/test_gemm_pad_plan.cpp).
#pragma once

#include "common/args/gemm_args.hpp"
#include "handwritten/gemm/gemm_plan.hpp"

#include <cstddef>

namespace kl::gemm_plan {

// A TMA descriptor's row pitch must be a multiple of 16 bytes: 4 floats.
constexpr int kPadElems = 4;
// Every copy starts on a 256-byte boundary of the workspace (TMA needs 16; the copy's 16-byte
// stores and the partial products before it keep whole lines).
constexpr std::size_t kPadAlign = 256;

// The copies a float product of this shape takes: A (M × K) where K is not a multiple of 4, B
// (K × N) where N is not; each at its offset (bytes from the workspace's start, after `before`
// bytes of the step's own use) with its padded pitch (elements). An operand whose pitch is
// already a multiple of 4 is never copied: where its base is not 16-byte aligned, the step runs
// its fallback instead (gemm13_padded.cuh).
struct PadPlan {
  bool a = false, b = false;
  int lda = 0, ldb = 0;  // the pitch TMA reads: the copy's, or the operand's own
  std::size_t a_offset = 0, b_offset = 0;
  std::size_t end = 0;  // bytes of workspace the step needs in all, its own `before` included
};
inline PadPlan pad_plan(GemmShape sh, std::size_t before, std::size_t elem_bytes = sizeof(float)) {
  PadPlan p;
  p.a = sh.K % kPadElems != 0;
  p.b = sh.N % kPadElems != 0;
  p.lda = div_up(sh.K, kPadElems) * kPadElems;  // K itself where it needs no copy
  p.ldb = div_up(sh.N, kPadElems) * kPadElems;
  std::size_t at = before;
  if (p.a) {
    p.a_offset = div_up(at, kPadAlign) * kPadAlign;
    at = p.a_offset + std::size_t(sh.M) * p.lda * elem_bytes;
  }
  if (p.b) {
    p.b_offset = div_up(at, kPadAlign) * kPadAlign;
    at = p.b_offset + std::size_t(sh.K) * p.ldb * elem_bytes;
  }
  p.end = at;
  return p;
}

// The copies' share of gemm_auto's time model (step_model_us adds it to the steps that pad): one
// launch for both (gemm13_padded.cuh copies A and B in one kernel), and every byte read once and
// its padded copy written once, at a copy kernel's bandwidth. Like the model's other constants it
// only ranks the candidates for tune to measure.
constexpr double kPadLaunchUs = 2.5, kPadBytesPerUs = 3.0e6;
inline double pad_model_us(GemmShape sh, std::size_t elem_bytes = sizeof(float)) {
  const PadPlan p = pad_plan(sh, 0, elem_bytes);
  double bytes = 0;
  if (p.a) bytes += double(sh.M) * (sh.K + p.lda) * double(elem_bytes);
  if (p.b) bytes += double(sh.K) * (sh.N + p.ldb) * double(elem_bytes);
  return p.a || p.b ? kPadLaunchUs + bytes / kPadBytesPerUs : 0.0;
}

}  // namespace kl::gemm_plan
