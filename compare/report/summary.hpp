// The verdict table (compare --summary): one line per hand-written variant (a submission's
// variant, "alice/warp_atomic", or a ladder step): passed on every problem it ran, or its first
// failure and why; best and worst % of the library; best % of the ceiling. The table a teacher
// grades forty submissions from, in markdown and CSV. Submissions the run names but did not grade
// (KL_USER_KERNELS: left out, or nothing in the chosen families) are listed with why.
#pragma once

#include "compare/report/report.hpp"

#include <string>
#include <vector>

namespace kl {

struct SummaryLine {
  std::string submission;  // the name's prefix before '/', "" for the project's own variants
  std::string variant;     // the full name
  std::string families;    // the families it ran in, comma-separated
  std::string verdict;     // "passed", "FAIL: family type shape: reason", or an ungraded submission's status ("left out: why", "not graded: why")
  int problems = 0, passed = 0, skipped = 0;
  double best_vs_library = 0, worst_vs_library = 0, best_vs_ceiling = 0;  // fractions; 0: none
};

// `ungraded`: (submission, status) of the submissions the run names but did not grade; each is a
// line of its own, variant "NAME/*", verdict its status.
std::vector<SummaryLine> summarize(const Report& r, const std::vector<std::pair<std::string, std::string>>& ungraded = {});
std::string summary_markdown(const std::vector<SummaryLine>& lines);
std::string summary_csv(const std::vector<SummaryLine>& lines);

}  // namespace kl
