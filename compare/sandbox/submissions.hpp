// Submissions: folders of kernels from outside the tree (docs/your-kernel.md), each built into a
// module of its own (cmake/user_kernels.cmake) and run in a process of its own, kl-sandbox
// (compare/sandbox/child/sandbox.cu). This side never loads a submission's code: it reads the
// build's manifest, asks each module's sandbox what it registered, refuses what does not fit a
// family (loudly, naming the submission and the file), and gives the runner core a RemoteLaunch
// per variant and problem. README "Method" says what this isolation covers and what it does not.
//
// Included by family_core.hpp, which .cu files compile: C++17, no CUDA header.
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

class SandboxProcess;

struct SubmissionVariant {
  std::string submission;  // "alice"
  std::string full_name;   // "alice/warp_atomic": what rows, --variants and the summary use
  std::size_t entry = 0;   // index in the module's table
  std::string family, args, dtype, origin, lesson, error_model, file;
  int line = 0;
  std::size_t args_bytes = 0, size_bytes = 0;
  Requirements needs;       // needs.kernel stays null: the kernel lives in the sandbox
  std::string feature;      // needs.feature points here
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

// Where the submissions come from: the build's manifest (KL_USER_KERNELS), or one given on the
// command line (--submissions FILE) before the first use. "" : none.
void set_submission_manifest(const std::string& path);
const std::string& submission_manifest();

// --shard K/N: only submissions whose place in the manifest is K modulo N are graded (the others
// are listed but bring no variant to any family).
void set_submission_shard(int k, int n);
int submission_shards();  // N of --shard K/N (1: not sharded)

// Every submission of the manifest, loaded (and listed through its sandbox) at the first call;
// then, left out, every sub-folder of the manifest's folders that the manifest does not know (a
// folder added since the build was configured).
std::vector<Submission>& submissions();

// Whether the i-th submission is this shard's to grade (--shard K/N; always, unsharded).
bool submission_in_shard(std::size_t i);

// Whether a --variants pattern names submission `name`: the part before its '/' matches the name
// as a glob ('alice/*', '*/*', 'stud*/sum'). `literally`: that part is the name itself, no glob.
bool pattern_names_submission(const std::string& pattern, const std::string& name, bool* literally = nullptr);

// The accepted variants of `family` with element type t.
std::vector<const SubmissionVariant*> submission_variants(std::string_view family, DType t);

// What a variant's hooks say at one size (its sandbox evaluates them).
struct RemoteBind {
  std::size_t workspace_bytes = 0;
  double rounding_depth = 0;  // 0: not declared
  double work = 0;
  std::string unsupported, error;
  std::string refused;  // it broke the contract there (a thread of its own, a kernel left running): a FAIL
};
RemoteBind remote_bind(const SubmissionVariant& v, const void* size, std::size_t size_bytes);

// The variant launched on the problem's buffers: args_of(workspace) gives the family's argument
// struct as bytes, with this process's device pointers (rewritten for the sandbox), found at the
// byte offsets `pointers` (ArgsKind<Args>::pointers: the struct's own declaration).
std::shared_ptr<RemoteLaunch> remote_launch(const SubmissionVariant& v,
                                            std::function<std::vector<unsigned char>(void* workspace)> args_of,
                                            std::vector<std::size_t> pointers);

// The sandbox executable beside this one (kl-sandbox), or "" when there is none.
std::string sandbox_executable();

}  // namespace kl
