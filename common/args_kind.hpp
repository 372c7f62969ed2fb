// The name of each family's launch-argument struct and of its element type, as strings: what a
// submission's registration records (common/user_kernel.hpp) and what the runner checks it
// against (compare/core/family_core.hpp), so a launcher registered with the wrong struct or an
// element type the family does not run is refused with both names, before anything runs.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace kl {

template <class T> struct ReduceArgs;
template <class T> struct DotArgs;
template <class T> struct GemmArgs;
template <class T> struct AatArgs;
template <class T> struct MatVecArgs;
template <class T> struct RowsArgs;
template <class T> struct ScanArgs;
template <class T> struct TransposeArgs;
template <class T> struct TableArgs;
template <class T> struct AllreduceArgs;

// `pointers()`: the byte offsets of the struct's device pointers, from its declaration: what a
// submission's sandbox maps into its own process (compare/sandbox/). Every other byte crosses as it
// is. The all-reduce's arrays of per-GPU pointers are not graded from outside: none.
template <class Args> struct ArgsKind { static constexpr const char* name = "unknown"; };
#define KL_ARGS_KIND(Tmpl, ...)                                     \
  template <class T> struct ArgsKind<Tmpl<T>> {                     \
    static constexpr const char* name = #Tmpl;                      \
    using element = T;                                              \
    static std::vector<std::size_t> pointers() {                    \
      using S [[maybe_unused]] = Tmpl<T>;                           \
      return {__VA_ARGS__};                                         \
    }                                                               \
  };
KL_ARGS_KIND(ReduceArgs, offsetof(S, in), offsetof(S, out), offsetof(S, workspace))
KL_ARGS_KIND(DotArgs, offsetof(S, x), offsetof(S, y), offsetof(S, out), offsetof(S, workspace))
KL_ARGS_KIND(GemmArgs, offsetof(S, A), offsetof(S, B), offsetof(S, C), offsetof(S, workspace))
KL_ARGS_KIND(AatArgs, offsetof(S, A), offsetof(S, C), offsetof(S, workspace))
KL_ARGS_KIND(MatVecArgs, offsetof(S, A), offsetof(S, x), offsetof(S, y), offsetof(S, workspace))
KL_ARGS_KIND(RowsArgs, offsetof(S, A), offsetof(S, out), offsetof(S, workspace))
KL_ARGS_KIND(ScanArgs, offsetof(S, in), offsetof(S, out), offsetof(S, workspace))
KL_ARGS_KIND(TransposeArgs, offsetof(S, A), offsetof(S, B))
KL_ARGS_KIND(TableArgs, offsetof(S, y))
KL_ARGS_KIND(AllreduceArgs)
#undef KL_ARGS_KIND

template <class T>
std::string element_name() {
  if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "other:" + std::to_string(sizeof(T));
}

}  // namespace kl
