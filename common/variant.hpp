// The contract between the kernels (handwritten/, library_baselines/) and the runner (compare/).
//
// A variant is a descriptor: a name that says its ladder step, where it comes from, what it
// teaches, and a launcher. Launchers only enqueue work on the given stream: device pointers in,
// no allocation, no host copies, no synchronisation, no timing. Everything else (inputs,
// references, validation, timing, reports) belongs to compare/.
//
// Every family keeps two lists: `<family>_handwritten<T>()` in handwritten/<family>/ and
// `<family>_library<T>()` in library_baselines/. Adding a variant = one kernel file + one line
// in its family's list (docs/adding-a-kernel.md).
//
// Variants are written with designated initializers, so a descriptor names what it fills in:
//   return {.info = {"reduce3_sequential_addressing", "000, 001: reduce3", "..."},
//           .launch = launch, .workspace_bytes = ws, .rounding_depth = depth};
// and a step that needs more than every GPU has says so beside its lesson:
//   .info = {...}, .needs = {.compute_capability = 80, .feature = kFeatureCpAsync,
//                            .shared_bytes = kSmemBytes, .kernel = (const void*)my_kernel<T>}
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>
#include <vector>

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
// (compare/requirements.hpp) checks these against the device and against the image of `kernel`
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

// One descriptor type for every family. `Args` is the family's launch-argument struct below;
// `Args::Size` is what the optional hooks receive (the problem's dimensions, nothing else).
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
  // The work this variant really does, in the family's unit, where it differs from the
  // family's count (cublas_syrk computes one triangle of A·Aᵀ); nullptr: the family's count.
  double (*work)(Size) = nullptr;
  // For families whose error bound depends on which elementary functions a kernel evaluates
  // rather than on a summation depth (table: sinf or __sinf, sqrtf or the approximate square
  // root): the name of the variant's error model, one the family defines and documents (an
  // unknown name fails the variant's check, naming the known ones). Empty: the family's default.
  std::string_view error_model = {};
};

// ---------------------------------------------------------------------------------------------
// reduce: *out = sum of in[0, n). n >= 1.
template <class T>
struct ReduceArgs {
  using Size = std::size_t;  // n
  const T* in;
  std::size_t n;
  T* out;
  void* workspace;
};

// dot: *out = sum of x[i]·y[i] over [0, n). n >= 1. int wraps modulo 2^32 like CUDA's int adds.
template <class T>
struct DotArgs {
  using Size = std::size_t;  // n
  const T* x;
  const T* y;
  std::size_t n;
  T* out;
  void* workspace;
};

// ---------------------------------------------------------------------------------------------
// Dense row-major matrices. Dimensions are int (as cuBLAS takes them); offsets are computed in
// 64 bits by every kernel. The runner refuses any dimension above 2^30 (compare/sizes.hpp), so
// a tile start plus a tile step never overflows an int.
struct MatrixShape {  // M rows × N columns
  int M, N;
};
struct GemmShape {  // C (M×N) = A (M×K) · B (K×N)
  int M, N, K;
};

// gemm: C = A·B, row-major and dense: A is M×K (lda = K), B is K×N (ldb = N), C is M×N
// (ldc = N). Any M, N, K >= 1. `workspace`: the variant's workspace_bytes(shape) bytes (split-K
// partial products), nullptr where it asks for none.
template <class T>
struct GemmArgs {
  using Size = GemmShape;
  const T* A;
  const T* B;
  T* C;
  int M, N, K;
  void* workspace = nullptr;
};

// aat: C = A·Aᵀ, row-major: A is M×K (lda = K), C is M×M (ldc = M), every element written.
struct AatShape {
  int M, K;
};
template <class T>
struct AatArgs {
  using Size = AatShape;
  const T* A;
  T* C;
  int M, K;
};

// gemv: y = A·x (y has M elements, x has N); gevm: y = x·A (x has M elements, y has N).
// A is row-major M×N (lda = N). Any M, N >= 1.
template <class T>
struct MatVecArgs {
  using Size = MatrixShape;
  const T* A;
  const T* x;
  T* y;
  int M, N;
  void* workspace;
};

// rows: one value per row (or per column) of a row-major M×N matrix whose rows start `pitch`
// elements apart (pitch >= N; pitch == N is the packed layout, a larger pitch pads every row to
// a 16-byte boundary as cudaMallocPitch does). The operation is a run-time argument so that a
// kernel file holds one memory/layout strategy for every operation (a template on RowOp inside).
enum class RowOp { row_sum, row_mean, row_max, row_min, row_sumsq, col_mean };
constexpr bool is_column_op(RowOp op) { return op == RowOp::col_mean; }
// Roundings the rows family adds to a variant's declared summation depth in op's error bound
// (compare/family_rows.hpp): 0 for a sum, 1 for a sum of squares (each square), 2 for a mean (the
// count converted to T and the division, or 1/count and a product). Max and min round nothing and
// are checked for equality: -1, no bound involved. Variants use it to tell when a chain is too long
// for any bound (the `unsupported` hooks of the serial kernels and of cuBLAS).
constexpr int row_op_extra_roundings(RowOp op) {
  switch (op) {
    case RowOp::row_max:
    case RowOp::row_min: return -1;
    case RowOp::row_sumsq: return 1;
    case RowOp::row_mean:
    case RowOp::col_mean: return 2;
    case RowOp::row_sum: break;
  }
  return 0;
}
struct RowsShape {
  int M, N;
  std::size_t pitch;  // elements
  RowOp op;
};
template <class T>
struct RowsArgs {
  using Size = RowsShape;
  const T* A;
  int M, N;
  std::size_t pitch;  // elements between the starts of two rows
  RowOp op;
  T* out;             // M values (row ops) or N values (column ops)
  void* workspace;
};

// transpose: B = Aᵀ, A row-major M×N, B row-major N×M. Any M, N >= 1.
template <class T>
struct TransposeArgs {
  using Size = MatrixShape;
  const T* A;
  T* B;
  int M, N;
};

// table: y[i] = sin(sqrt(step·i)) for i in [0, n) (document 000's tableKernel). n >= 1.
struct TableShape {
  std::size_t n;
  double step;
};
template <class T>
struct TableArgs {
  using Size = TableShape;
  T* y;
  std::size_t n;
  T step;
};

// ---------------------------------------------------------------------------------------------
// allreduce: G GPUs (one process drives them all) each hold n elements; afterwards every GPU holds
// the element-wise sum of all G. Rank r is the r-th GPU of the group (compare/family_allreduce.hpp).
// in[r], out[r] and workspace[r] live on rank r's GPU. `group` holds what the GPUs share for the
// whole run: streams, events, the cross-GPU flags, NCCL's communicators (common/gpu_group.hpp).
// A launcher is given the runner's stream: it forks from it to every GPU's stream and joins back
// (common/gpu_group.hpp), so the runner's events time the operation from the first GPU's start
// to the last GPU's end.
inline constexpr int kMaxGpus = 8;
struct AllreduceSize {
  std::size_t n;  // elements per GPU
  int gpus;       // G
};
struct GpuGroup;
template <class T>
struct AllreduceArgs {
  using Size = AllreduceSize;
  const GpuGroup* group;
  std::size_t n;
  const T* in[kMaxGpus];
  T* out[kMaxGpus];
  void* workspace[kMaxGpus];  // workspace_bytes({n, G}) bytes on each GPU; undefined on entry
  T* pinned[kMaxGpus];        // n elements of page-locked, mapped host memory per rank (the host path)
};

template <class T> using ReduceVariant = Variant<ReduceArgs<T>>;
template <class T> using DotVariant = Variant<DotArgs<T>>;
template <class T> using GemmVariant = Variant<GemmArgs<T>>;
template <class T> using AatVariant = Variant<AatArgs<T>>;
template <class T> using MatVecVariant = Variant<MatVecArgs<T>>;
template <class T> using RowsVariant = Variant<RowsArgs<T>>;
template <class T> using TransposeVariant = Variant<TransposeArgs<T>>;
template <class T> using TableVariant = Variant<TableArgs<T>>;
template <class T> using AllreduceVariant = Variant<AllreduceArgs<T>>;

// The lists. Each is defined (and explicitly instantiated for its element types) in the
// family's list file; see docs/adding-a-kernel.md.
template <class T> std::vector<ReduceVariant<T>> reduce_handwritten();  // int, float, double
template <class T> std::vector<ReduceVariant<T>> reduce_library();
template <class T> std::vector<GemmVariant<T>> gemm_handwritten();      // float, double
template <class T> std::vector<GemmVariant<T>> gemm_library();
template <class T> std::vector<AatVariant<T>> aat_handwritten();        // float, double
template <class T> std::vector<AatVariant<T>> aat_library();
template <class T> std::vector<MatVecVariant<T>> gemv_handwritten();    // float, double
template <class T> std::vector<MatVecVariant<T>> gemv_library();
template <class T> std::vector<MatVecVariant<T>> gevm_handwritten();    // float, double
template <class T> std::vector<MatVecVariant<T>> gevm_library();
template <class T> std::vector<DotVariant<T>> dot_handwritten();        // int, float, double
template <class T> std::vector<DotVariant<T>> dot_library();
template <class T> std::vector<RowsVariant<T>> rows_handwritten();      // float, double
template <class T> std::vector<RowsVariant<T>> rows_library();
template <class T> std::vector<TransposeVariant<T>> transpose_handwritten();  // float, double
template <class T> std::vector<TransposeVariant<T>> transpose_library();
template <class T> std::vector<TableVariant<T>> table_handwritten();    // float (double: see the family)
template <class T> std::vector<TableVariant<T>> table_library();
template <class T> std::vector<AllreduceVariant<T>> allreduce_handwritten();  // int, float, double
template <class T> std::vector<AllreduceVariant<T>> allreduce_library();

}  // namespace kl
