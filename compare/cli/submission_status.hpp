// What becomes of each submission (docs/your-kernel.md) in one command, one line each: the
// variants it registers (a listing), or, for a run, graded (its variants the run takes), not
// graded (none in the chosen families and types, or none the patterns name), or left out (it did
// not build, registers what no family takes, holds nothing to build, or is a folder newer than the
// build). --list, --list-submissions, --dry-run, the table's foot and --summary show these lines,
// so no submission goes missing without a word. A run that leaves out a submission it names, or
// grades nothing of one named by its own name ('bob/*'), exits 1: a pattern never stops the
// grading of the others.
#pragma once

#include "compare/core/dtype.hpp"

#include <string>
#include <vector>

namespace kl {

class Family;
class SubmissionSet;
struct Submission;

struct SubmissionStatus {
  std::string name;  // "bob"
  std::string text;  // "graded: reduce: warp_atomic (float)", "not graded: no variant in reduce (float); it registers ...", "left out: ..."
  bool left_out = false;
  bool graded = false;  // a run takes at least one of its variants
  bool failed = false;  // a run that names it cannot grade it (left out; or named literally, nothing to grade)
};

// The families and types a run chose (empty: a listing, which chooses none).
struct ChosenFamily {
  const Family* family;
  std::vector<DType> types;
};

// Each submission of the set's shard that `patterns` name (every one, with no patterns), in the
// manifest's order, its status against `chosen`.
std::vector<SubmissionStatus> submission_statuses(const SubmissionSet& set, const std::vector<std::string>& patterns,
                                                  const std::vector<ChosenFamily>& chosen = {});
// The same over a given list (every one of it this shard's).
std::vector<SubmissionStatus> statuses_of(const std::vector<const Submission*>& subs, const std::vector<std::string>& patterns,
                                          const std::vector<ChosenFamily>& chosen = {});

// "  name: text\n" for each status.
std::string status_lines(const std::vector<SubmissionStatus>& statuses);

}  // namespace kl
