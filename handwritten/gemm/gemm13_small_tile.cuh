// gemm13 at a small tile — beyond the documents, Hopper (sm_90a): gemm13's TMA ring on a 64 × 64
// × 32 tile, several blocks an SM, for the products its 128 × 256 tile serves badly.
// docs/sgemm-ladder.md, "gemm13 at a 64² tile", has the measurements.
//
// Lesson: one 128 × 256 block fills an SM's shared memory, so a product of a few thousand rows
// and columns and mid-depth k (a few hundred) makes a few waves of one block an SM, the last one
// ragged, and nothing covers a block's waits for its data. cuBLAS runs such products on 64²-class
// tiles at several blocks an SM. The ring works at that tile too, in its _r0 form
// (gemm13_ablations.cuh): one thread of the FMA warps issues a stage's copies, two TMA
// instructions a k tile, so the FMA warps' instruction stream stays almost all FFMAs and
// LDS.128 (a producer warpgroup would be as large as the four FMA warps). Shared memory, not
// registers, then sets the blocks an SM (Config::kResidentBlocks: three at four stages, four at
// three), and they cover each other's waits. Where even 64² tiles leave SMs idle, k is split so
// that the resident blocks fill the GPU (the fill rule at kResidentBlocks, split-K's ordered
// reduction). Operands whose rows TMA cannot read are copied padded first (gemm13_padded.cuh),
// and C's rows take the element epilogue where they are not 16-byte aligned.
#pragma once

#include "handwritten/gemm/gemm13_variants.cuh"

namespace kl::gemm13 {

// The shared-memory opt-in of both epilogues' instances, with what every form prepares.
template <class C>
void prepare_small() {
  static_assert(!C::SETMAXNREG && !C::TRANSPOSE_A && C::CLUSTER_M == 1, "the _r0 form");
  prepare<C, kernel_r0<C, false>, kernel_r0<C, true>>();
}

// launch_slices with the _r0 kernel's instance for g.C's rows (a split's slices, or C itself).
template <class C>
void launch_small_slices(const GemmArgs<float>& g, const Operands& o, int k_split, int slices, std::size_t stride,
                         cudaStream_t s) {
  with_epilogue(g.C, g.N, [&](auto element_c) {
    launch_slices<C, kernel_r0<C, decltype(element_c)::value>>(g, o, k_split, slices, stride, s);
  });
}
// Only enqueues: C = A·B in `splits` slices of k (launch_split_with: one slice straight into C,
// several through the workspace and the ordered reduction), on padded copies of operands with
// ragged rows.
template <class C>
void launch_small(const GemmArgs<float>& g, int splits, cudaStream_t s) {
  launch_split_with<C>(g, splits, s, launch_small_slices<C>);
}

// The unsplit form, under the Config's name, and the split one (as_splitk: the fill rule at the
// blocks an SM holds).
template <class C>
GemmVariant<float> small_variant() {
  GemmVariant<float> v = form_variant<C, kernel_r0<C>>(
      "Hopper: gemm13's TMA ring at a 64² tile, one thread issuing the copies, several blocks an SM; an operand with "
      "ragged rows copied padded for TMA");
  v.launch = [](const GemmArgs<float>& g, cudaStream_t s) { launch_small<C>(g, 1, s); };
  v.prepare = prepare_small<C>;
  v.workspace_bytes = [](GemmShape sh) { return split_workspace<C>(sh, 1); };
  return v;
}
template <class C>
GemmVariant<float> small_splitk_variant() {
  return as_splitk<C, launch_small<C>>(
      small_variant<C>(),
      "Hopper: gemm13's ring at a 64² tile with k split so that the blocks an SM holds fill the GPU; partial tiles in "
      "the workspace, an ordered reduction (no atomics)");
}

}  // namespace kl::gemm13
