// The comparison: rows matched by key, each judged (U test, Holm's adjustment, threshold, the
// library as a control), the verdicts and the exit status.
#include "compare/diff/diff.hpp"
#include "compare/diff/text.hpp"
#include "compare/diff/ttest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace kl {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::slower: return "SLOWER";
    case Verdict::faster: return "faster";
    case Verdict::same: return "same";
    case Verdict::maybe_slower: return "slower?";
    case Verdict::maybe_faster: return "faster?";
    case Verdict::unknown: return "same?";
    case Verdict::now_failing: return "NOW FAILING";
    case Verdict::fixed: return "fixed";
    case Verdict::still_failing: return "failing";
    case Verdict::now_skipped: return "now skipped";
    case Verdict::now_runs: return "now runs";
    case Verdict::skipped: return "skipped";
    case Verdict::only_old: return "only in OLD";
    case Verdict::only_new: return "only in NEW";
  }
  return "?";
}

std::size_t DiffResult::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [&](const DiffRow& r) { return r.verdict == v; }));
}

std::size_t DiffResult::regressions() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) { return r.regression && r.gates; }));
}

std::size_t DiffResult::library_regressions() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) { return r.regression && !r.gates; }));
}

namespace {

using namespace diff_text;

// The key rows pair on; `variant` given: that name in place of the row's own.
std::string row_key(const Row& r, const std::string& variant = {}) {
  return r.family + '\x1f' + r.dtype + '\x1f' + r.shape + '\x1f' + (variant.empty() ? r.variant : variant);
}

// Logarithms: pass medians are compared on the ratio scale, where a run's shift is one size
// for a fast and a slow pass alike.
std::vector<double> logs(const std::vector<double>& v, double factor = 1.0) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(std::log(x * factor));
  return out;
}

// The t test on the pass medians (pass_t: Student's or Welch's), as a UTest for the rest of the
// judging: min_p is 0 (a t test can always reach significance) unless neither side has any
// spread and their means agree.
UTest pass_test(const std::vector<double>& o, const std::vector<double>& n, double carried_by = 1.0) {
  const WelchTest w = pass_t(logs(o, carried_by), logs(n));
  UTest t;
  t.ran = w.ran;
  t.n1 = w.n1;
  t.n2 = w.n2;
  t.p = w.p;
  t.z = w.t;
  t.min_p = w.ran && w.p >= 1.0 && w.t == 0 ? 1.0 : 0.0;
  t.why_not = w.why_not;
  return t;
}

// The run's own samples: the U test, against the library's ratio too where there is a control.
UTest sample_test(const RunRow& o, const RunRow& n, double control) {
  UTest t = mann_whitney_u(o.samples, n.samples);
  if (control > 0 && t.ran) {
    // H0 of the second test: the variant moved as its problem's library did (OLD's samples
    // carried to NEW's conditions by the library's ratio). Both must reject: the
    // intersection-union test, whose p-value is the larger of the two.
    std::vector<double> carried(o.samples);
    for (double& x : carried) x *= control;
    const UTest c = mann_whitney_u(carried, n.samples);
    t.p = std::max(t.p, c.p);
    t.min_p = std::max(t.min_p, c.min_p);
  }
  return t;
}

// What the judging needs of the two runs beyond their rows.
struct Runs {
  int processes_old = 1, processes_new = 1;
};

// Both sides' passes came from enough separate processes for the pass test to have seen what
// differs between processes (diff.hpp, 3a).
bool processes_sampled(const DiffRow& d, const DiffOptions& opt, const Runs& runs) {
  return d.on_passes && runs.processes_old >= opt.min_processes && runs.processes_new >= opt.min_processes;
}

// The change the row must exceed: --threshold, and unless the processes were sampled, the
// quieter run's noise and the run floor (diff.hpp, 3).
double row_threshold(DiffRow& d, const RunRow& o, const RunRow& n, const DiffOptions& opt, const Runs& runs) {
  if (processes_sampled(d, opt, runs)) return opt.threshold;
  d.floored = opt.run_floor_us > 0;
  const double faster_us = std::min(o.median, n.median) * 1e3;
  return std::max(opt.threshold, std::min(o.noise, n.noise)) + (d.floored ? opt.run_floor_us / faster_us : 0.0);
}

// Two timed rows, both ok. A row that can be tested is marked `tested` and decided later, once
// every row's p-value is known (decide_tested); the others are decided here.
void judge_timing(DiffRow& d, const RunRow& o, const RunRow& n, const DiffOptions& opt, const Runs& runs) {
  if (!o.has_timing || !n.has_timing) {
    d.verdict = Verdict::unknown;
    d.why = "no timing";
    return;
  }
  d.raw_ratio = n.median / o.median;
  d.ratio = d.raw_ratio;
  if (d.control > 0) {
    // Changed only if it changed both raw and against the library, the same way; the ratio
    // judged is the one nearer 1 (no change at all when they disagree in sign).
    const double c = d.raw_ratio / d.control;
    const bool same_side = (d.raw_ratio > 1) == (c > 1);
    d.ratio = !same_side ? 1.0 : std::fabs(c - 1.0) < std::fabs(d.raw_ratio - 1.0) ? c : d.raw_ratio;
  }
  d.on_passes = o.pass_medians.size() >= opt.min_passes && n.pass_medians.size() >= opt.min_passes;
  d.threshold = row_threshold(d, o, n, opt, runs);
  if (d.on_passes) {
    d.test = pass_test(o.pass_medians, n.pass_medians);
    if (d.control > 0 && d.test.ran) {  // the intersection-union test, as sample_test's
      const UTest c = pass_test(o.pass_medians, n.pass_medians, d.control);
      d.test.p = std::max(d.test.p, c.p);
      d.test.min_p = std::max(d.test.min_p, c.min_p);
    }
  } else if (o.has_samples && n.has_samples) {
    d.test = sample_test(o, n, d.control);
  } else {
    d.why = "no samples in " + std::string(!o.has_samples ? "OLD" : "NEW");
  }
  if (o.has_samples && n.has_samples) {
    d.tested = d.test.ran && d.test.min_p < opt.alpha;
    d.too_few = d.test.ran && !d.tested && d.test.min_p < 1.0;
    if (!d.test.ran) d.why = d.test.why_not;
    else if (d.too_few)
      d.why = "too few samples: " + std::to_string(d.test.n1) + " vs " + std::to_string(d.test.n2) +
              " cannot reach p < " + alpha_text(opt.alpha);
  } else if (d.on_passes) {  // passes without samples (merged from schema-1 reports): still testable
    d.tested = d.test.ran && d.test.min_p < opt.alpha;
    d.why.clear();
  }
  if (d.test.ran && d.test.min_p >= 1.0) {  // every sample (or pass) of both runs has the same value
    d.verdict = Verdict::same;
    d.why.clear();
    return;
  }
  if (!d.tested) {
    const bool beyond = std::fabs(d.ratio - 1.0) > d.threshold;
    d.verdict = !beyond ? Verdict::unknown : d.ratio > 1 ? Verdict::maybe_slower : Verdict::maybe_faster;
  }
}

// Holm's step-down adjustment (S. Holm, "A simple sequentially rejective multiple test
// procedure", Scand. J. Statist. 6, 1979) over the tested rows: the i-th smallest of m p-values
// is multiplied by m - i + 1, kept monotone. Rejecting where the adjusted p < alpha keeps the
// chance of flagging ANY row of two runs of the same code at most alpha, however many rows
// there are; a row's own U test alone would flag alpha of the unchanged rows.
void decide_tested(std::vector<DiffRow>& rows, const DiffOptions& opt) {
  std::vector<DiffRow*> tested;
  for (DiffRow& r : rows)
    if (r.tested) tested.push_back(&r);
  std::stable_sort(tested.begin(), tested.end(), [](const DiffRow* a, const DiffRow* b) { return a->test.p < b->test.p; });
  const std::size_t m = tested.size();
  double running = 0;
  for (std::size_t i = 0; i < m; ++i) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - i) * tested[i]->test.p));
    tested[i]->p_adjusted = running;
  }
  for (DiffRow* d : tested) {
    const bool significant = d->p_adjusted < opt.alpha;
    const bool beyond = std::fabs(d->ratio - 1.0) > d->threshold;
    // Even the most extreme samples could not have passed the adjustment (a few samples among
    // many rows): say so rather than call it the same.
    if (!significant && d->test.min_p * static_cast<double>(m) >= opt.alpha) {
      d->too_few = true;
      d->why = "too few samples: " + std::to_string(d->test.n1) + " vs " + std::to_string(d->test.n2) +
               " among " + std::to_string(m) + " rows";
      d->verdict = !beyond ? Verdict::unknown : d->ratio > 1 ? Verdict::maybe_slower : Verdict::maybe_faster;
      continue;
    }
    if (significant && beyond) {
      d->verdict = d->ratio > 1 ? Verdict::slower : Verdict::faster;
      d->regression = d->verdict == Verdict::slower;
    } else {
      d->verdict = Verdict::same;
      if (significant) d->why = "within " + percent(d->threshold) + (d->floored ? " with the run floor" : "");
      else if (beyond) d->why = "not significant";
    }
  }
}

void judge(DiffRow& d, const DiffOptions& opt, const Runs& runs) {
  const bool has_old = d.old_row.has_value(), has_new = d.new_row.has_value();
  if (!has_old) {
    d.verdict = Verdict::only_new;
    d.regression = d.new_row->failing();  // a new variant that fails is a new failure
    if (d.regression && !d.new_row->row.note.empty()) d.why = d.new_row->row.note;
    return;
  }
  if (!has_new) {
    d.verdict = Verdict::only_old;
    return;
  }
  const RunRow &o = *d.old_row, &n = *d.new_row;
  if (o.failing() && n.failing()) {
    d.verdict = Verdict::still_failing;
  } else if (n.failing()) {
    d.verdict = Verdict::now_failing;
    d.regression = true;
  } else if (o.failing()) {
    d.verdict = n.ok() ? Verdict::fixed : Verdict::now_skipped;
  } else if (o.skipped() || n.skipped()) {
    d.verdict = o.skipped() && n.skipped() ? Verdict::skipped : n.skipped() ? Verdict::now_skipped : Verdict::now_runs;
  } else {
    judge_timing(d, o, n, opt, runs);
  }
  if (n.failing() && !n.row.note.empty()) d.why = n.row.note;
}

bool is_change(Verdict v) {
  switch (v) {
    case Verdict::same:
    case Verdict::unknown:
    case Verdict::still_failing:
    case Verdict::skipped: return false;
    default: return true;
  }
}

// How the noise between runs was accounted for, where it was not by separate processes.
void add_pass_warnings(DiffResult& d) {
  std::size_t floored = 0, one_process = 0;
  for (const DiffRow& r : d.rows) {
    floored += r.floored;
    one_process += r.floored && r.on_passes;
  }
  if (!floored) return;
  char us[32];
  std::snprintf(us, sizeof us, "%g", d.options.run_floor_us);
  std::string w = counted(floored, "row") + " judged with the run floor (" + us +
                  " us over the faster median, added to the threshold): ";
  if (one_process)
    w += "their passes came from fewer than " + std::to_string(d.options.min_processes) +
         " separate processes a side, which do not sample what differs between processes";
  else
    w += "a run of one pass cannot tell its own shift from a change; for small kernels, compare separate runs "
         "(scripts/ab.sh)";
  d.warnings.push_back(w);
}

void add_warnings(DiffResult& d) {
  const RunFile &o = d.old_run, &n = d.new_run;
  auto shown = [](const std::string& v) { return v.empty() ? std::string("(not recorded)") : "'" + v + "'"; };
  for (std::size_t i = 0; i < o.environment.size() && i < n.environment.size(); ++i) {
    const auto& [what, ov] = o.environment[i];
    const std::string& nv = n.environment[i].second;
    if (ov != nv) d.warnings.push_back("the runs differ in " + what + ": " + shown(ov) + " (OLD) vs " + shown(nv) + " (NEW)");
  }
  for (const RunFile* f : {&o, &n}) {
    const std::string side = f == &o ? "OLD" : "NEW";
    if (f->meta.incomplete) {
      const std::string what = side + " is an incomplete run" +
                               (f->meta.incomplete_reason.empty() ? "" : " (" + f->meta.incomplete_reason + ")") +
                               ": the rows it lacks were never judged";
      if (d.options.allow_incomplete) d.warnings.push_back(what + " (--allow-incomplete)");
      else d.input_failures.push_back(what);
    }
    if (f->dirty())
      d.warnings.push_back(side + "'s commit " + f->meta.git_commit + " was built from a tree with uncommitted changes: "
                           "its code is not exactly that commit's");
  }
  add_pass_warnings(d);
  for (const RunFile* f : {&o, &n})
    if (f->schema_version > kReportSchemaVersion)
      d.warnings.push_back(std::string(f == &o ? "OLD" : "NEW") + " has schema " + std::string(kReportSchemaName) + "/" +
                           std::to_string(f->schema_version) + ", newer than this tool: read as schema " +
                           std::to_string(kReportSchemaVersion));
  if (d.options.control && !d.control_used)
    d.warnings.push_back("the runs' GPU or library versions differ, so the library is no control: every row is "
                         "judged on its raw change");
  std::size_t untested = 0, too_few = 0;
  for (const DiffRow& r : d.rows) {
    if (!r.old_row || !r.new_row || !r.old_row->has_timing || !r.new_row->has_timing || !r.old_row->ok() ||
        !r.new_row->ok())
      continue;
    if (!r.old_row->has_samples || !r.new_row->has_samples) ++untested;
    else if (!r.test.ran || r.too_few) ++too_few;
  }
  if (untested)
    d.warnings.push_back(counted(untested, "row") + " without samples (a schema-1 report): significance is not "
                         "tested there; changes beyond the threshold are marked '?' and do not fail the comparison");
  if (too_few)
    d.warnings.push_back(counted(too_few, "row") + " with too few samples for the U test to reach p < " +
                         alpha_text(d.options.alpha) + " (among this many rows); Google Benchmark recommends 9 or more, "
                         "raise compare's --min-samples");
}

bool ok_timed(const std::optional<RunRow>& r) { return r && r->ok() && r->has_timing; }

std::string environment_value(const RunFile& f, const std::string& what) {
  for (const auto& [k, v] : f.environment)
    if (k == what) return v;
  return "";
}

// The library's code is the same in both runs only when its versions (and the GPU) match.
bool library_versions_match(const RunFile& o, const RunFile& n) {
  for (const char* what : {"GPU", "cuBLAS", "CCCL"})
    if (environment_value(o, what) != environment_value(n, what)) return false;
  return true;
}

// Each problem's control: the median of its library rows' ratios (rows ok and timed in both
// runs); the problem's hand-written rows are judged against it.
void set_controls(std::vector<DiffRow>& rows) {
  std::map<std::string, std::vector<double>> lib;
  for (const DiffRow& r : rows)
    if (r.library && ok_timed(r.old_row) && ok_timed(r.new_row))
      lib[problem_key(r)].push_back(r.new_row->median / r.old_row->median);
  for (DiffRow& r : rows) {
    if (r.library) continue;
    const auto it = lib.find(problem_key(r));
    if (it == lib.end()) continue;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size();
    r.control = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
  }
}

// Names a NEW row's variant may have had in OLD: the old names renamed to it, and (OLD being the
// newer report) the new name it was renamed to.
std::vector<std::string> other_names(const std::string& variant, const Renames& renames) {
  std::vector<std::string> names;
  for (const auto& [from, to] : renames)
    if (to == variant) names.push_back(from);
  if (const auto it = renames.find(variant); it != renames.end()) names.push_back(it->second);
  return names;
}

// Rows of NEW that paired with nothing, paired with an unpaired OLD row of the same problem whose
// variant is a renamed form of theirs. Returns how many.
std::size_t pair_renamed(std::vector<DiffRow>& rows, std::vector<RunRow>& old_rows,
                         const std::map<std::string, std::vector<std::size_t>>& old_index, std::vector<bool>& old_used,
                         const Renames& renames) {
  if (renames.empty()) return 0;
  std::size_t paired = 0;
  for (DiffRow& x : rows) {
    if (x.old_row) continue;
    for (const std::string& name : other_names(x.variant, renames)) {
      const auto it = old_index.find(row_key(x.new_row->row, name));
      if (it == old_index.end()) continue;
      const auto free = std::find_if(it->second.begin(), it->second.end(), [&](std::size_t i) { return !old_used[i]; });
      if (free == it->second.end()) continue;
      old_used[*free] = true;
      x.old_row = std::move(old_rows[*free]);
      x.old_variant = name;
      ++paired;
      break;
    }
  }
  return paired;
}

}  // namespace

DiffResult diff_runs(RunFile old_run, RunFile new_run, const DiffOptions& options) {
  DiffResult d;
  d.options = options;
  d.old_rows = old_run.rows.size();
  d.new_rows = new_run.rows.size();
  // Matched by key and by occurrence, so a problem listed twice in one run pairs up in order.
  std::map<std::string, std::vector<std::size_t>> old_index;
  for (std::size_t i = 0; i < old_run.rows.size(); ++i) old_index[row_key(old_run.rows[i].row)].push_back(i);
  std::map<std::string, std::size_t> taken;
  std::vector<bool> old_used(old_run.rows.size(), false);
  auto start_row = [](const RunRow& r) {
    DiffRow x;
    x.family = r.row.family, x.dtype = r.row.dtype, x.shape = r.row.shape, x.variant = r.row.variant;
    x.library = r.library();
    return x;
  };
  for (RunRow& nr : new_run.rows) {
    DiffRow x = start_row(nr);
    const std::string key = row_key(nr.row);
    const auto it = old_index.find(key);
    std::size_t& k = taken[key];
    if (it != old_index.end() && k < it->second.size()) {
      const std::size_t oi = it->second[k++];
      old_used[oi] = true;
      x.old_row = std::move(old_run.rows[oi]);
    }
    x.new_row = std::move(nr);
    d.rows.push_back(std::move(x));
  }
  d.renamed_pairs = pair_renamed(d.rows, old_run.rows, old_index, old_used, options.renames);
  for (std::size_t i = 0; i < old_run.rows.size(); ++i) {
    if (old_used[i]) continue;
    DiffRow x = start_row(old_run.rows[i]);
    x.old_row = std::move(old_run.rows[i]);
    d.rows.push_back(std::move(x));
  }
  d.control_used = options.control && library_versions_match(old_run, new_run);
  if (d.control_used) set_controls(d.rows);
  const Runs runs{old_run.meta.processes, new_run.meta.processes};
  for (DiffRow& r : d.rows) judge(r, options, runs);
  decide_tested(d.rows, options);
  for (DiffRow& r : d.rows) {
    r.changed = is_change(r.verdict);
    r.gates = r.regression && (!r.library || options.gate_library);
    if (r.regression && !r.gates) r.why += std::string(r.why.empty() ? "" : "; ") + "library: not counted";
  }
  old_run.rows.clear();
  new_run.rows.clear();
  d.old_run = std::move(old_run);
  d.new_run = std::move(new_run);
  add_warnings(d);
  return d;
}

int diff_exit_code(const DiffResult& d) {
  if (!d.input_failures.empty()) return 2;
  return d.regressions() > 0 ? 1 : 0;
}

}  // namespace kl
