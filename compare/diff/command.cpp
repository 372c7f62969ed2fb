// `compare diff OLD NEW [options]`: the command line, also the whole of `compare-diff`.
#include "compare/diff/diff.hpp"
#include "compare/report/report.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>

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

int diff_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"Compares two compare JSON reports (OLD before a change, NEW after): per problem and variant the two "
               "medians, their ratio and whether the difference is significant. Exit status: 0 no regression, "
               "1 a hand-written variant got significantly slower or started failing (library rows too with "
               "--gate-library), 2 bad input. See docs/judging-progress.md.",
               "compare diff"};
  std::string old_path, new_path, threshold_text = "2%", markdown_path, format = "table";
  double alpha = 0.05;
  bool only_changed = false, no_control = false, gate_library = false;
  app.add_option("OLD", old_path, "the earlier report (compare's JSON)")->required();
  app.add_option("NEW", new_path, "the later report")->required();
  app.add_flag("--only-changed", only_changed, "show only rows that changed (significant and beyond the threshold, "
                                               "status changes, rows in one run only)");
  app.add_option("--threshold", threshold_text, "smallest change of the median that counts, as 0.02 or 2%; a row's "
                                                "threshold is raised to the quieter run's noise (default 2%)");
  app.add_flag("--no-control", no_control, "judge every row on its raw change (default: hand-written rows against "
                                           "their problem's library rows, which share the run's shifts)");
  app.add_flag("--gate-library", gate_library, "let library rows set the exit status too (default: they are the "
                                               "control, shown and judged but only hand-written rows fail the comparison)");
  app.add_option("--alpha", alpha, "significance level of the two-sided Mann-Whitney U test (default 0.05)");
  app.add_option("--markdown", markdown_path, "also write the comparison as markdown to FILE");
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
    RunFile o = load_run(old_path);
    RunFile n = load_run(new_path);
    const DiffResult d = diff_runs(std::move(o), std::move(n), opt);
    if (format == "md") out << diff_markdown(d, only_changed);
    else print_diff(out, d, only_changed);
    if (!markdown_path.empty()) {
      try {
        write_file_atomic(markdown_path, diff_markdown(d, only_changed));
      } catch (const std::exception& e) {
        throw DiffInputError(e.what());
      }
    }
    return diff_exit_code(d);
  } catch (const std::exception& e) {  // DiffInputError, or anything unforeseen in reading the input
    err << "compare diff: error: " << one_line(e.what()) << '\n';
    return 2;
  }
}

}  // namespace kl
