// gemm13's forms as the gemm list registers them (sm_90a builds): the launchers (tensor maps
// encoded on the host, slabs of tile rows, split-K, stream-K, clusters), the padded copies of
// operands TMA cannot read where they lie (the transposing forms), the fallback to gemm12 where
// neither serves, and the variants. The kernels and their lessons are the step files':
// gemm13_tma_warpspecialized.cuh, gemm13_transpose_a.cuh, gemm13_stream_k.cuh,
// gemm13_padded.cuh, gemm13_ablations.cuh. Every launcher only enqueues.
#pragma once

#include "handwritten/gemm/gemm12_fragment_prefetch.cuh"
#include "handwritten/gemm/gemm13_ablations.cuh"
#include "handwritten/gemm/gemm13_padded.cuh"
#include "handwritten/gemm/gemm13_ragged.cuh"
#include "handwritten/gemm/gemm13_stream_k.cuh"
#include "handwritten/gemm/gemm13_tma_warpspecialized.cuh"
#include "handwritten/gemm/gemm13_transpose_a.cuh"
#include "handwritten/gemm/gemm_ladder_tiles.hpp"
#include "handwritten/gemm/gemm_schedule.cuh"

#include <string_view>
#include <type_traits>

namespace kl {
inline constexpr std::string_view kFeatureTma = "TMA (cp.async.bulk.tensor) and mbarrier";
}

namespace kl::gemm13 {

using namespace gemm_detail;

inline constexpr std::string_view kFeatureRing = "mbarrier, cp.async.mbarrier.arrive and setmaxnreg (sm_90a)";
inline constexpr std::string_view kFeatureTmaMulticast =
    "thread-block clusters and distributed shared memory (TMA multicast, cp.async.bulk.tensor, mbarrier)";

// ---- every form's -----------------------------------------------------------------------------
// The signature every form's kernel has.
using Kernel = void (*)(CUtensorMap, CUtensorMap, float*, int, int, int, int, std::size_t, StreamArgs);

// Whether the TMA path applies to the buffers as they lie: 16-byte row pitches and bases for A,
// B and C (the transposing forms go further: tma_runs, gemm13_padded.cuh).
inline bool tma_ok(const GemmArgs<float>& g) {
  return g.K % 4 == 0 && g.N % 4 == 0 && aligned16(g.A) && aligned16(g.B) && aligned16(g.C);
}

// The fallback for products TMA cannot describe: gemm12 on its measured tile, tiles::Gemm12Tile256
// (the list names it from these parameters, as the variant's `fallback`).
struct Fallback : tiles::Gemm12Tile256 {
  static void prepare() { gemm12::prepare<float, KL_FMA_TILE(Fallback)>(); }
  static void launch(const GemmArgs<float>& g, cudaStream_t s) { gemm12::launch<float, KL_FMA_TILE(Fallback)>(g, s); }
};

// A form's kernels: their shared-memory opt-in, and whether they may launch programmatically
// (after padded copies they do).
template <class C, Kernel... KERNELS>
void prepare_kernels() {
  allow_smem(C::kSmemBytes, {KERNELS...});
  (pdl::programmatic_here<KERNELS>(), ...);
}

// The form's kernels (KERNELS, and the transposing kernel's element instance), the fallback's
// shared memory, the reduction's launch attribute and the TMA encoder.
template <class C, Kernel... KERNELS>
void prepare() {
  prepare_kernels<C, KERNELS...>();
  if constexpr (C::TRANSPOSE_A) prepare_kernels<C, kernel_transpose_a<C, true>>();
  Fallback::prepare();
  splitk_reduce_programmatic_here<float>();
  (void)tensor_map_encoder();  // ask the driver once, outside any timed launch
}

// The tensor maps the kernels read: A (rows × K) in boxes of kABoxK × BM, swizzled as the FMA
// warps' reads expect; B (K × N) in boxes of BN × kBPartK (each CTA's part of the k rows in the
// cluster form).
// (Rows `ld` elements apart: the operand's own pitch, or its padded copy's.)
template <class C>
CUtensorMap map_a_of(const float* a, int rows, int K, int lda) {
  return encode_map(a, rows, K, C::BM, C::kABoxK, swizzle_for_row(C::kRowBytes), std::size_t(lda));
}
template <class C>
CUtensorMap map_b_of(const float* b, int K, int N, int ldb) {
  return encode_map(b, K, N, C::kBPartK, C::BN, CU_TENSOR_MAP_SWIZZLE_NONE, std::size_t(ldb));
}
// The operands as they lie.
inline Operands as_they_lie(const GemmArgs<float>& g) { return {g.A, g.B, g.K, g.N}; }

// Only enqueues: encodes the two maps of `o` on the host (by value into the kernel's parameters)
// and launches `slices` slices of k, k_split deep, each slice's tiles `stride` elements after the
// last one's in g.C (1, K, 0: the whole product straight into C); slabs of at most 65535 tile rows
// as every gemm launcher (launch_tiled). After padded copies (o.padded) programmatically: the
// kernel's copies wait for them.
template <class C, Kernel KERNEL>
void launch_slices(const GemmArgs<float>& g, const Operands& o, int k_split, int slices, std::size_t stride,
                   cudaStream_t s) {
  const CUtensorMap map_b = map_b_of<C>(o.b, g.K, g.N, o.ldb);
  GemmArgs<float> h = g;
  h.A = o.a;
  launch_tiled(
      h, C::BM, C::BN,
      [&](dim3 grid, const float* A, float* Cp, int M) {
        const CUtensorMap map_a = map_a_of<C>(A, M, g.K, o.lda);
        grid.z = slices;
        pdl::launch<KERNEL>(o.padded, grid, dim3(C::kThreads), C::kSmemBytes, s, map_a, map_b, Cp, M, g.N, g.K, k_split,
                            stride, StreamArgs{});
      },
      std::size_t(o.lda));
}

template <class C, Kernel KERNEL>
void launch(const GemmArgs<float>& g, cudaStream_t s) {
  if (!tma_ok(g)) return Fallback::launch(g, s);
  launch_slices<C, KERNEL>(g, as_they_lie(g), g.K, 1, 0, s);
}

// C's rows 16-byte aligned (N % 4 == 0 and its base): the kernels' vector epilogue, else their
// element one (ELEMENT_C). f(std::bool_constant<ELEMENT_C>) launches the instance.
template <class F>
void with_epilogue(const float* c, int N, F&& f) {
  if (N % 4 == 0 && aligned16(c)) f(std::false_type{});
  else f(std::true_type{});
}
// launch_slices with the transposing kernel's instance for g.C's rows (with the split's slices of
// M × N, aligned wherever N % 4 == 0 and the workspace is).
template <class C>
void launch_transpose_slices(const GemmArgs<float>& g, const Operands& o, int k_split, int slices, std::size_t stride,
                             cudaStream_t s) {
  with_epilogue(g.C, g.N, [&](auto element_c) {
    launch_slices<C, kernel_transpose_a<C, decltype(element_c)::value>>(g, o, k_split, slices, stride, s);
  });
}

// The transposing kernel unsplit, on padded copies where TMA cannot read an operand where it lies
// (the workspace: gemm_plan::pad_plan's bytes, nothing of the step's own before them).
template <class C>
void launch_transpose(const GemmArgs<float>& g, cudaStream_t s) {
  static_assert(C::TRANSPOSE_A);
  if (!tma_runs(g)) return Fallback::launch(g, s);
  launch_transpose_slices<C>(g, pad_operands(g, 0, s), g.K, 1, 0, s);
}
template <class C>
std::size_t transpose_workspace(GemmShape sh) {
  return gemm_plan::pad_plan(sh, 0).end;
}

// The variant of a form (its Config and kernel), under the name the Config builds.
template <class C, Kernel KERNEL>
GemmVariant<float> form_variant(std::string_view lesson, std::string_view feature = kFeatureTma) {
  return {.info = {keep_name(C::name()), "beyond the documents", lesson},
          .needs = {.compute_capability = 90, .feature = feature, .shared_bytes = C::kSmemBytes,
                    .clusters = C::CLUSTER_M > 1, .kernel = reinterpret_cast<const void*>(KERNEL)},
          .launch = launch<C, KERNEL>,
          .prepare = prepare<C, KERNEL>};
}

// This step: the TMA ring with a producer warpgroup (R232).
template <class C>
GemmVariant<float> ring_variant() {
  static_assert(C::SETMAXNREG && C::CLUSTER_M == 1 && !C::TRANSPOSE_A, "the ring's own form");
  return form_variant<C, kernel_ring<C>>(
      "Hopper: TMA tile loads into an mbarrier ring, a producer warp, FMA warps that only multiply");
}

// The transposing form (R232At), unsplit, any N and K (padded copies of ragged operands).
template <class C>
GemmVariant<float> transpose_a_variant() {
  static_assert(C::TRANSPOSE_A);
  GemmVariant<float> v = form_variant<C, kernel_transpose_a<C>>(
      "Hopper: TMA tile loads, a producer warpgroup that also transposes A to [k][m], FMA warps that only multiply; "
      "an operand with ragged rows copied padded for TMA");
  v.launch = launch_transpose<C>;
  v.workspace_bytes = transpose_workspace<C>;
  return v;
}

// ---- split-K: a form's kernel over slices of k ----------------------------------------------------
// C = A·B in `splits` slices of k (gemm_schedule.cuh's plan, as gemm10's and gemm11's): one slice
// is the unsplit launch; several write their partial tiles into consecutive M × N slices of
// g.workspace (grid.z = the slices), which splitk_reduce adds into C in slice order. Padded copies
// of operands lie behind the slices (split_workspace).
template <class C>
std::size_t split_workspace(GemmShape sh, int splits) {
  return gemm_plan::pad_plan(sh, gemm_plan::splitk_workspace(sh, splits, C::BK, sizeof(float))).end;
}
// Only enqueues, through run_slices(g, operands, k_split, slices, stride, s) (launch_slices with
// the form's kernel, its instance for C's rows); where TMA cannot read the operands even through
// copies, the fallback runs unsplit.
template <class C, class RunSlices>
void launch_split_with(const GemmArgs<float>& g, int splits, cudaStream_t s, RunSlices&& run_slices) {
  if (!tma_runs(g)) return Fallback::launch(g, s);
  const int used = used_splits(g.K, splits, C::BK);
  const Operands o = pad_operands(g, gemm_plan::splitk_workspace({g.M, g.N, g.K}, splits, C::BK, sizeof(float)), s);
  if (used <= 1) return run_slices(g, o, g.K, 1, 0, s);
  const std::size_t mn = static_cast<std::size_t>(g.M) * g.N;
  GemmArgs<float> h = g;
  h.C = static_cast<float*>(g.workspace);
  run_slices(h, o, k_per_split(g.K, splits, C::BK), used, mn, s);
  launch_splitk_reduce(h.C, g.C, mn, used, s);
}
template <class C>
void launch_split(const GemmArgs<float>& g, int splits, cudaStream_t s) {
  static_assert(C::TRANSPOSE_A);
  launch_split_with<C>(g, splits, s, launch_transpose_slices<C>);
}
// The list's split count: the fill rule of gemm10_splitk (splitk_splits, kFillSMs) at the blocks an
// SM holds (Config::kResidentBlocks: one for gemm13's own tiles, which hold all of one SM's shared
// memory).
template <class C>
int splits(GemmShape sh) {
  return splitk_splits(sh, C::BM, C::BN, C::BK, C::kResidentBlocks);
}

// ---- stream-K: the plan, the launch --------------------------------------------------------------
template <class C>
gemm_plan::StreamK stream_plan(GemmShape sh) {
  return gemm_plan::stream_k_plan(sh, C::BM, C::BN, C::BK, sm_count());
}
// The partial tiles first, padded copies of operands behind them.
template <class C>
std::size_t stream_workspace(GemmShape sh) {
  return gemm_plan::pad_plan(sh, gemm_plan::stream_k_workspace(stream_plan<C>(sh), C::BM, C::BN, sizeof(float))).end;
}
// Its unsplit, split and stream kernels' shared memory, and the fixups' launch attribute.
template <class C>
void prepare_stream() {
  prepare<C, kernel_transpose_a<C>>();
  prepare_kernels<C, kernel_stream<C>, kernel_stream<C, true>>();
  fixup_programmatic_here<float, C::BM, C::BN, kVec<float>>();
  fixup_programmatic_here<float, C::BM, C::BN, 1>();
}
// Where TMA cannot read the operands even through copies, the plan has no stream part, or a count
// the kernel takes in int would overflow, it runs unsplit. The kernel stores and the fixup adds
// 16-byte vectors where C's rows are 16-byte aligned, else elements (ELEMENT_C).
template <class C>
void launch_stream(const GemmArgs<float>& g, cudaStream_t s) {
  const gemm_plan::StreamK p = stream_plan<C>({g.M, g.N, g.K});
  gemm_plan::StreamKInt pi;  // the kernels count in int (stream_k_int)
  if (!tma_runs(g) || p.tail_iters == 0 || !gemm_plan::stream_k_int(p, pi)) return launch_transpose<C>(g, s);
  const Operands o = pad_operands(g, gemm_plan::stream_k_workspace(p, C::BM, C::BN, sizeof(float)), s);
  const CUtensorMap map_a = map_a_of<C>(o.a, g.M, g.K, o.lda), map_b = map_b_of<C>(o.b, g.K, g.N, o.ldb);
  float* partials = static_cast<float*>(g.workspace);
  with_epilogue(g.C, g.N, [&](auto element_c) {
    constexpr bool kElement = decltype(element_c)::value;
    pdl::launch<kernel_stream<C, kElement>>(o.padded, dim3(static_cast<unsigned>(p.blocks)), dim3(C::kThreads),
                                            C::kSmemBytes, s, map_a, map_b, g.C, g.M, g.N, g.K, 0, 0,
                                            StreamArgs{partials, pi});
    launch_stream_k_fixup<float, C::BM, C::BN, kElement ? 1 : kVec<float>>(partials, g.C, g.M, g.N, p, pi, s);
  });
}

// ---- the split-K and stream-K variants ------------------------------------------------------------
// A form's unsplit variant `v` as its split-K form: "<its name>_splitk", LAUNCH(g, slices, s) with
// the list's split count. Where TMA cannot read the operands even through copies it runs the
// fallback unsplit (no workspace is used then).
template <class C, void (*LAUNCH)(const GemmArgs<float>&, int, cudaStream_t)>
GemmVariant<float> as_splitk(GemmVariant<float> v, std::string_view lesson) {
  v.info.name = keep_name(C::name() + "_splitk");
  v.info.lesson = lesson;
  v.launch = [](const GemmArgs<float>& g, cudaStream_t s) { LAUNCH(g, splits<C>({g.M, g.N, g.K}), s); };
  v.workspace_bytes = [](GemmShape sh) { return split_workspace<C>(sh, splits<C>(sh)); };
  v.rounding_depth = [](GemmShape sh) { return splitk_depth(sh.K, splits<C>(sh), C::BK); };
  return v;
}
template <class C>
GemmVariant<float> splitk_variant() {
  return as_splitk<C, launch_split<C>>(
      transpose_a_variant<C>(),
      "Hopper: gemm13 with k split over blockIdx.z where its tiles alone leave SMs idle; partial tiles in the "
      "workspace, an ordered reduction (no atomics)");
}

// The stream-K form: "<its name>_streamk". Its rounding depth is K: a tile's segments hold
// disjoint runs of its k, at least one k each, so the longest chain plus one addition per further
// segment is at most K.
template <class C>
GemmVariant<float> stream_variant() {
  GemmVariant<float> v = transpose_a_variant<C>();
  v.info.name = keep_name(C::name() + "_streamk");
  v.info.lesson =
      "Hopper: gemm13 as stream-K, one block per SM each running the same number of k tiles across tile boundaries; "
      "partial tiles in the workspace, added in k order (no atomics)";
  v.needs.kernel = reinterpret_cast<const void*>(kernel_stream<C>);
  v.launch = launch_stream<C>;
  v.prepare = prepare_stream<C>;
  v.workspace_bytes = stream_workspace<C>;
  return v;
}

// ---- the ablations (gemm13_ablations.cuh) ----------------------------------------------------------
// The cluster form, unsplit only. Slabs of at most 65535 pairs of tile rows; the grid's x doubles (the pair's two
// CTAs, cluster (CLUSTER_M, 1, 1)) and its y counts pairs, so when a slab has an odd number of
// tile rows the last pair's rank-1 block lies wholly below M: it loads no A, multicasts its half
// of each B tile for its partner and stores nothing (its rows fail the epilogue's r < M).
template <class C>
void launch_cluster(const GemmArgs<float>& g, cudaStream_t s) {
  if (!tma_ok(g)) return Fallback::launch(g, s);
  const CUtensorMap map_b = map_b_of<C>(g.B, g.K, g.N, g.N);
  launch_tiled(g, C::CLUSTER_M * C::BM, C::BN, [&](dim3 grid, const float* A, float* Cp, int M) {
    const CUtensorMap map_a = map_a_of<C>(A, M, g.K, g.K);
    KL_CUDA_CHECK(launch_with_cluster(kernel_cluster<C>, dim3(grid.x * C::CLUSTER_M, grid.y), dim3(C::kThreads),
                                      dim3(C::CLUSTER_M), C::kSmemBytes, s, map_a, map_b, Cp, M, g.N, g.K, g.K,
                                      std::size_t{0}, StreamArgs{}));
  });
}

template <class C>
GemmVariant<float> r0_variant() {
  return form_variant<C, kernel_r0<C>>(
      "Hopper: TMA tile loads into an mbarrier ring, a producer warp, FMA warps that only multiply");
}
template <class C>
GemmVariant<float> cluster_variant() {
  GemmVariant<float> v = form_variant<C, kernel_cluster<C>>(
      "Hopper: gemm13 in clusters of two vertically adjacent tiles; each B tile multicast to the pair by TMA",
      kFeatureTmaMulticast);
  v.launch = launch_cluster<C>;
  return v;
}

// The ragged form (gemm13_ragged.cuh), unsplit: any N, K and alignment, no fallback.
template <class C>
void launch_ragged(const GemmArgs<float>& g, cudaStream_t s) {
  static_assert(C::RAGGED);
  launch_tiled(g, C::BM, C::BN, [&](dim3 grid, const float* A, float* Cp, int M) {
    kernel_ragged<C><<<grid, C::kThreads, C::kSmemBytes, s>>>(A, g.B, Cp, M, g.N, g.K, g.K, 0);
  });
}
template <class C>
void prepare_ragged() {
  using RaggedKernel = void (*)(const float*, const float*, float*, int, int, int, int, std::size_t);
  allow_smem(C::kSmemBytes, {static_cast<RaggedKernel>(kernel_ragged<C>)});
}
template <class C>
GemmVariant<float> ragged_variant() {
  return {.info = {keep_name(C::name()), "beyond the documents",
                   "Hopper: gemm13's ring filled by the producer warpgroup's 4-byte cp.async instead of TMA, for any N, K "
                   "and alignment"},
          .needs = {.compute_capability = 90, .feature = kFeatureRing, .shared_bytes = C::kSmemBytes,
                    .kernel = reinterpret_cast<const void*>(kernel_ragged<C>)},
          .launch = launch_ragged<C>,
          .prepare = prepare_ragged<C>};
}

}  // namespace kl::gemm13
