// Command line of `compare`, parsed into a Plan. Bad input throws UsageError with one line.
#pragma once

#include "compare/cli/submission_status.hpp"
#include "compare/core/family.hpp"
#include "compare/testing/candidate_wrapper.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kl {

class SubmissionSet;  // compare/sandbox/submissions.hpp

struct PlannedProblem {
  const Family* family;
  ProblemKey key;
};

// What `compare --list` shows: the families, types and variant globs given with it (empty: all).
struct ListFilter {
  std::vector<std::string> families, types, patterns;
  bool json = false;
};

struct Plan {
  bool list_only = false;
  ListFilter list_filter;
  bool list_submissions = false;  // --list-submissions: each submission's status, one line each
  bool help_only = false;
  bool version_only = false;  // --version: help_text is the commit this build was made from
  std::string help_text;
  std::vector<PlannedProblem> problems;
  RunOptions run;
  TestingOptions testing;  // --inject-fault, --inject-delay (testing the runner itself)
  std::string out_dir = "compare-out";
  std::string basename = "compare";
  bool write_files = true;
  bool summary = false;  // --summary: the verdict table (compare/report/summary.hpp)
  bool quiet = false;
  // --repeat R: R passes over the problems, each in a fresh random order, the sampling budget of
  // every variant split over them (the stop rule in `run` is already the per-pass one); the
  // report keeps one median per pass, which `compare diff` tests (docs/judging-progress.md).
  int repeat = 1;
  int device = 0;
  int smem_bank_mode = 0;  // 0: leave as it is; 4 or 8: ask for that bank width first
  L2Flush l2_flush = L2Flush::read;
  // --isolate: every problem runs in a child process (compare/cli/isolate.hpp), so a kernel that
  // faults loses only its own row.
  bool isolate = false;
  // Without --isolate: when a fault leaves the CUDA context unusable, the faulting problem (without
  // the variant that faulted) and every later one continue in child processes. --stop-on-fault:
  // stop there instead, with an incomplete report and exit status 4.
  bool recover_from_faults = true;
  // The child's side (internal options the parent passes): the problem index, the file its rows
  // go to, the copy ceiling the parent measured, and the exact variants to run.
  long worker = -1;
  std::string worker_out;
  double worker_copy_gbps = 0;
  std::vector<std::string> worker_variants;
  std::vector<std::string> argv;  // the command line as given, for the children
  // Grading a folder of submissions at scale (compare/cli/shards.hpp): --grade-gpus G runs G
  // children, one per GPU, each over every G-th submission, and merges their reports.
  int grade_gpus = 1;
  // --dry-run [--gpu NAME]: print what would run, skip and take how long (compare/cli/dry_run.hpp).
  bool dry_run = false;
  std::string dry_run_gpu;
  // The submissions this command grades (--submissions, or the build's own; --shard), loaded at
  // their first use; run.remote points at them. Set by parse_command_line (but for --help).
  std::shared_ptr<SubmissionSet> submission_set;
  // Each submission the run names (compare/cli/submission_status.hpp): graded, not graded and why,
  // or left out. Empty without a submissions manifest.
  std::vector<SubmissionStatus> submissions;
};

// Parses argv into a Plan (throws UsageError). Works without a GPU.
Plan parse_command_line(int argc, const char* const* argv);

// A family setting (--gpus N) the visible devices cannot honour: throws UsageError (one line).
void check_settings(const Plan& plan, int device_count);

// What `compare --list` prints: each submission -v names with its status (where a manifest is
// in use), then families, types, sizes, axes, variants with origin and lesson.
std::string list_text(const SubmissionSet& subs, const ListFilter& filter = {});
// What `compare --list-submissions` prints: every submission of the manifest, one line each.
std::string list_submissions_text(const SubmissionSet& subs);
// The same as JSON: families with their variants (name, types, origin, lesson, source, needs).
std::string list_json(const SubmissionSet& subs, const ListFilter& filter = {});

// The command line as one shell-quoted string (for the report).
std::string join_command_line(int argc, const char* const* argv);

}  // namespace kl
