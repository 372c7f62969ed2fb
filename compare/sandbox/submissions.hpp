// Submissions: folders of kernels from outside the tree (docs/your-kernel.md), each built into a
// module of its own (cmake/user_kernels.cmake) and run in a process of its own, kl-sandbox
// (compare/sandbox/child/sandbox.cu). This side never loads a submission's code: it reads the
// build's manifest, asks each module's sandbox what it registered, refuses what does not fit a
// family (loudly, naming the submission and the file), and gives the runner core the accepted
// variants as RemoteVariants (compare/core/remote_variants.hpp). One SubmissionSet per command,
// owned by its plan (compare/cli/cli.hpp): no state of it is global. README "Method" says what this
// isolation covers and what it does not.
#pragma once

#include "common/variant.hpp"
#include "compare/core/dtype.hpp"
#include "compare/core/remote_variants.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

class SandboxProcess;

struct SubmissionVariant : RemoteVariant {
  std::string submission;  // "alice"
  std::size_t entry = 0;   // index in the module's table
  std::string family, args, dtype, file;
  int line = 0;
  std::size_t args_bytes = 0, size_bytes = 0;
  std::string feature;     // needs.feature points here
};

struct Submission {
  std::string name, folder, module;
  std::string status_dir;  // where its build's status files (and its cached listing) are
  std::string log;     // the full compiler log, where there is one
  // Non-empty: why the whole submission is left out (one line): it did not build, it registers
  // what no family takes, its folder holds nothing to build, or the folder is newer than the
  // build (not in its manifest yet).
  std::string broken;
  std::vector<SubmissionVariant> variants;
  std::shared_ptr<SandboxProcess> process;  // started at first use, again after it died
};

// The manifest a command grades unless --submissions names one: $KL_SUBMISSIONS, else the build's
// own (-DKL_USER_KERNELS), else "" (none).
std::string default_submission_manifest();

class SubmissionSet final : public RemoteVariants {
 public:
  // `manifest`: "" for none. `shard`/`shards`: --shard K/N, only submissions whose place in the
  // manifest is K modulo N are graded (the others are listed but bring no variant to any family).
  // `device`: the CUDA device the sandboxes use (compare's own, --device).
  SubmissionSet(std::string manifest, int shard, int shards, int device);
  ~SubmissionSet() override;
  SubmissionSet(const SubmissionSet&) = delete;
  SubmissionSet& operator=(const SubmissionSet&) = delete;

  const std::string& manifest() const { return manifest_; }
  int shards() const { return shards_; }
  // Whether the i-th submission is this shard's to grade (always, unsharded).
  bool in_shard(std::size_t i) const;
  // Every submission of the manifest, loaded (and listed through its sandbox) at the first call;
  // then, left out, every sub-folder of the manifest's folders that the manifest does not know (a
  // folder added since the build was configured). Throws UsageError for a file that is not a
  // manifest.
  const std::vector<Submission>& all() const;
  // This shard's submissions, in the manifest's order.
  std::vector<const Submission*> mine() const;
  // Whether some submission of this shard is named by `pattern` (pattern_names_submission).
  bool named_by(const std::string& pattern) const;

  // RemoteVariants: this shard's accepted variants, their hooks and launches in their sandboxes.
  std::vector<const RemoteVariant*> of(std::string_view family, DType t) const override;
  RemoteBind bind(const RemoteVariant& v, const void* size, std::size_t size_bytes) override;
  std::shared_ptr<RemoteLaunch> launch(const RemoteVariant& v,
                                       std::function<std::vector<unsigned char>(void* workspace)> args_of,
                                       std::vector<std::size_t> pointers) override;

  // The running sandbox of submission `name`, started (again, after it died) where there is none.
  SandboxProcess& process_of(const std::string& name);

 private:
  std::string manifest_;
  int shard_ = 0, shards_ = 1, device_ = 0;
  mutable std::unique_ptr<std::vector<Submission>> all_;  // loaded at the first use
};

// Whether a --variants pattern names submission `name`: the part before its '/' matches the name
// as a glob ('alice/*', '*/*', 'stud*/sum'). `literally`: that part is the name itself, no glob.
bool pattern_names_submission(const std::string& pattern, const std::string& name, bool* literally = nullptr);

// The sandbox executable beside this one (kl-sandbox), or "" when there is none.
std::string sandbox_executable();

}  // namespace kl
