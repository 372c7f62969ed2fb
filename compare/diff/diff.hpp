// `compare diff OLD.json NEW.json`: did a variant get faster or slower between two runs, and is
// the difference real? Needs no GPU: it reads two of compare's JSON reports.
//
// Method (docs/judging-progress.md says it for users). The unit of the noise model is the run:
// much of the variation of a short kernel is between processes (where the buffers landed, the
// clocks, what ran before), and one run sees one draw of it, however many samples it takes. So
// the samples of one run never decide alone. A row changed when all of these hold:
//  1. Significance, on the unit the reports allow:
//     a. passes (both rows carry at least DiffOptions::min_passes per-pass medians: compare
//        --repeat, or separate runs merged by scripts/ab.sh): a t test on the logarithms of
//        the pass medians (ttest.hpp's pass_t: Student's pooled t for equal pass counts, else
//        Welch's). Each pass median is one draw of the run-to-run
//        variation, so the test's error is the spread between passes, not within one.
//     b. samples (a side with fewer passes): the two-sided Mann-Whitney U test on the samples,
//        as Google Benchmark's tools/compare.py does (mannwhitneyu, alpha 0.05). It sees only
//        the spread within each run; the run floor of 3. is what covers the rest.
//  2. Many rows at once: the p-values of all rows tested are adjusted with Holm's method
//     (Holm 1979), so that comparing two runs of the same code flags ANY row with probability
//     at most alpha, not alpha per row (170 rows at 0.05 would flag about 8 by chance).
//  3. Size: |new/old - 1| of the medians exceeds the row's threshold:
//     a. passes from at least 3 processes on both sides: --threshold (default 2%), the smallest
//        change worth a gate; the test of 1a already weighs the between-run spread.
//     b. otherwise: --threshold, or the relative noise of the quieter of the two runs (nvbench's
//        rule: SAME when |diff| <= min(ref_noise, cmp_noise)), whichever is larger, PLUS the run
//        floor, --run-floor-us (default 1.5 us) divided by the faster median: the shift two
//        processes of one build show, roughly constant in absolute time (launch, placement), so
//        large relative to a kernel of a few microseconds and negligible at milliseconds.
//        Passes of one process are 3b too: they do not sample what differs between processes.
//  4. The library as a control (default; --no-control turns it off). A shift of the whole run
//     moves every variant of a problem together, the library included, because they share the
//     problem's buffers and the GPU's state at that moment: two H100 runs of one commit moved a
//     whole problem (gemv float 4097x1023, cuBLAS with it) by a few percent, beyond what the
//     samples' spread explains. But the library is not a perfect control either: between two
//     runs on two lent H100s cuBLAS alone got several percent faster at some small products
//     while every hand-written kernel stayed put (both in docs/judging-progress.md, "What
//     "significant" means"). So a
//     hand-written row counts as changed only when it changed both ways, in the same direction:
//     raw (new/old) and relative to its problem's library rows (new/old divided by the median
//     of their ratios, '/lib'). Both tests must reject (the intersection-union test: its p is
//     the larger of the two p-values, a level-alpha test without further correction), and the
//     ratio held against the threshold is the one nearer 1. A change of the kernel shows both
//     ways; a shift of the run shows only raw, a shift of the library only relative to it. The
//     price: a kernel that got slower by as much as the library got faster is not flagged.
//     Library rows are judged raw. Problems without a library row, and runs whose GPU or
//     library versions differ, are judged raw (and the report says so).
//  5. Library rows are the control, not the subject: they are judged and shown like any row
//     (SLOWER, NOW FAILING), but only hand-written rows set the exit status, unless
//     --gate-library (DiffOptions::gate_library) opts them in. Across two machines a library
//     row moved beyond the threshold in a run of a few microseconds, and in a same-commit A/A
//     pair thrust_inner_product moved far more (docs/judging-progress.md, "What "significant"
//     means"): the library's own variation is not a regression of the kernels (issue 22, item 8).
// Inputs that cannot pass a gate: a report without rows is bad input (exit 2, one line); a run
// marked incomplete (a crash, Ctrl-C) fails the comparison (exit 2 after the table) unless
// --allow-incomplete, because the rows it lacks were never judged.
// Rows are matched by (family, type, shape, variant); rows present in one run only are listed,
// except that an unpaired row whose variant was renamed (compare/diff/config-renames.json, compiled
// in: renames.cpp) pairs with the other run's row of the new name, and the header counts them.
//
// Files: utest.* (the U test), ttest.* (the t tests), run_file.cpp (reports read through
// compare/report/schema.hpp), renames.cpp (the rename map), verdict.cpp (the comparison),
// render.cpp (table and markdown), machine.cpp (JSON and JUnit verdicts for CI), command.cpp (the
// command line, and --merge-passes);
// the kl_diff target, which needs no CUDA header or library (nor does the compare-diff program).
#pragma once

#include "compare/diff/utest.hpp"
#include "compare/report/report.hpp"

#include <cstddef>
#include <iosfwd>
#include <map>
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
  std::vector<double> pass_medians;  // the finite positive ones (one per pass; empty: one pass)
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
  // Built from a tree with uncommitted changes: cmake/git_commit.cmake appends "-dirty".
  bool dirty() const { return meta.git_commit.ends_with("-dirty"); }
};

RunFile run_file(Report report, const std::string& label);
RunFile parse_run(std::string_view json_text, const std::string& label);  // throws DiffInputError
RunFile load_run(const std::string& path);  // .json or .json.gz; throws DiffInputError

// ---- the comparison -----------------------------------------------------------------------

// Old variant name -> new (compare/diff/config-renames.json).
using Renames = std::map<std::string, std::string>;
Renames builtin_renames();          // the map compiled in (throws DiffInputError if it does not parse)
std::string builtin_renames_source();  // the file it was compiled from, relative to the source tree
Renames load_renames(const std::string& path);  // a map of the same form; throws DiffInputError

struct DiffOptions {
  double alpha = 0.05;
  double threshold = 0.02;  // floor of the relative change of the median that counts
  bool control = true;      // judge hand-written rows against their problem's library rows
  bool gate_library = false;  // library rows' regressions count for the exit status too
  // Added to the threshold, over the faster median, where the runs' processes were not sampled
  // (diff.hpp, 3b): the absolute shift between two processes of one build.
  double run_floor_us = 1.5;
  std::size_t min_passes = 3;      // pass medians each side needs for the test on passes
  int min_processes = 3;           // separate processes each side needs for the floor to drop
  bool allow_incomplete = false;   // judge an incomplete run's rows without failing
  Renames renames;                 // applied to rows that pair no other way
  std::string renames_source;      // where `renames` came from, for the header
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
  std::string old_variant;  // OLD's name where the pair was made through the renames, else empty
  bool library = false;
  std::optional<RunRow> old_row, new_row;
  double ratio = 0;      // the ratio judged: raw_ratio, or with a control the one of raw_ratio and
                         // raw_ratio / control nearer 1 (1 when they disagree); 0: no timing
  double raw_ratio = 0;  // new median / old median
  double control = 0;    // the problem's library ratio (0: judged raw)
  double threshold = 0;  // the effective threshold of this row
  UTest test;              // the U test, or on passes the t test (ran, n1, n2, p, min_p filled)
  bool on_passes = false;  // tested on per-pass medians (n1, n2: passes), not on samples
  bool floored = false;    // the run floor is part of `threshold` (diff.hpp, 3b)
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
  std::size_t old_rows = 0, new_rows = 0;  // how many rows each run had, counted before the move
  DiffOptions options;
  std::vector<std::string> warnings;  // runs not comparable, incomplete runs, few samples
  bool control_used = false;          // options.control, and the runs' library versions match
  std::vector<DiffRow> rows;          // NEW's order, then the rows only in OLD
  std::size_t renamed_pairs = 0;      // rows paired through options.renames
  // Why the comparison fails whatever its rows say (an incomplete run); empty: it does not.
  std::vector<std::string> input_failures;
  std::size_t count(Verdict v) const;
  std::size_t regressions() const;  // rows whose regression sets the exit status
  std::size_t library_regressions() const;  // library rows' regressions that do not (the control)
};

DiffResult diff_runs(RunFile old_run, RunFile new_run, const DiffOptions& options);

// 2 when an input cannot pass (an incomplete run, without allow_incomplete); else 1 when a
// hand-written variant (or, with gate_library, any) got significantly slower beyond the
// threshold or started failing; else 0.
int diff_exit_code(const DiffResult& d);

void print_diff(std::ostream& os, const DiffResult& d, bool only_changed);
std::string diff_markdown(const DiffResult& d, bool only_changed);

// A row's outcome for CI: "passed", "regressed" (significantly slower), "newly_failing", or
// "skipped" (not judged: in one run only, skipped, failing in both, or not testable).
// Regressions that do not gate (a library row without gate_library) are "passed".
std::string_view row_outcome(const DiffRow& r);
// The comparison as JSON ("schema": "kernel-ladder/compare-diff/1") and as JUnit XML, one test
// case per row (outcome as above), plus one for the inputs when one cannot pass.
std::string diff_json(const DiffResult& d);
std::string diff_junit(const DiffResult& d);

// `compare diff ...` (argv[0] = "diff"): parses its options, prints, returns the exit status
// (0, 1, or 2 with one line on `err` for bad input).
int diff_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// `compare diff --merge-passes OUT IN...` (argv[0] = "diff"): merges the reports of separate
// runs of one build into one (compare/report/passes.hpp), for scripts/ab.sh. 0, or 2 with one
// line on `err`.
int merge_passes_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace kl
