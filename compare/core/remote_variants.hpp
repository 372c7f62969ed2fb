// Variants whose code runs in another process (outside submissions: compare/sandbox/), as the
// runner core sees them: a listing, hooks evaluated elsewhere, launches made elsewhere. The core
// knows nothing of where they come from; whoever owns them (the command line's plan owns the
// submissions) hands the set to the families through RunOptions::remote and Family::variants.
#pragma once

#include "common/variant.hpp"
#include "compare/core/dtype.hpp"
#include "compare/core/remote_launch.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

// What a listing, a row and the requirement check need of one remote variant.
struct RemoteVariant {
  std::string full_name;  // "alice/warp_atomic": what rows, --variants and the summary use
  std::string origin, lesson, error_model;
  Requirements needs;     // needs.kernel stays null: the kernel lives in the other process
};

// What a variant's hooks say at one size (evaluated where the variant lives).
struct RemoteBind {
  std::size_t workspace_bytes = 0;
  double rounding_depth = 0;  // 0: not declared
  double work = 0;
  std::string unsupported, error;
  std::string refused;  // it broke the contract there (a thread of its own, a kernel left running): a FAIL
};

class RemoteVariants {
 public:
  virtual ~RemoteVariants() = default;
  // The accepted variants of `family` with element type t, in listing order. The pointers live
  // as long as this set.
  virtual std::vector<const RemoteVariant*> of(std::string_view family, DType t) const = 0;
  // v's hooks at one size (`size`: the family's Size struct, `size_bytes` long). v is one of of()'s.
  virtual RemoteBind bind(const RemoteVariant& v, const void* size, std::size_t size_bytes) = 0;
  // v launched on the problem's buffers: args_of(workspace) gives the family's argument struct as
  // bytes, with this process's device pointers at the byte offsets `pointers` (ArgsKind<Args>::
  // pointers: the struct's own declaration), which the other process rewrites for its own.
  virtual std::shared_ptr<RemoteLaunch> launch(const RemoteVariant& v,
                                               std::function<std::vector<unsigned char>(void* workspace)> args_of,
                                               std::vector<std::size_t> pointers) = 0;
};

}  // namespace kl
