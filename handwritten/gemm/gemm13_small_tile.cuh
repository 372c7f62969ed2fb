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

// The shared-memory opt-in of both epilogues' instances, the reduction's launch attribute and the
// TMA encoder, once, outside any timed launch.
template <class C>
void prepare_small() {
  static_assert(!C::SETMAXNREG && !C::TRANSPOSE_A && C::CLUSTER_M == 1, "the _r0 form");
  allow_smem(C::kSmemBytes, {static_cast<Kernel>(kernel_r0<C, false>), static_cast<Kernel>(kernel_r0<C, true>)});
  Fallback::prepare();
  splitk_reduce_programmatic_here<float>();
  (void)tensor_map_encoder();
}

// Only enqueues: C = A·B in `splits` slices of k (one: straight into C; several: partial tiles in
// the workspace's first slices, added into C in slice order), on padded copies of operands with
// ragged rows (behind the slices: split_workspace). Where TMA cannot read the operands even
// through copies, the fallback runs.
template <class C>
void launch_small(const GemmArgs<float>& g, int splits, cudaStream_t s) {
  if (!tma_runs(g)) return Fallback::launch(g, s);
  const int used = used_splits(g.K, splits, C::BK);
  const std::size_t slices = used > 1 ? gemm_plan::splitk_workspace({g.M, g.N, g.K}, splits, C::BK, sizeof(float)) : 0;
  const Operands o = pad_operands(g, slices, s);
  GemmArgs<float> h = g;
  const std::size_t mn = static_cast<std::size_t>(g.M) * g.N;
  if (used > 1) h.C = static_cast<float*>(g.workspace);
  with_epilogue(h.C, g.N, [&](auto element_c) {
    constexpr Kernel kKernel = kernel_r0<C, decltype(element_c)::value>;
    if (used > 1) launch_slices<C, kKernel>(h, o, k_per_split(g.K, splits, C::BK), used, mn, s);
    else launch_slices<C, kKernel>(h, o, g.K, 1, 0, s);
  });
  if (used > 1) launch_splitk_reduce(h.C, g.C, mn, used, s);
}

// The list's split count: the fill rule of gemm10_splitk at the blocks an SM holds.
template <class C>
int small_splits(GemmShape sh) {
  return splitk_splits(sh, C::BM, C::BN, C::BK, C::kResidentBlocks);
}

// The unsplit form, under the Config's name, and the split one, "<its name>_splitk".
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
  GemmVariant<float> v = small_variant<C>();
  v.info.name = keep_name(C::name() + "_splitk");
  v.info.lesson =
      "Hopper: gemm13's ring at a 64² tile with k split so that the blocks an SM holds fill the GPU; partial tiles in "
      "the workspace, an ordered reduction (no atomics)";
  v.launch = [](const GemmArgs<float>& g, cudaStream_t s) { launch_small<C>(g, small_splits<C>({g.M, g.N, g.K}), s); };
  v.workspace_bytes = [](GemmShape sh) { return split_workspace<C>(sh, small_splits<C>(sh)); };
  v.rounding_depth = [](GemmShape sh) { return splitk_depth(sh.K, small_splits<C>(sh), C::BK); };
  return v;
}

}  // namespace kl::gemm13
