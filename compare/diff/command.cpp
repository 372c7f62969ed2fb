// `compare diff OLD NEW [options]`: the command line, also the whole of `compare-diff`.
#include "compare/diff/diff.hpp"
#include "compare/report/passes.hpp"
#include "compare/report/report.hpp"
#include "compare/report/schema.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string_view>
#include <vector>

namespace kl {

namespace {

// "2%" or "0.02"; a bare number of 1 or more is refused as ambiguous.
double parse_threshold(const std::string& text) {
  std::string s = text;
  const bool pct = !s.empty() && s.back() == '%';
  if (pct) s.pop_back();
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size() || !std::isfinite(v) || v < 0)
    throw DiffInputError("--threshold " + text + ": give a fraction (0.02) or a percentage (2%)");
  if (pct) return v / 100.0;
  if (v >= 1.0) throw DiffInputError("--threshold " + text + ": give a fraction (0.02) or a percentage (2%)");
  return v;
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

namespace {

// Every output path, checked before any report is read: a path that cannot be written fails
// with one line, not after the comparison was printed.
void check_outputs(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    if (p.empty()) continue;
    try {
      check_writable(p);
    } catch (const std::exception& e) {
      throw DiffInputError(e.what());
    }
  }
}

// A report with no rows at all is a run that crashed or was cut short before its first problem:
// bad input for a gate, never "no regression".
void require_rows(const RunFile& f, const char* side) {
  if (f.rows.empty())
    throw DiffInputError(std::string(side) + " " + f.label + " has no rows (an empty \"results\"): the run crashed or was "
                         "cut short before its first problem" +
                         (f.meta.incomplete && !f.meta.incomplete_reason.empty() ? " (" + f.meta.incomplete_reason + ")" : ""));
}

void write_output(const std::string& path, const std::string& content) {
  if (path.empty()) return;
  try {
    write_file_atomic(path, content);
  } catch (const std::exception& e) {
    throw DiffInputError(e.what());
  }
}

}  // namespace

int diff_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  if (argc >= 2 && std::string_view(argv[1]) == "--merge-passes") return merge_passes_command(argc, argv, out, err);
  CLI::App app{"Compares two compare JSON reports (OLD before a change, NEW after): per problem and variant the two "
               "medians, their ratio and whether the difference is significant. Exit status: 0 no regression, "
               "1 a hand-written variant got significantly slower or started failing (library rows too with "
               "--gate-library), 2 bad input (also: a report without rows, an incomplete run, an output path that "
               "cannot be written). See docs/judging-progress.md. Also: compare diff --merge-passes OUT IN... "
               "merges separate runs of one build into one report of several passes (scripts/ab.sh).",
               "compare diff"};
  std::string old_path, new_path, threshold_text = "2%", markdown_path, json_path, junit_path, format = "table",
                                  renames_path;
  double alpha = 0.05, run_floor_us = DiffOptions{}.run_floor_us;
  std::size_t min_passes = DiffOptions{}.min_passes;
  bool only_changed = false, no_control = false, gate_library = false, allow_incomplete = false, no_renames = false;
  app.add_option("OLD", old_path, "the earlier report (compare's JSON)")->required();
  app.add_option("NEW", new_path, "the later report")->required();
  app.add_flag("--only-changed", only_changed, "show only rows that changed (significant and beyond the threshold, "
                                               "status changes, rows in one run only)");
  app.add_option("--threshold", threshold_text, "smallest change of the median that counts, as 0.02 or 2% (default 2%); "
                                                "where the runs' processes were not sampled, raised to the quieter "
                                                "run's noise and the run floor added");
  app.add_option("--run-floor-us", run_floor_us, "the shift between two processes of one build, in microseconds, "
                                                 "added (over the faster median) to the threshold of rows whose "
                                                 "runs were not sampled over 3 or more processes a side (default 1.5; "
                                                 "0 turns it off)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--min-passes", min_passes, "per-pass medians each side needs for the test on passes instead of "
                                             "samples (default 3)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1000000}));
  app.add_flag("--no-control", no_control, "judge every row on its raw change (default: hand-written rows against "
                                           "their problem's library rows, which share the run's shifts)");
  app.add_flag("--gate-library", gate_library, "let library rows set the exit status too (default: they are the "
                                               "control, shown and judged but only hand-written rows fail the comparison)");
  app.add_flag("--allow-incomplete", allow_incomplete, "judge the rows of an incomplete run (stopped by a fault or "
                                                       "Ctrl-C) instead of failing the comparison (exit status 2)");
  app.add_option("--renames", renames_path, "variant renames to apply (a JSON object old: new; default: the "
                                            "compiled-in " + builtin_renames_source() + ")");
  app.add_flag("--no-renames", no_renames, "pair rows by their exact variant names only");
  app.add_option("--alpha", alpha, "significance level of the tests (default 0.05)");
  app.add_option("--markdown", markdown_path, "also write the comparison as markdown to FILE");
  app.add_option("--json", json_path, "also write the verdicts as JSON to FILE (one object per row: outcome passed, "
                                      "regressed, newly_failing or skipped)");
  app.add_option("--junit", junit_path, "also write the verdicts as JUnit XML to FILE (one test case per row)");
  app.add_option("--format", format, "what to print: table (default) or md");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "compare diff: error: " << one_line(e.what()) << '\n';
    return 2;
  }
  try {
    if (format != "table" && format != "md")
      throw DiffInputError("--format " + format + ": use table or md");
    if (!(alpha > 0 && alpha < 1)) throw DiffInputError("--alpha must be between 0 and 1 (e.g. 0.05)");
    DiffOptions opt;
    opt.alpha = alpha;
    opt.threshold = parse_threshold(threshold_text);
    opt.control = !no_control;
    opt.gate_library = gate_library;
    opt.run_floor_us = run_floor_us;
    opt.min_passes = min_passes;
    opt.allow_incomplete = allow_incomplete;
    if (!no_renames) {
      opt.renames = renames_path.empty() ? builtin_renames() : load_renames(renames_path);
      opt.renames_source = renames_path.empty() ? builtin_renames_source() + ", compiled in" : renames_path;
    }
    check_outputs({markdown_path, json_path, junit_path});
    RunFile o = load_run(old_path);
    RunFile n = load_run(new_path);
    require_rows(o, "OLD");
    require_rows(n, "NEW");
    const DiffResult d = diff_runs(std::move(o), std::move(n), opt);
    // Rendered before anything is printed, so a failure leaves no verdict behind it.
    const std::string md = markdown_path.empty() && format != "md" ? std::string() : diff_markdown(d, only_changed);
    write_output(markdown_path, md);
    write_output(json_path, json_path.empty() ? std::string() : diff_json(d));
    write_output(junit_path, junit_path.empty() ? std::string() : diff_junit(d));
    if (format == "md") out << md;
    else print_diff(out, d, only_changed);
    return diff_exit_code(d);
  } catch (const std::exception& e) {  // DiffInputError, or anything unforeseen in reading the input
    err << "compare diff: error: " << one_line(e.what()) << '\n';
    return 2;
  }
}

int merge_passes_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    if (argc < 4) throw DiffInputError("--merge-passes OUT.json IN.json...: give the output and at least one report");
    const std::string out_path = argv[2];
    check_outputs({out_path});
    std::vector<Report> passes;
    for (int i = 3; i < argc; ++i) {
      try {
        passes.push_back(load_report(argv[i]));
      } catch (const ReportReadError& e) {
        throw DiffInputError(e.what());
      }
    }
    const Report merged = merge_passes(passes);
    write_output(out_path, to_json(merged));
    out << "merged " << passes.size() << " report" << (passes.size() == 1 ? "" : "s") << " (" << merged.meta.passes
        << " passes from " << merged.meta.processes << " processes) into " << out_path << ": " << merged.rows.size()
        << " rows" << (merged.meta.incomplete ? ", marked incomplete" : "") << '\n';
    return 0;
  } catch (const std::exception& e) {
    err << "compare diff: error: " << one_line(e.what()) << '\n';
    return 2;
  }
}

}  // namespace kl
