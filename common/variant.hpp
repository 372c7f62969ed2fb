// The contract between a kernel and the runner: everything a variant is, and nothing else.
//
// A variant is a descriptor: a name that says its ladder step, where it comes from, what it
// teaches, and a launcher. A launcher only enqueues work on the stream it is given: device
// pointers in, no allocation, no host copies, no synchronisation, no timing, no other stream.
// Everything else (inputs, references, validation, timing, reports) belongs to compare/.
//
// `Args` is a family's launch-argument struct, defined in common/args/<family>_args.hpp
// (ReduceArgs, GemmArgs, ...) together with the declarations of its two lists,
// `<family>_handwritten<T>()` (handwritten/<family>/) and `<family>_library<T>()`
// (library_baselines/). Adding a variant = one kernel file + one line in its family's list
// (docs/adding-a-kernel.md).
//
// Variants are written with designated initializers, so a descriptor names what it fills in:
//   return {.info = {"reduce3_sequential_addressing", "000, 001: reduce3", "..."},
//           .launch = launch, .workspace_bytes = ws, .rounding_depth = depth};
// and a step that needs more than every GPU has says so beside its lesson:
//   .info = {...}, .needs = {.compute_capability = 80, .feature = kFeatureCpAsync,
//                            .shared_bytes = kSmemBytes, .kernel = (const void*)my_kernel<T>}
//
// This header needs no CUDA header (a translation unit that never launches anything, such as the
// report reader, can include it): cudaStream_t is declared here exactly as the CUDA runtime does.
#pragma once

#include <cstddef>
#include <string_view>

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // the CUDA runtime's own declaration, repeated

namespace kl {

enum class Source { handwritten, library };

struct VariantInfo {
  std::string_view name;    // ladder step, e.g. "reduce3_sequential_addressing"
  std::string_view origin;  // document and kernel, e.g. "000, 001: reduce3"; "beyond"; "CUB"
  std::string_view lesson;  // one line: what this step changes and why it helps
  Source source = Source::handwritten;
};

// What a variant needs of the GPU beyond what every GPU CUDA 13 supports (compute capability
// 7.5 and up), said in its descriptor beside its lesson. Before a variant runs, the runner
// (compare/core/requirements.hpp) checks these against the device and against the image of `kernel`
// that actually loaded (cudaFuncGetAttributes: ptxVersion, as CUB and nvbench check it), and
// writes a `skipped` row with one line (what it needs, what this GPU has) where it cannot run.
// The kernel itself compiles for every architecture: its body is guarded by __CUDA_ARCH__
// (common/device_helpers.cuh, KL_ARCH_AT_LEAST), present only where the feature is.
struct Requirements {
  int compute_capability = 0;      // minimum, 10*major+minor (80 = 8.0); 0: every GPU CUDA 13 supports (7.5+)
  std::string_view feature = {};   // why, e.g. "cp.async", "thread-block clusters and distributed shared memory", "FP64 tensor-core mma"
  std::size_t shared_bytes = 0;    // largest dynamic shared memory per block the variant asks for (0: none beyond the 48 KB default)
  bool clusters = false;           // launches thread-block clusters
  const void* kernel = nullptr;    // one of its __global__ kernels, whose loaded image (cudaFuncGetAttributes ptxVersion/binaryVersion) the runner checks
};

// The features the ladder's steps need, by name (the runner's slow-path note recognises the
// FP64 tensor-core one).
inline constexpr std::string_view kFeatureCpAsync = "cp.async";
inline constexpr std::string_view kFeatureClusters = "thread-block clusters and distributed shared memory";
inline constexpr std::string_view kFeatureFp64Mma = "FP64 tensor-core mma";

// What the runner lends a variant's tune hook to time the kernels it chooses among: each `op` (it
// enqueues one run of a candidate on the stream it is given) is timed as the runner times a
// variant, through the runner's one sampling loop (compare/core/tune_measure.hpp), and its median
// in milliseconds comes back. A hook decides; it never times by itself. Called without one (a
// caller that is not the runner), a hook measures nothing and keeps its model's first choice.
struct Measure {
  double (*fn)(const void* self, const char* label, void (*op)(const void* ctx, cudaStream_t), const void* ctx) = nullptr;
  const void* self = nullptr;
  explicit operator bool() const { return fn != nullptr; }
  // `label` names the candidate in the runner's trace (KL_GEMM_AUTO_TRACE=1).
  template <class Op>
  double operator()(const char* label, const Op& op) const {
    return fn(self, label, [](const void* ctx, cudaStream_t s) { (*static_cast<const Op*>(ctx))(s); }, &op);
  }
};

// One descriptor type for every family. `Args` is the family's launch-argument struct
// (common/args/<family>_args.hpp); `Args::Size` is what the optional hooks receive (the
// problem's dimensions, nothing else).
template <class Args>
struct Variant {
  using Size = typename Args::Size;
  VariantInfo info;
  // What it needs of the GPU (compute capability and why, dynamic shared memory, clusters).
  Requirements needs = {};
  void (*launch)(const Args&, cudaStream_t) = nullptr;
  // Bytes of device workspace the launcher needs (nullptr: none). Its contents on entry are
  // undefined (the runner fills it with 0xff before validating), so a kernel that accumulates
  // into its output or the workspace clears them itself, on the stream, as part of the operation.
  std::size_t (*workspace_bytes)(Size) = nullptr;
  // Height of the summation tree: the largest number of roundings any input goes through on its
  // way to an output. Sum-like families bound the error by gamma(depth)·Σ|terms| (Higham), so
  // this must be an honest upper bound for the kernel's order, never tuned to pass. nullptr:
  // the family's default (the longest serial chain its job allows, e.g. K for a product).
  double (*rounding_depth)(Size) = nullptr;
  // A real constraint of the variant: the reason it cannot run this size, or nullptr.
  const char* (*unsupported)(Size) = nullptr;
  // Called once before the first launch, outside any timed region (library handles, kernel
  // attributes such as the dynamic shared-memory opt-in); nullable.
  void (*prepare)() = nullptr;
  // Called once per problem after prepare and before its first launch, outside any timed region,
  // with the problem's own arguments (inputs loaded; output and workspace its to overwrite) and
  // the runner's Measure. A variant that picks among kernels by measuring them (gemm_auto, as
  // cuBLASLt's algorithm search or PyTorch's TunableOp) asks `measure` to time each candidate,
  // makes its choice for this size here and keeps it, so the kernel that is validated is the
  // kernel that is timed; launch then only enqueues. Without a call, or with an empty Measure
  // (another caller, a shape never tuned), launch must still be correct; nullable.
  void (*tune)(const Args&, cudaStream_t, const Measure& measure) = nullptr;
  // The work this variant really does, in the family's unit, where it differs from the
  // family's count (cublas_syrk computes one triangle of A·Aᵀ); nullptr: the family's count.
  double (*work)(Size) = nullptr;
  // For families whose error bound depends on which elementary functions a kernel evaluates
  // rather than on a summation depth (table: sinf or __sinf, sqrtf or the approximate square
  // root): the name of the variant's error model, one the family defines and documents (an
  // unknown name fails the variant's check, naming the known ones). Empty: the family's default.
  std::string_view error_model = {};
  // The listed variant this one hands a problem to where its own path cannot take it (gemm13 and
  // gemm14 where TMA cannot describe the operands: gemm12's and gemm11_pf's tiles), by its name in
  // the same list; empty: none. The GPU suite holds the two to the same bits on such a problem.
  std::string_view fallback = {};
};

}  // namespace kl
