// The contract between the kernels (handwritten/, library_baselines/) and the runner (compare/).
//
// A variant is a descriptor: a name that says its ladder step, where it comes from, what it
// teaches, and a launcher. Launchers only enqueue work on the given stream: device pointers in,
// no allocation, no host copies, no synchronisation, no timing. Everything else (inputs,
// references, validation, timing, reports) belongs to compare/.
//
// Every family keeps two lists: `<family>_handwritten<T>()` in handwritten/<family>/ and
// `<family>_library<T>()` in library_baselines/. Adding a variant = one kernel file + one line
// in its family's list.
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

// ---------------------------------------------------------------------------------------------
// reduce: *out = sum of in[0, n). n >= 1. `workspace` has workspace_bytes(n) bytes (or is null
// when that is 0); its contents on entry are undefined, so a kernel that accumulates into
// *out or into the workspace must clear them itself, on the stream, as part of the operation.
template <class T>
struct ReduceArgs {
  const T* in;
  std::size_t n;
  T* out;
  void* workspace;
};

template <class T>
struct ReduceVariant {
  VariantInfo info;
  void (*launch)(const ReduceArgs<T>&, cudaStream_t);
  // Bytes of device workspace for n elements; nullptr means none.
  std::size_t (*workspace_bytes)(std::size_t n) = nullptr;
  // Height of the summation tree: the largest number of roundings any input element goes
  // through on its way to *out. The validation bound is gamma(depth)·sum|x_i| (Higham), so this
  // must be an honest upper bound for the kernel's summation order, never tuned to pass.
  double (*rounding_depth)(std::size_t n) = nullptr;
  // Called once before the first launch, outside any timed region (library handles); nullable.
  void (*prepare)() = nullptr;
};

// ---------------------------------------------------------------------------------------------
// gemm: C = A·B, row-major and dense: A is M×K (lda = K), B is K×N (ldb = N), C is M×N
// (ldc = N). Any M, N, K >= 1.
template <class T>
struct GemmArgs {
  const T* A;
  const T* B;
  T* C;
  int M, N, K;
};

template <class T>
struct GemmVariant {
  VariantInfo info;
  void (*launch)(const GemmArgs<T>&, cudaStream_t);
  // A real constraint of the variant: returns the reason it cannot run this shape, or nullptr.
  const char* (*unsupported)(int M, int N, int K) = nullptr;
  void (*prepare)() = nullptr;
};

// ---------------------------------------------------------------------------------------------
// aat: C = A·Aᵀ, row-major: A is M×K (lda = K), C is M×M (ldc = M), every element written.
template <class T>
struct AatArgs {
  const T* A;
  T* C;
  int M, K;
};

template <class T>
struct AatVariant {
  VariantInfo info;
  void (*launch)(const AatArgs<T>&, cudaStream_t);
  const char* (*unsupported)(int M, int K) = nullptr;
  void (*prepare)() = nullptr;
};

// The lists. Each is defined (and explicitly instantiated for its element types) in the
// family's list file; see docs/adding-a-kernel.md.
template <class T> std::vector<ReduceVariant<T>> reduce_handwritten();  // int, float, double
template <class T> std::vector<ReduceVariant<T>> reduce_library();
template <class T> std::vector<GemmVariant<T>> gemm_handwritten();      // float, double
template <class T> std::vector<GemmVariant<T>> gemm_library();
template <class T> std::vector<AatVariant<T>> aat_handwritten();        // float, double
template <class T> std::vector<AatVariant<T>> aat_library();

}  // namespace kl
