// `compare diff OLD.json NEW.json`: did a variant get faster or slower between two runs, and is
// the difference real? Needs no GPU: it reads two of compare's JSON reports.
//
// Method (docs/judging-progress.md says it for users). A row changed when all of these hold:
//  1. Significance: a two-sided Mann-Whitney U test on the two runs' samples gives p < alpha
//     (default 0.05). This is what Google Benchmark's tools/compare.py does (gbench/report.py:
//     mannwhitneyu(..., alternative='two-sided'), alpha 0.05, warning below 9 repetitions).
//     It assumes nothing about the shape of the timing distribution (GPU timings are skewed,
//     with a long right tail) and is insensitive to a few outliers.
//  2. Many rows at once: the p-values of all rows tested are adjusted with Holm's method
//     (Holm 1979), so that comparing two runs of the same code flags ANY row with probability
//     at most alpha, not alpha per row (170 rows at 0.05 would flag about 8 by chance).
//  3. Size: |new/old - 1| of the medians exceeds the threshold: --threshold (default 2%) or the
//     relative noise of the quieter of the two runs, whichever is larger. The noise term is
//     nvbench's rule (scripts/nvbench_compare.py: SAME when |diff| <= min(ref_noise, cmp_noise)).
//     The 2% floor is the runner's own noise target (--max-noise 0.02). The U test only sees the
//     spread within each run, while two runs of the same binary also differ as a whole (the
//     GPU's clock and temperature at the time, where the buffers landed, other work on the
//     machine); with hundreds of samples the test calls such a shift significant however small
//     it is. The floor keeps those shifts out, so a CI gate does not fail on them.
//  4. The library as a control (default; --no-control turns it off). A shift of the whole run
//     moves every variant of a problem together, the library included, because they share the
//     problem's buffers and the GPU's state at that moment: two H100 runs of one commit moved a
//     whole problem (gemv float 4097x1023, cuBLAS with it) by 1.6-2.8%, beyond what the
//     samples' spread explains. But the library is not a perfect control either: between two
//     runs on two lent H100s (results/h100/before_after_4d06753.md) cuBLAS alone got 5-10%
//     faster at some small products while every hand-written kernel stayed put. So a
//     hand-written row counts as changed only when it changed both ways, in the same direction:
//     raw (new/old) and relative to its problem's library rows (new/old divided by the median
//     of their ratios, '/lib'). Both U tests must reject (the intersection-union test: its p is
//     the larger of the two p-values, a level-alpha test without further correction), and the
//     ratio held against the threshold is the one nearer 1. A change of the kernel shows both
//     ways; a shift of the run shows only raw, a shift of the library only relative to it. The
//     price: a kernel that got slower by as much as the library got faster is not flagged.
//     Library rows are judged raw. Problems without a library row, and runs whose GPU or
//     library versions differ, are judged raw (and the report says so).
//  5. Library rows are the control, not the subject: they are judged and shown like any row
//     (SLOWER, NOW FAILING), but only hand-written rows set the exit status, unless
//     --gate-library (DiffOptions::gate_library) opts them in. Across two machines a library
//     row moved +3% in a 5 us run, and in a same-commit A/A pair thrust_inner_product moved
//     15.7%: the library's own variation is not a regression of the kernels (issue 22, item 8).
// Rows are matched by (family, type, shape, variant); rows present in one run only are listed.
//
// Files: utest.* (the U test), run_file.cpp (reports read through compare/report/schema.hpp),
// verdict.cpp (the comparison), render.cpp (table and markdown), command.cpp (the command line);
// the kl_diff target, which needs no CUDA header or library (nor does the compare-diff program).
#pragma once

#include "compare/diff/utest.hpp"
#include "compare/report/report.hpp"

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

// ---- reading compare's JSON ---------------------------------------------------------------
//
// Through the report's schema (compare/report/schema.hpp): a report is read into the same Row
// and RunMeta the runner writes, .json or .json.gz, any schema version the reader accepts.

// Bad input: an unreadable file, not JSON, not a compare report. One line.
struct DiffInputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A Row as the comparison sees it: the row itself, and what is judged, derived from it once.
struct RunRow {
  Row row;
  bool has_timing = false;   // timed, with a finite positive median
  double median = 0, noise = 0;
  std::size_t count = 0;     // samples taken
  bool has_samples = false;  // schema 2 lists every sample; schema 1 only counted them
  std::vector<double> samples;  // the finite ones
  explicit RunRow(Row r);
  bool library() const { return row.source == Source::library; }
  bool ok() const { return row.status == RowStatus::ok; }
  bool skipped() const { return row.status == RowStatus::skipped; }
  bool failing() const { return !ok() && !skipped(); }  // FAIL or ERROR
};

struct RunFile {
  std::string label;  // the path, as given
  int schema_version = 0;
  RunMeta meta;
  // What must match for two runs to be comparable: (what, value); value "" = not recorded.
  std::vector<std::pair<std::string, std::string>> environment;
  // device_state (clocks, temperature, power, ...) flattened to (dotted key, value).
  std::vector<std::pair<std::string, std::string>> device_state;
  std::vector<RunRow> rows;
};

RunFile run_file(Report report, const std::string& label);
RunFile parse_run(std::string_view json_text, const std::string& label);  // throws DiffInputError
RunFile load_run(const std::string& path);  // .json or .json.gz; throws DiffInputError

// ---- the comparison -----------------------------------------------------------------------

struct DiffOptions {
  double alpha = 0.05;
  double threshold = 0.02;  // floor of the relative change of the median that counts
  bool control = true;      // judge hand-written rows against their problem's library rows
  bool gate_library = false;  // library rows' regressions count for the exit status too
};

enum class Verdict {
  slower,        // significant and beyond the threshold: a regression
  faster,        // significant and beyond the threshold
  same,          // not significant, or within the threshold
  maybe_slower,  // beyond the threshold, but no test possible (no samples, too few)
  maybe_faster,
  unknown,       // within the threshold, but no test possible
  now_failing,   // ok / skipped -> FAIL / ERROR: a regression
  fixed,         // FAIL / ERROR -> ok
  still_failing,
  now_skipped,   // ok -> skipped
  now_runs,      // skipped -> ok
  skipped,       // skipped in both
  only_old,
  only_new,      // a regression if it fails
};
std::string_view verdict_name(Verdict v);

struct DiffRow {
  std::string family, dtype, shape, variant;
  bool library = false;
  std::optional<RunRow> old_row, new_row;
  double ratio = 0;      // the ratio judged: raw_ratio, or with a control the one of raw_ratio and
                         // raw_ratio / control nearer 1 (1 when they disagree); 0: no timing
  double raw_ratio = 0;  // new median / old median
  double control = 0;    // the problem's library ratio (0: judged raw)
  double threshold = 0;  // the effective threshold of this row
  UTest test;
  bool tested = false;      // the U test ran and can reach p < alpha at these sample counts
  double p_adjusted = 1;    // test.p after Holm's adjustment over all tested rows
  bool too_few = false;     // too few samples to be significant (alone, or among this many rows)
  Verdict verdict = Verdict::same;
  bool regression = false;  // a regression: slower, or started failing (see `gates`)
  bool gates = false;       // the regression sets the exit status: a hand-written row's always, a
                            // library row's only with DiffOptions::gate_library
  bool changed = false;     // shown with --only-changed
  std::string why;          // a short reason, e.g. "within 2.0%", "no samples (schema 1)"
};

struct DiffResult {
  RunFile old_run, new_run;  // metadata (rows moved into `rows`)
  DiffOptions options;
  std::vector<std::string> warnings;  // runs not comparable, incomplete runs, few samples
  bool control_used = false;          // options.control, and the runs' library versions match
  std::vector<DiffRow> rows;          // NEW's order, then the rows only in OLD
  std::size_t count(Verdict v) const;
  std::size_t regressions() const;  // rows whose regression sets the exit status
  std::size_t library_regressions() const;  // library rows' regressions that do not (the control)
};

DiffResult diff_runs(RunFile old_run, RunFile new_run, const DiffOptions& options);

// 1 when a hand-written variant (or, with gate_library, any) got significantly slower beyond
// the threshold or started failing, else 0.
int diff_exit_code(const DiffResult& d);

void print_diff(std::ostream& os, const DiffResult& d, bool only_changed);
std::string diff_markdown(const DiffResult& d, bool only_changed);

// `compare diff ...` (argv[0] = "diff"): parses its options, prints, returns the exit status
// (0, 1, or 2 with one line on `err` for bad input).
int diff_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace kl
