// gemm13 for every alignment — beyond the documents, Hopper (sm_90a): the transposing forms
// (_at, _at_splitk, _at_streamk) on products whose rows TMA cannot describe.
// docs/sgemm-ladder.md, "gemm13 for every alignment", has the measurements.
//
// Lesson: a TMA descriptor needs a row pitch of a multiple of 16 bytes, so a float operand whose
// rows hold a number of elements that is not a multiple of 4 (A where K is, B where N is) cannot be
// read by TMA where it lies. Filling the ring by 4-byte cp.async instead takes any alignment but
// puts every element through the load/store unit the FMA warps need (gemm13_ragged.cuh, the
// ablation that measures it). Copying the operand once into the workspace, its rows padded to a
// multiple of 4 elements, costs one pass over M·K (or K·N) elements, read once and written once;
// the product reads that operand N / BN (or M / BM) times over and does 2·M·N·K flops. Where the
// other side of the product is wide the copy is a small share of the time, and TMA then reads the
// copy as it reads an aligned operand. The descriptor's columns stop at K (or N): the padding is
// never read, a box reaching past K reads zeros as before. C's rows are then the only ragged ones:
// the epilogue stores element by element where they are not 16-byte aligned.
#pragma once

#include "common/device_helpers.cuh"
#include "handwritten/gemm/gemm_common.cuh"
#include "handwritten/gemm/gemm_pad_plan.hpp"

#include <cstddef>

namespace kl::gemm13 {

// dst (rows × pitch, pitch a multiple of 4, 16-byte aligned) = src (rows × cols, any base), its
// columns cols .. pitch - 1 zero. Thread x of a row writes one 16-byte vector of it: 4 loads of
// consecutive elements (a warp reads 512 consecutive bytes of the row whatever its alignment),
// one aligned store. Rows in y, as many at a time as the grid holds.
__global__ void __launch_bounds__(256) pad_rows(const float* __restrict__ src, float* __restrict__ dst, int rows, int cols,
                                                int pitch) {
  const int c = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= pitch) return;
  for (int r = blockIdx.y; r < rows; r += gridDim.y) {
    const float* s = src + std::size_t(r) * cols + c;
    float4 v;
    v.x = c < cols ? s[0] : 0.f;
    v.y = c + 1 < cols ? s[1] : 0.f;
    v.z = c + 2 < cols ? s[2] : 0.f;
    v.w = c + 3 < cols ? s[3] : 0.f;
    *reinterpret_cast<float4*>(dst + std::size_t(r) * pitch + c) = v;
  }
}

inline void launch_pad_rows(const float* src, float* dst, int rows, int cols, int pitch, cudaStream_t s) {
  const unsigned x = static_cast<unsigned>(ceil_div(pitch / 4, 256));
  const unsigned y = static_cast<unsigned>(rows < gemm_detail::kMaxGridY ? rows : gemm_detail::kMaxGridY);
  pad_rows<<<dim3(x, y), 256, 0, s>>>(src, dst, rows, cols, pitch);
  KL_CHECK_LAUNCH();
}

// The operands as TMA reads them: the caller's, or their padded copies, with their pitches.
struct Operands {
  const float* a;
  const float* b;
  int lda, ldb;
};

// Whether TMA can read the product's operands, as they lie or through padded copies in the
// workspace (gemm_plan::pad_plan: only an operand whose pitch is ragged is copied, so one whose
// pitch is a multiple of 4 but whose base is not 16-byte aligned cannot be; nor any without a
// workspace). C takes any alignment (the kernels' ELEMENT_C epilogue).
inline bool tma_runs(const GemmArgs<float>& g) {
  const gemm_plan::PadPlan p = gemm_plan::pad_plan({g.M, g.N, g.K}, 0);
  if ((p.a || p.b) && g.workspace == nullptr) return false;
  return (p.a || aligned16(g.A)) && (p.b || aligned16(g.B));
}

// Enqueues the copies pad_plan names (the workspace's first `before` bytes are the step's own) and
// returns what TMA reads. Only where tma_runs.
inline Operands pad_operands(const GemmArgs<float>& g, std::size_t before, cudaStream_t s) {
  const gemm_plan::PadPlan p = gemm_plan::pad_plan({g.M, g.N, g.K}, before);
  Operands o{g.A, g.B, p.lda, p.ldb};
  unsigned char* ws = static_cast<unsigned char*>(g.workspace);
  if (p.a) {
    float* a = reinterpret_cast<float*>(ws + p.a_offset);
    launch_pad_rows(g.A, a, g.M, g.K, p.lda, s);
    o.a = a;
  }
  if (p.b) {
    float* b = reinterpret_cast<float*>(ws + p.b_offset);
    launch_pad_rows(g.B, b, g.K, g.N, p.ldb, s);
    o.b = b;
  }
  return o;
}

}  // namespace kl::gemm13
