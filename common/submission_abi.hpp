// The boundary between a submission's module (a shared library built from one folder of outside
// kernels, cmake/user_kernels.cmake) and the process that loads it (compare/sandbox/). Plain C
// types only: the module and the loader are separate builds, and nothing of the runner's C++
// (its registry, its containers) crosses it.
//
// A module exports one function, kl_submission_entries(), listing every variant its files
// registered (common/user_kernel.hpp: KL_REGISTER_VARIANT). Each entry carries what the runner
// needs to know of it without running it (family, argument struct, element type, where it was
// registered, what it needs of the GPU) and three calls made only inside the sandbox process:
// bind (its hooks at one size), prepare, launch. Arguments and sizes cross as the bytes of the
// family's trivially copyable structs; the loader has already rewritten their device pointers.
#pragma once

#include <cstddef>

struct CUstream_st;

extern "C" {

// What a variant's hooks say at one problem size (Variant::workspace_bytes, rounding_depth,
// unsupported, work). error: non-empty when a hook threw.
struct KlBindResult {
  std::size_t workspace_bytes;
  double rounding_depth;  // 0: not declared (the family's default)
  double work;            // 0: the family's count
  char unsupported[512];  // non-empty: why it cannot run this size
  char error[512];
};

struct KlSubmissionEntry {
  const char* family;     // as registered, checked by the runner ("reduce", "gemm", ...)
  const char* args_kind;  // the argument struct's name (common/args_kind.hpp), e.g. "ReduceArgs"
  const char* dtype;      // its element type: "int", "float", "double", or "other:<bytes>"
  const char* name;
  const char* origin;
  const char* lesson;
  const char* error_model;
  const char* file;       // where KL_REGISTER_VARIANT stood
  int line;
  std::size_t args_bytes, size_bytes;  // sizeof the family's Args<T> and Args<T>::Size
  int needs_cc;           // Requirements, common/variant.hpp
  const char* needs_feature;
  std::size_t needs_shared_bytes;
  int needs_clusters;
  const void* variant;    // the module's own Variant<Args<T>>
  int has_prepare;
  // Each returns 0, or non-zero with a one-line reason in err.
  int (*bind)(const void* variant, const void* size, KlBindResult* out);
  int (*prepare)(const void* variant, char* err, std::size_t err_len);
  int (*launch)(const void* variant, const void* args, CUstream_st* stream, char* err, std::size_t err_len);
};

// The module's table, in registration order.
typedef const KlSubmissionEntry* (*KlSubmissionEntriesFn)(std::size_t* count);
}
