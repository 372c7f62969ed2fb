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

// One operand's copy: dst (rows × pitch, pitch a multiple of 4, 16-byte aligned) = src (rows ×
// cols, any base), its columns cols .. pitch - 1 zero.
struct PadCopy {
  const float* src;
  float* dst;
  int rows, cols, pitch;
};

// Both copies in one launch: a launch and its drain cost as much as copying a small operand, and
// the product's kernel follows programmatically (pdl::launch): it is launched as this grid's last
// blocks leave, with no gap for the host's launch, and waits for the copies' stores before its
// own copies. This kernel never calls pdl::allow_dependent_launch: launched earlier, the
// product's blocks would take each SM as the copy's blocks left it, as many to an SM as fit, and
// a product of fewer blocks than the SMs hold would run them crowded onto a few SMs.
// One thread a 16-byte vector of a copy's row, A's vectors first, then B's, row by row:
// consecutive threads store consecutive vectors and read the 4 elements under each, so a warp
// reads 512 consecutive bytes of a row whatever its alignment, and every copy has as many threads
// as vectors however narrow or wide its rows.
__device__ __forceinline__ void pad_vector(const PadCopy& j, unsigned long long v) {
  const unsigned q = static_cast<unsigned>(j.pitch / 4);  // vectors a row
  const unsigned long long r = v >> 32 ? v / q : static_cast<unsigned>(v) / q;
  const int c = 4 * static_cast<int>(v - r * q);
  const float* s = j.src + r * j.cols + c;
  float4 x;
  x.x = c < j.cols ? s[0] : 0.f;
  x.y = c + 1 < j.cols ? s[1] : 0.f;
  x.z = c + 2 < j.cols ? s[2] : 0.f;
  x.w = c + 3 < j.cols ? s[3] : 0.f;
  *reinterpret_cast<float4*>(j.dst + r * j.pitch + c) = x;
}
__global__ void __launch_bounds__(256) pad_rows(PadCopy a, PadCopy b, unsigned long long a_vectors,
                                                unsigned long long vectors) {
  const unsigned long long v = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < a_vectors) pad_vector(a, v);
  else if (v < vectors) pad_vector(b, v - a_vectors);
}

inline void launch_pad_rows(const PadCopy& a, const PadCopy& b, cudaStream_t s) {
  const unsigned long long a_vectors = static_cast<unsigned long long>(a.rows) * (a.pitch / 4);
  const unsigned long long vectors = a_vectors + static_cast<unsigned long long>(b.rows) * (b.pitch / 4);
  if (vectors == 0) return;
  pad_rows<<<static_cast<unsigned>((vectors + 255) / 256), 256, 0, s>>>(a, b, a_vectors, vectors);
  KL_CHECK_LAUNCH();
}

// The operands as TMA reads them: the caller's, or their padded copies, with their pitches.
// `padded`: copies were enqueued just before, so the product's kernel may be launched
// programmatically after them (its producer waits for them: pdl::wait_for_primary_grid).
struct Operands {
  const float* a;
  const float* b;
  int lda, ldb;
  bool padded = false;
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
  Operands o{g.A, g.B, p.lda, p.ldb, p.a || p.b};
  if (!o.padded) return o;
  unsigned char* ws = static_cast<unsigned char*>(g.workspace);
  PadCopy a{g.A, nullptr, 0, g.K, p.lda}, b{g.B, nullptr, 0, g.N, p.ldb};
  if (p.a) {
    a.dst = reinterpret_cast<float*>(ws + p.a_offset);
    a.rows = g.M;
    o.a = a.dst;
  }
  if (p.b) {
    b.dst = reinterpret_cast<float*>(ws + p.b_offset);
    b.rows = g.K;
    o.b = b.dst;
  }
  launch_pad_rows(a, b, s);
  return o;
}

}  // namespace kl::gemm13
