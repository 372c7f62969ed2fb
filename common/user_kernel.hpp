// The one header a kernel from outside the tree includes (docs/your-kernel.md). It brings the
// variant contract (common/variant.hpp), every family's argument struct, the error checks, and
// the registration:
//
//   #include "common/user_kernel.hpp"
//   namespace {
//   __global__ void my_sum(const float* in, std::size_t n, float* out) { ... }
//   }
//   KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
//       .info = {"warp_sum", "mine", "one warp per block, atomics"},
//       .launch = [](const kl::ReduceArgs<float>& a, cudaStream_t s) { ...<<<g, b, 0, s>>>...; KL_CHECK_LAUNCH(); },
//   })
//
// Each submission (a sub-folder of a -DKL_USER_KERNELS folder) is built into a module of its own
// with the build's flags (cmake/user_kernels.cmake) and runs in a process of its own
// (compare/sandbox/): what it registers here is listed by that process and checked by compare
// (the family exists, the argument struct is the family's, the element type is one it runs, no
// name twice), and its variants are named "<submission>/<name>". Everything the runner does for
// its own variants applies, and more: README, "Method".
#pragma once

#include "common/args_kind.hpp"
#include "common/cuda_check.hpp"
#include "common/submission_abi.hpp"
#include "common/variant.hpp"
#include "common/args/dot_args.hpp"
#include "common/args/gemm_args.hpp"
#include "common/args/matvec_args.hpp"
#include "common/args/reduce_args.hpp"
#include "common/args/rows_args.hpp"
#include "common/args/scan_args.hpp"
#include "common/args/table_args.hpp"
#include "common/args/transpose_args.hpp"

#include <cstring>
#include <deque>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kl::submission {

// This module's registrations. The module is built with hidden visibility, so this table is its
// own: no other submission shares, sees or can rewrite it.
struct Table {
  std::vector<KlSubmissionEntry> entries;
  std::deque<std::string> strings;  // the NUL-terminated copies the entries point into
  const char* keep(std::string_view s) { return strings.emplace_back(s).c_str(); }
};
inline Table& table() {
  static Table t;
  return t;
}

inline void copy_message(char* dst, std::size_t len, const char* what) {
  if (len == 0) return;
  std::strncpy(dst, what, len - 1);
  dst[len - 1] = '\0';
}

// Runs `call` and turns an exception into a one-line reason (0 on success): nothing a
// submission throws crosses into the sandbox's code.
template <class Call>
int reported(char* err, std::size_t len, const char* what, Call&& call) {
  try {
    call();
    return 0;
  } catch (const std::exception& e) {
    copy_message(err, len, e.what());
  } catch (...) {
    copy_message(err, len, what);
  }
  return 1;
}

template <class Args>
int bind(const void* variant, const void* size_bytes, KlBindResult* out) {
  const auto& v = *static_cast<const Variant<Args>*>(variant);
  typename Args::Size size;
  std::memcpy(static_cast<void*>(&size), size_bytes, sizeof size);
  return reported(out->error, sizeof out->error, "a hook threw something that is not a std::exception", [&] {
    if (v.unsupported)
      if (const char* why = v.unsupported(size)) copy_message(out->unsupported, sizeof out->unsupported, why);
    out->workspace_bytes = v.workspace_bytes ? v.workspace_bytes(size) : 0;
    out->rounding_depth = v.rounding_depth ? v.rounding_depth(size) : 0;
    out->work = v.work ? v.work(size) : 0;
  });
}

template <class Args>
int prepare(const void* variant, char* err, std::size_t len) {
  return reported(err, len, "prepare threw something that is not a std::exception",
                  [&] { static_cast<const Variant<Args>*>(variant)->prepare(); });
}

template <class Args>
int launch(const void* variant, const void* args_bytes, CUstream_st* stream, char* err, std::size_t len) {
  static_assert(std::is_trivially_copyable_v<Args>, "a family's argument struct crosses processes as bytes");
  Args a;
  std::memcpy(static_cast<void*>(&a), args_bytes, sizeof a);
  return reported(err, len, "the launch threw something that is not a std::exception",
                  [&] { static_cast<const Variant<Args>*>(variant)->launch(a, stream); });
}

// The element type of a known argument struct ("unknown" for any other struct).
template <class Kind, class = void>
struct ElementOf {
  static std::string name() { return "unknown"; }
};
template <class Kind>
struct ElementOf<Kind, std::void_t<typename Kind::element>> {
  static std::string name() { return element_name<typename Kind::element>(); }
};

// Records `v` (copied; it lives as long as the module) with where it was registered.
template <class Args>
bool register_variant(const char* family, const char* file, int line, const Variant<Args>& v) {
  using Kind = ArgsKind<Args>;
  Table& t = table();
  const auto* kept = new Variant<Args>(v);
  KlSubmissionEntry e{};
  e.family = t.keep(family ? family : "");
  e.args_kind = Kind::name;
  e.dtype = t.keep(ElementOf<Kind>::name());
  e.name = t.keep(v.info.name);
  e.origin = t.keep(v.info.origin);
  e.lesson = t.keep(v.info.lesson);
  e.error_model = t.keep(v.error_model);
  e.file = t.keep(file);
  e.line = line;
  e.args_bytes = sizeof(Args);
  e.size_bytes = sizeof(typename Args::Size);
  e.needs_cc = v.needs.compute_capability;
  e.needs_feature = t.keep(v.needs.feature);
  e.needs_shared_bytes = v.needs.shared_bytes;
  e.needs_clusters = v.needs.clusters ? 1 : 0;
  e.variant = kept;
  e.has_prepare = v.prepare ? 1 : 0;
  // v.tune is not exported: untimed work on the inputs has no place in grading, and a launch must
  // be correct without it (common/variant.hpp), so a submission is graded on its launch alone.
  e.bind = &bind<Args>;
  e.prepare = &prepare<Args>;
  e.launch = &launch<Args>;
  t.entries.push_back(e);
  return true;
}

}  // namespace kl::submission

// The module's one export, read by the sandbox (compare/sandbox/child/sandbox.cu).
extern "C" __attribute__((visibility("default"), used)) inline const KlSubmissionEntry* kl_submission_entries(
    std::size_t* count) {
  *count = kl::submission::table().entries.size();
  return kl::submission::table().entries.data();
}

#define KL_USER_CONCAT2(a, b) a##b
#define KL_USER_CONCAT(a, b) KL_USER_CONCAT2(a, b)
// Registers a variant into an existing family ("reduce", "dot", "rows", "scan", "gemm", "aat",
// "gemv", "gevm", "transpose", "table"): KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{...})
#define KL_REGISTER_VARIANT(family, ...)                                                       \
  namespace {                                                                                  \
  [[maybe_unused]] const bool KL_USER_CONCAT(kl_user_variant_, __LINE__) =                     \
      ::kl::submission::register_variant(family, __FILE__, __LINE__, __VA_ARGS__);             \
  }
