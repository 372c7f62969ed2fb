// Variants registered from outside the tree (common/user_kernel.hpp: KL_REGISTER_VARIANT), kept
// per (family, argument struct) for the runner to join to the family's lists
// (compare/core/family_core.hpp). Needs no CUDA header.
#pragma once

#include "common/config_name.hpp"  // keep_name: names built at registration live as long as the program
#include "common/variant.hpp"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

// The variants registered from outside the tree into `family` with argument struct Args, in
// registration order. One list per (family, Args) for the whole program (an inline function's
// static is shared by every translation unit).
template <class Args>
std::vector<Variant<Args>>& user_variants(std::string_view family) {
  static std::map<std::string, std::vector<Variant<Args>>, std::less<>> lists;
  auto it = lists.find(family);
  if (it == lists.end()) it = lists.emplace(std::string(family), std::vector<Variant<Args>>{}).first;
  return it->second;
}

// Registers `v` into `family` as "<submission>/<name>" (submission "" : the name as it is).
template <class Args>
bool register_user_variant(std::string_view family, std::string_view submission, Variant<Args> v) {
  if (!submission.empty()) {
    v.info.name = keep_name(std::string(submission) + "/" + std::string(v.info.name));
    if (v.info.origin.empty()) v.info.origin = keep_name("submission " + std::string(submission));
  }
  v.info.source = Source::handwritten;
  user_variants<Args>(family).push_back(v);
  return true;
}

// Submissions of KL_USER_KERNELS that did not compile (cmake/user_kernels.cmake registers them):
// `compare --list` and `compare --summary` name each with its first error line.
struct BrokenSubmission {
  std::string name, why;
};
inline std::vector<BrokenSubmission>& broken_submissions() {
  static std::vector<BrokenSubmission> list;
  return list;
}
inline bool register_broken_submissions(std::vector<BrokenSubmission> b) {
  for (auto& x : b) broken_submissions().push_back(std::move(x));
  return true;
}

}  // namespace kl
