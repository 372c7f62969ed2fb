// Several passes over the same problems, merged into one report: `compare --repeat R` merges its
// R passes, and scripts/ab.sh merges R separate runs of each side (`compare diff --merge-passes`).
// A merged row keeps every pass's samples and one median per pass (Row::pass_medians_ms), which
// is what `compare diff` tests when both sides have enough passes (docs/judging-progress.md).
// Plain C++ (the kl_report target).
#pragma once

#include "compare/report/report.hpp"

#include <stdexcept>
#include <vector>

namespace kl {

// Reports that must not be merged (none given, different commits or devices). One line.
struct PassMergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Merges the passes, matched row by row on (family, dtype, shape, variant), in the first pass's
// order (rows of later passes that the first lacks follow). A row's samples are concatenated,
// its statistics recomputed from them, its pass medians appended (a pass that is itself merged
// contributes all of its own); a row that failed in any pass carries that failure; rates and
// the ratio to the library are recomputed from the merged medians. The metadata is the first
// pass's, with passes and processes summed, the last pass's end state, and incomplete when any
// pass was. Throws PassMergeError when `passes` is empty, or the passes differ in commit or GPU
// (merging those would hide the very change a comparison looks for).
Report merge_passes(const std::vector<Report>& passes);

}  // namespace kl
