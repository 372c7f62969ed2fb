// The comparison as a terminal table and as markdown.
#include "compare/diff/diff.hpp"
#include "compare/diff/text.hpp"
#include "compare/report/report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

namespace kl {

namespace {

using namespace diff_text;

struct Cells {
  std::string variant, old_t, new_t, ratio, adjusted, speed, p, samples, verdict;
};

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", r);
  return buf;
}

std::string side_text(const std::optional<RunRow>& r) {
  if (!r) return "-";
  if (!r->ok()) return std::string(status_name(r->row.status));
  return r->has_timing ? format_time_ms(r->median) : "-";
}

Cells cells_of(const DiffRow& r) {
  Cells c;
  c.variant = r.variant + (r.library ? " [lib]" : "");
  c.old_t = side_text(r.old_row);
  c.new_t = side_text(r.new_row);
  if (r.ratio > 0) {
    c.ratio = ratio_text(r.raw_ratio);
    c.adjusted = r.control > 0 ? ratio_text(r.raw_ratio / r.control) : "-";
    c.speed = percent(1.0 / r.ratio - 1.0, true);
  } else {
    c.ratio = c.adjusted = c.speed = "-";
  }
  c.p = r.tested ? p_text(r.p_adjusted) : r.test.ran ? p_text(r.test.p) : "-";
  auto count = [](const std::optional<RunRow>& x) { return x && x->count ? std::to_string(x->count) : std::string("-"); };
  c.samples = (r.old_row && r.new_row) ? count(r.old_row) + " vs " + count(r.new_row) : count(r.old_row ? r.old_row : r.new_row);
  if (r.on_passes) c.samples = std::to_string(r.test.n1) + " vs " + std::to_string(r.test.n2) + " passes";
  c.verdict = std::string(verdict_name(r.verdict));
  if (r.verdict == Verdict::only_new && r.new_row && r.new_row->failing()) c.verdict += ", " + std::string(status_name(r.new_row->row.status));
  if (!r.why.empty()) c.verdict += " (" + r.why + ")";
  if (!r.old_variant.empty()) c.verdict += " [was " + r.old_variant + "]";
  return c;
}

// Rows grouped by problem, in first-appearance order.
std::vector<std::vector<const DiffRow*>> problems(const DiffResult& d, bool only_changed) {
  std::vector<std::vector<const DiffRow*>> groups;
  std::map<std::string, std::size_t> index;
  for (const DiffRow& r : d.rows) {
    if (only_changed && !r.changed) continue;
    const auto [it, fresh] = index.try_emplace(problem_key(r), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&r);
  }
  return groups;
}

std::string run_line(const RunFile& f) {
  std::string s = f.label;
  if (!f.meta.git_commit.empty()) s += "  commit " + f.meta.git_commit;
  if (!f.meta.timestamp_utc.empty()) s += "  " + f.meta.timestamp_utc;
  if (!f.meta.device.name.empty()) s += "  " + f.meta.device.name;
  if (f.schema_version == 1) s += "  (schema 1)";
  if (f.meta.passes > 1 || f.meta.processes > 1)
    s += "  " + counted(static_cast<std::size_t>(f.meta.passes), "pass", "passes") + " in " +
         counted(static_cast<std::size_t>(f.meta.processes), "process", "processes");
  if (f.dirty()) s += "  (DIRTY: uncommitted changes)";
  return s;
}

std::string renames_line(const DiffResult& d) {
  if (d.options.renames.empty()) return "renames: none applied (--no-renames)";
  return "renames: " + counted(d.renamed_pairs, "row") + " paired through " + d.options.renames_source + " (" +
         counted(d.options.renames.size(), "rename") + ")";
}

std::string method_line(const DiffResult& d) {
  std::size_t m = 0, passes = 0, floored = 0;
  for (const DiffRow& r : d.rows) {
    m += r.tested;
    passes += r.tested && r.on_passes;
    floored += r.floored;
  }
  char floor_us[32];
  std::snprintf(floor_us, sizeof floor_us, "%g", d.options.run_floor_us);
  const std::string test = passes == m && m ? "a t test on the runs' per-pass medians (log scale; Student's pooled "
                                               "t where both sides have as many passes, else Welch's)"
                           : passes        ? "a t test on the per-pass medians (" + std::to_string(passes) +
                                         " rows) or the two-sided Mann-Whitney U test on the samples (the rest)"
                                           : "the two-sided Mann-Whitney U test on the samples";
  return "a change counts when " + test + " gives p < " + alpha_text(d.options.alpha) +
         (m > 1 ? " (Holm-adjusted over the " + std::to_string(m) + " rows tested)" : std::string()) +
         " and the medians differ by more than " + percent(d.options.threshold) +
         (floored ? " (rows of one process a side: or the quieter run's noise, whichever is larger, plus the run floor " +
                        std::string(floor_us) + " us over the faster median)"
                  : std::string()) +
         (d.control_used ? "; a hand-written row must change both raw and against its problem's library rows "
                           "(column '/lib'), the same way"
                         : std::string());
}

const char* const kLegend =
    "new/old: ratio of the medians; /lib: new/old divided by the library's new/old in the same problem ('-': "
    "judged raw); speed: 1/r - 1 (+ = faster) for r the ratio judged (of new/old and /lib the one nearer 1; none "
    "when they disagree); p: the test's p-value (the U test on the samples, or the t test on the per-pass medians; "
    "with /lib the larger of the two tests'), Holm-adjusted; "
    "'?': not testable (no samples, or too few), judged by the threshold alone; samples: 'N vs M passes' where the "
    "test was on per-pass medians";

// device_state of both runs, key by key: "key: old -> new" (or one value when equal).
std::vector<std::string> state_lines(const DiffResult& d) {
  std::vector<std::string> keys;
  std::map<std::string, std::pair<std::string, std::string>> vals;
  for (const auto& [k, v] : d.old_run.device_state) {
    if (!vals.count(k)) keys.push_back(k);
    vals[k].first = v;
  }
  for (const auto& [k, v] : d.new_run.device_state) {
    if (!vals.count(k)) keys.push_back(k);
    vals[k].second = v;
  }
  std::vector<std::string> out;
  for (const auto& k : keys) {
    const auto& [o, n] = vals[k];
    const std::string os = o.empty() ? "-" : o, ns = n.empty() ? "-" : n;
    out.push_back(k + ": " + (os == ns ? os : os + " -> " + ns));
  }
  return out;
}

std::string summary_line(const DiffResult& d) {
  std::string s = counted(d.rows.size(), "row") + ":";
  bool first = true;
  for (Verdict v : {Verdict::slower, Verdict::faster, Verdict::same, Verdict::maybe_slower, Verdict::maybe_faster,
                    Verdict::unknown, Verdict::now_failing, Verdict::fixed, Verdict::still_failing, Verdict::now_skipped,
                    Verdict::now_runs, Verdict::skipped, Verdict::only_old, Verdict::only_new}) {
    const std::size_t c = d.count(v);
    if (!c) continue;
    s += (first ? " " : ", ") + std::to_string(c) + " " + std::string(verdict_name(v));
    first = false;
  }
  return s;
}

std::string outcome_line(const DiffResult& d) {
  if (!d.input_failures.empty()) {
    std::string s = "the comparison fails: ";
    for (std::size_t i = 0; i < d.input_failures.size(); ++i) s += (i ? "; " : "") + d.input_failures[i];
    return s + " (exit status 2; --allow-incomplete judges the rows there are)";
  }
  const std::size_t regress = d.regressions(), library = d.library_regressions();
  std::size_t slower = 0;
  for (const DiffRow& r : d.rows) slower += r.gates && r.verdict == Verdict::slower;
  const std::string control =
      library ? "; " + counted(library, "library row") + " slower or failing, the control: not counted (--gate-library counts them)"
              : std::string();
  if (!regress) return "no regression (exit status 0)" + control;
  return counted(regress, "regression") + ": " + std::to_string(slower) + " significantly slower, " +
         std::to_string(regress - slower) + " newly failing (exit status 1)" + control;
}

}  // namespace

void print_diff(std::ostream& os, const DiffResult& d, bool only_changed) {
  os << "compare diff\n  OLD: " << run_line(d.old_run) << "\n  NEW: " << run_line(d.new_run) << '\n';
  os << "  " << method_line(d) << '\n';
  os << "  " << renames_line(d) << '\n';
  for (const auto& f : d.input_failures) os << "error: " << f << '\n';
  for (const auto& w : d.warnings) os << "warning: " << w << '\n';
  const auto state = state_lines(d);
  if (!state.empty()) {
    os << "device state (OLD -> NEW):\n";
    for (const auto& l : state) os << "  " << l << '\n';
  }
  const auto groups = problems(d, only_changed);
  const std::vector<std::string> heads = {"variant", "old", "new", "new/old", "/lib", "speed", "p", "samples", "verdict"};
  const std::vector<bool> left = {true, false, false, false, false, false, false, false, true};
  for (const auto& g : groups) {
    os << '\n' << g.front()->family << "  " << g.front()->dtype << "  " << g.front()->shape << '\n';
    std::vector<std::vector<std::string>> table = {heads};
    for (const DiffRow* r : g) {
      const Cells c = cells_of(*r);
      table.push_back({c.variant, c.old_t, c.new_t, c.ratio, c.adjusted, c.speed, c.p, c.samples, c.verdict});
    }
    std::vector<std::size_t> w(heads.size(), 0);
    for (const auto& row : table)
      for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
    for (const auto& row : table) {
      std::string line = " ";
      for (std::size_t i = 0; i < row.size(); ++i) {
        const std::string pad(w[i] - row[i].size(), ' ');
        line += ' ' + (left[i] ? row[i] + (i + 1 < row.size() ? pad : "") : pad + row[i]);
      }
      os << line << '\n';
    }
  }
  if (groups.empty()) os << '\n' << (only_changed ? "no changes\n" : "no rows\n");
  os << "\n  " << kLegend << "\n\n" << summary_line(d) << '\n' << outcome_line(d) << '\n';
}

std::string diff_markdown(const DiffResult& d, bool only_changed) {
  std::ostringstream os;
  auto md = [](std::string s) {  // keep a cell in its column
    std::string o;
    for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  os << "# compare diff\n\n";
  for (const RunFile* f : {&d.old_run, &d.new_run}) {
    const RunMeta& m = f->meta;
    os << "- " << (f == &d.old_run ? "OLD" : "NEW") << ": `" << f->label << '`'
       << (m.git_commit.empty() ? "" : ", commit `" + m.git_commit + '`')
       << (f->dirty() ? " (**dirty**: uncommitted changes)" : "") << (m.timestamp_utc.empty() ? "" : ", " + m.timestamp_utc)
       << (m.device.name.empty() ? "" : ", " + m.device.name)
       << (m.passes > 1 || m.processes > 1 ? ", " + counted(static_cast<std::size_t>(m.passes), "pass", "passes") + " in " +
                                                 counted(static_cast<std::size_t>(m.processes), "process", "processes")
                                           : std::string())
       << '\n';
  }
  os << "- " << method_line(d) << '\n';
  os << "- " << renames_line(d) << '\n';
  os << "- " << summary_line(d) << "; " << outcome_line(d) << '\n';
  for (const auto& f : d.input_failures) os << "\n> **Error:** " << md(f) << '\n';
  for (std::size_t i = 0; i < d.warnings.size(); ++i)
    os << (i ? ">\n" : "\n") << "> **Warning:** " << md(d.warnings[i]) << '\n';
  const auto state = state_lines(d);
  if (!state.empty()) {
    os << "\nDevice state (OLD -> NEW):\n\n";
    for (const auto& l : state) os << "- " << md(l) << '\n';
  }
  const auto groups = problems(d, only_changed);
  for (const auto& g : groups) {
    os << "\n## " << g.front()->family << ' ' << g.front()->dtype << ' ' << md(g.front()->shape) << "\n\n";
    os << "| variant | old | new | new/old | /lib | speed | p | samples | verdict |\n";
    os << "|---|--:|--:|--:|--:|--:|--:|--:|---|\n";
    for (const DiffRow* r : g) {
      const Cells c = cells_of(*r);
      const bool bold = r->gates;
      os << "| `" << md(r->variant) << '`' << (r->library ? " (library)" : "") << " | " << md(c.old_t) << " | "
         << md(c.new_t) << " | " << c.ratio << " | " << c.adjusted << " | " << c.speed << " | " << c.p << " | " << c.samples << " | "
         << (bold ? "**" : "") << md(c.verdict) << (bold ? "**" : "") << " |\n";
    }
  }
  if (groups.empty()) os << '\n' << (only_changed ? "No changes.\n" : "No rows.\n");
  os << '\n' << kLegend << '\n';
  return os.str();
}

}  // namespace kl
