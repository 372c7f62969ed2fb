#include "compare/diff/diff.hpp"

#include "compare/report/report.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

namespace kl {

// ---- the Mann-Whitney U test --------------------------------------------------------------
//
// Both samples are ranked together; tied values share the mean of their ranks (midranks).
// Midranks are kept doubled, so every rank and rank sum is an integer and the exact
// distribution can be indexed by it.

namespace {

struct TieGroup {
  long long rank2;   // doubled midrank of the group
  std::size_t size;  // values in the group
  std::size_t in_a;  // of which from the first sample
};

std::vector<TieGroup> rank_groups(std::span<const double> a, std::span<const double> b) {
  std::vector<std::pair<double, bool>> all;  // (value, from a)
  all.reserve(a.size() + b.size());
  for (double x : a) all.emplace_back(x, true);
  for (double x : b) all.emplace_back(x, false);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<TieGroup> groups;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i, in_a = 0;
    while (j < all.size() && all[j].first == all[i].first) in_a += all[j++].second;
    // 1-based ranks i+1 .. j: midrank (i+1+j)/2, doubled i+1+j.
    groups.push_back({static_cast<long long>(i + 1 + j), j - i, in_a});
    i = j;
  }
  return groups;
}

// The exact null distribution of the doubled rank sum of a sample of `k` values drawn without
// replacement from the pooled, tied ranks (the permutation distribution conditional on the
// ties observed, as in Hollander & Wolfe, Nonparametric Statistical Methods, ch. 4). Counts
// ways[j][s]: subsets of j values with doubled rank sum s, built group by group: taking c of a
// group's t values adds c * rank2 and can be done in C(t, c) ways.
std::vector<double> exact_rank_sum_counts(const std::vector<TieGroup>& groups, std::size_t k, long long max_sum) {
  const std::size_t width = static_cast<std::size_t>(max_sum) + 1;
  std::vector<double> ways((k + 1) * width, 0.0);
  ways[0] = 1.0;
  for (const TieGroup& g : groups) {
    // Descending j: a source row is read before anything is added to it for this group.
    for (std::size_t j = k + 1; j-- > 0;) {
      double binom = 1.0;  // C(t, c)
      for (std::size_t c = 1; c <= g.size && j + c <= k; ++c) {
        binom = binom * static_cast<double>(g.size - c + 1) / static_cast<double>(c);
        const long long shift = static_cast<long long>(c) * g.rank2;
        const double* src = &ways[j * width];
        double* dst = &ways[(j + c) * width];
        for (long long s = 0; s + shift <= max_sum; ++s)
          if (src[s] != 0.0) dst[s + shift] += src[s] * binom;
      }
    }
  }
  return {ways.begin() + static_cast<std::ptrdiff_t>(k * width), ways.end()};
}

// Upper tail of the standard normal, two-sided: P(|Z| >= |z|).
double two_sided_normal_p(double z) { return std::min(1.0, std::erfc(std::fabs(z) / std::sqrt(2.0))); }

}  // namespace

UTest mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  UTest t;
  t.n1 = a.size();
  t.n2 = b.size();
  if (t.n1 < 2 || t.n2 < 2) {
    t.why_not = "fewer than 2 samples in a run";
    return t;
  }
  const std::vector<TieGroup> groups = rank_groups(a, b);
  const std::size_t n = t.n1 + t.n2;
  long long r1_2 = 0;  // doubled rank sum of a
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (const TieGroup& g : groups) {
    r1_2 += g.rank2 * static_cast<long long>(g.in_a);
    const double s = static_cast<double>(g.size);
    tie_term += s * s * s - s;
  }
  const double n1 = static_cast<double>(t.n1), n2 = static_cast<double>(t.n2);
  t.u1 = static_cast<double>(r1_2) / 2.0 - n1 * (n1 + 1) / 2.0;
  t.u2 = n1 * n2 - t.u1;
  t.ran = true;

  const bool a_smaller = t.n1 <= t.n2;
  const std::size_t k = a_smaller ? t.n1 : t.n2;
  if (k * n <= kUTestExactLimit) {
    t.exact = true;
    // Statistic: the doubled rank sum w of the smaller sample; its mean is k(N+1), and the
    // distribution is symmetric about it, so "as or more extreme" is |w - mean| >= observed.
    const long long total2 = static_cast<long long>(n) * static_cast<long long>(n + 1);
    const long long w = a_smaller ? r1_2 : total2 - r1_2;
    const long long mean2 = static_cast<long long>(k) * static_cast<long long>(n + 1);
    const long long max_sum = 2 * static_cast<long long>(k) * static_cast<long long>(n);
    const std::vector<double> ways = exact_rank_sum_counts(groups, k, max_sum);
    const long long observed = std::llabs(w - mean2);
    double all = 0, extreme = 0;
    long long widest = 0;
    for (long long s = 0; s <= max_sum; ++s) {
      if (ways[s] == 0.0) continue;
      all += ways[s];
      widest = std::max(widest, std::llabs(s - mean2));
      if (std::llabs(s - mean2) >= observed) extreme += ways[s];
    }
    double at_widest = 0;
    for (long long s = 0; s <= max_sum; ++s)
      if (ways[s] != 0.0 && std::llabs(s - mean2) >= widest) at_widest += ways[s];
    t.p = std::min(1.0, extreme / all);
    t.min_p = std::min(1.0, at_widest / all);
    return t;
  }

  // Normal approximation: mean n1 n2 / 2, variance n1 n2 / 12 * ((N+1) - sum(t^3-t) / (N(N-1)))
  // (the tie correction), and 0.5 toward the mean (the continuity correction): what scipy's
  // method='asymptotic' and R's wilcox.test(correct=TRUE) compute.
  const double nn = static_cast<double>(n);
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (!(var > 0)) {  // every value equal: nothing can tell the runs apart
    t.p = 1;
    t.min_p = 1;
    return t;
  }
  const double sd = std::sqrt(var);
  const double dev = t.u1 - mu;
  t.z = (dev > 0 ? 1 : -1) * std::max(0.0, std::fabs(dev) - 0.5) / sd;
  t.p = two_sided_normal_p(t.z);
  t.min_p = two_sided_normal_p((mu - 0.5) / sd);
  return t;
}

// ---- reading compare's JSON ---------------------------------------------------------------

namespace {

// Ordered, so device_state's keys come out in the order the runner wrote them.
using json = nlohmann::ordered_json;

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  if (v.is_null()) return "null";
  return v.dump();
}

// The value at a dotted path, "" when absent.
std::string field_text(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object() || !cur->contains(key)) return "";
    cur = &(*cur)[key];
  }
  return cur->is_null() ? "" : scalar_text(*cur);
}

void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(prefix, scalar_text(j));
  }
}

bool finite_number(const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }

std::string required_string(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || !row[key].is_string())
    throw DiffInputError(where + ": a row has no \"" + key + "\" (not a compare report?)");
  return row[key].get<std::string>();
}

RunRow parse_row(const json& r, const std::string& where) {
  if (!r.is_object()) throw DiffInputError(where + ": \"results\" holds something that is not a row");
  RunRow row;
  row.family = required_string(r, "family", where);
  row.dtype = required_string(r, "dtype", where);
  row.shape = required_string(r, "shape", where);
  row.variant = required_string(r, "variant", where);
  row.status = required_string(r, "status", where);
  row.source = r.value("source", std::string("handwritten"));
  if (r.contains("note") && r["note"].is_string()) row.note = r["note"].get<std::string>();
  if (r.contains("timing_ms") && r["timing_ms"].is_object()) {
    const json& t = r["timing_ms"];
    if (t.contains("median") && finite_number(t["median"]) && t["median"].get<double>() > 0) {
      row.has_timing = true;
      row.median = t["median"].get<double>();
      if (t.contains("noise") && finite_number(t["noise"])) row.noise = std::max(0.0, t["noise"].get<double>());
    }
    if (t.contains("samples") && t["samples"].is_array()) {
      row.has_samples = true;
      for (const json& s : t["samples"])
        if (finite_number(s)) row.samples.push_back(s.get<double>());
      row.count = row.samples.size();
    } else if (t.contains("samples") && t["samples"].is_number_unsigned()) {
      row.count = t["samples"].get<std::size_t>();  // schema 1: a count, no values
    }
    if (t.contains("count") && t["count"].is_number_unsigned() && !row.has_samples) row.count = t["count"].get<std::size_t>();
  }
  return row;
}

}  // namespace

RunFile parse_run(std::string_view text, const std::string& label) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // nlohmann's message is one line: "[json.exception.parse_error.101] parse error at line 1, ..."
    std::string what = e.what();
    const auto pos = what.find("] ");
    throw DiffInputError(label + ": not JSON (" + (pos == std::string::npos ? what : what.substr(pos + 2)) + ")");
  }
  const std::string prefix = "kernel-ladder/compare/";
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>().rfind(prefix, 0) != 0)
    throw DiffInputError(label + ": not a compare report (no \"schema\": \"" + prefix + "N\")");
  RunFile f;
  f.label = label;
  f.schema = j["schema"].get<std::string>();
  try {
    f.schema_version = std::stoi(f.schema.substr(prefix.size()));
  } catch (const std::exception&) {
    throw DiffInputError(label + ": unknown schema '" + f.schema + "'");
  }
  if (f.schema_version < 1) throw DiffInputError(label + ": unknown schema '" + f.schema + "'");
  if (!j.contains("results") || !j["results"].is_array())
    throw DiffInputError(label + ": no \"results\" array (not a compare report?)");
  f.commit = field_text(j, {"git_commit"});
  f.timestamp = field_text(j, {"timestamp_utc"});
  f.command_line = field_text(j, {"command_line"});
  f.device_name = field_text(j, {"device", "name"});
  if (j.contains("complete") && j["complete"].is_boolean()) f.complete = j["complete"].get<bool>();
  f.incomplete_reason = field_text(j, {"incomplete_reason"});
  f.environment = {{"GPU", f.device_name},
                   {"SM count", field_text(j, {"device", "sm_count"})},
                   {"driver", field_text(j, {"versions", "driver"})},
                   {"CUDA runtime", field_text(j, {"versions", "cuda_runtime"})},
                   {"cuBLAS", field_text(j, {"versions", "cublas"})},
                   {"CCCL", field_text(j, {"versions", "cccl"})},
                   {"mode", field_text(j, {"mode"})},
                   {"L2 flush", field_text(j, {"l2_flush"})},
                   {"shared-memory bank mode", field_text(j, {"device", "smem_bank_mode"})}};
  if (j.contains("device_state") && !j["device_state"].is_null()) flatten(j["device_state"], "", f.device_state);
  try {
    for (const json& r : j["results"]) f.rows.push_back(parse_row(r, label));
  } catch (const json::exception& e) {  // a field of an unexpected type
    std::string what = e.what();
    const auto pos = what.find("] ");
    throw DiffInputError(label + ": a row does not read as compare's (" + (pos == std::string::npos ? what : what.substr(pos + 2)) + ")");
  }
  return f;
}

RunFile load_run(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DiffInputError(path + ": cannot read the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw DiffInputError(path + ": cannot read the file");
  return parse_run(ss.str(), path);
}

// ---- the comparison -----------------------------------------------------------------------

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
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) { return r.regression; }));
}

namespace {

std::string percent(double f, bool sign = false) {
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", f * 100.0);
  return buf;
}

std::string counted(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string alpha_text(double a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", a);
  return buf;
}

std::string p_text(double p) {
  char buf[32];
  if (p < 0.001) return "<0.001";
  std::snprintf(buf, sizeof buf, "%.3f", p);
  return buf;
}

bool failing(const std::string& status) { return status != "ok" && status != "skipped"; }

std::string row_key(const RunRow& r) { return r.family + '\x1f' + r.dtype + '\x1f' + r.shape + '\x1f' + r.variant; }

// Two timed rows, both ok. A row the U test can judge is marked `tested` and decided later,
// once every row's p-value is known (decide_tested); the others are decided here.
void judge_timing(DiffRow& d, const RunRow& o, const RunRow& n, const DiffOptions& opt) {
  if (!o.has_timing || !n.has_timing) {
    d.verdict = Verdict::unknown;
    d.why = "no timing";
    return;
  }
  d.raw_ratio = n.median / o.median;
  d.ratio = d.raw_ratio;
  d.threshold = std::max(opt.threshold, std::min(o.noise, n.noise));
  if (d.control > 0) {
    // Changed only if it changed both raw and against the library, the same way; the ratio
    // judged is the one nearer 1 (no change at all when they disagree in sign).
    const double c = d.raw_ratio / d.control;
    const bool same_side = (d.raw_ratio > 1) == (c > 1);
    d.ratio = !same_side ? 1.0 : std::fabs(c - 1.0) < std::fabs(d.raw_ratio - 1.0) ? c : d.raw_ratio;
  }
  if (o.has_samples && n.has_samples) {
    d.test = mann_whitney_u(o.samples, n.samples);
    if (d.control > 0 && d.test.ran) {
      // H0 of the second test: the variant moved as its problem's library did (OLD's samples
      // carried to NEW's conditions by the library's ratio). Both must reject: the
      // intersection-union test, whose p-value is the larger of the two.
      std::vector<double> carried(o.samples);
      for (double& x : carried) x *= d.control;
      const UTest t = mann_whitney_u(carried, n.samples);
      d.test.p = std::max(d.test.p, t.p);
      d.test.min_p = std::max(d.test.min_p, t.min_p);
    }
    d.tested = d.test.ran && d.test.min_p < opt.alpha;
    d.too_few = d.test.ran && !d.tested && d.test.min_p < 1.0;
    if (!d.test.ran) d.why = d.test.why_not;
    else if (d.too_few)
      d.why = "too few samples: " + std::to_string(d.test.n1) + " vs " + std::to_string(d.test.n2) +
              " cannot reach p < " + alpha_text(opt.alpha);
  } else {
    d.why = "no samples in " + std::string(!o.has_samples ? "OLD" : "NEW");
  }
  if (d.test.ran && d.test.min_p >= 1.0) {  // every sample of both runs has the same value
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
// there are; a row's own U test alone would flag 5% of unchanged rows.
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
      if (significant) d->why = "within " + percent(d->threshold);
      else if (beyond) d->why = "not significant";
    }
  }
}

void judge(DiffRow& d, const DiffOptions& opt) {
  const bool has_old = d.old_row.has_value(), has_new = d.new_row.has_value();
  if (!has_old) {
    d.verdict = Verdict::only_new;
    d.regression = failing(d.new_row->status);  // a new variant that fails is a new failure
    if (d.regression && !d.new_row->note.empty()) d.why = d.new_row->note;
    return;
  }
  if (!has_new) {
    d.verdict = Verdict::only_old;
    return;
  }
  const std::string &os = d.old_row->status, &ns = d.new_row->status;
  if (failing(os) && failing(ns)) {
    d.verdict = Verdict::still_failing;
  } else if (failing(ns)) {
    d.verdict = Verdict::now_failing;
    d.regression = true;
  } else if (failing(os)) {
    d.verdict = ns == "ok" ? Verdict::fixed : Verdict::now_skipped;
  } else if (os == "skipped" || ns == "skipped") {
    d.verdict = os == ns ? Verdict::skipped : ns == "skipped" ? Verdict::now_skipped : Verdict::now_runs;
  } else {
    judge_timing(d, *d.old_row, *d.new_row, opt);
  }
  if (failing(ns) && !d.new_row->note.empty()) d.why = d.new_row->note;
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

void add_warnings(DiffResult& d) {
  const RunFile &o = d.old_run, &n = d.new_run;
  auto shown = [](const std::string& v) { return v.empty() ? std::string("(not recorded)") : "'" + v + "'"; };
  for (std::size_t i = 0; i < o.environment.size() && i < n.environment.size(); ++i) {
    const auto& [what, ov] = o.environment[i];
    const std::string& nv = n.environment[i].second;
    if (ov != nv) d.warnings.push_back("the runs differ in " + what + ": " + shown(ov) + " (OLD) vs " + shown(nv) + " (NEW)");
  }
  for (const RunFile* f : {&o, &n})
    if (!f->complete)
      d.warnings.push_back(std::string(f == &o ? "OLD" : "NEW") + " is an incomplete run" +
                           (f->incomplete_reason.empty() ? "" : " (" + f->incomplete_reason + ")"));
  for (const RunFile* f : {&o, &n})
    if (f->schema_version > 2)
      d.warnings.push_back(std::string(f == &o ? "OLD" : "NEW") + " has schema " + f->schema + ", newer than this tool: read as schema 2");
  if (d.options.control && !d.control_used)
    d.warnings.push_back("the runs' GPU or library versions differ, so the library is no control: every row is "
                         "judged on its raw change");
  std::size_t untested = 0, too_few = 0;
  for (const DiffRow& r : d.rows) {
    if (!r.old_row || !r.new_row || !r.old_row->has_timing || !r.new_row->has_timing || r.old_row->status != "ok" ||
        r.new_row->status != "ok")
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

bool ok_timed(const std::optional<RunRow>& r) { return r && r->status == "ok" && r->has_timing; }

std::string problem_key(const DiffRow& r) { return r.family + '\x1f' + r.dtype + '\x1f' + r.shape; }

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

}  // namespace

DiffResult diff_runs(RunFile old_run, RunFile new_run, const DiffOptions& options) {
  DiffResult d;
  d.options = options;
  // Matched by key and by occurrence, so a problem listed twice in one run pairs up in order.
  std::map<std::string, std::vector<std::size_t>> old_index;
  for (std::size_t i = 0; i < old_run.rows.size(); ++i) old_index[row_key(old_run.rows[i])].push_back(i);
  std::map<std::string, std::size_t> taken;
  std::vector<bool> old_used(old_run.rows.size(), false);
  auto start_row = [](const RunRow& r) {
    DiffRow x;
    x.family = r.family, x.dtype = r.dtype, x.shape = r.shape, x.variant = r.variant;
    x.library = r.source == "library";
    return x;
  };
  for (RunRow& nr : new_run.rows) {
    DiffRow x = start_row(nr);
    const std::string key = row_key(nr);
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
  for (std::size_t i = 0; i < old_run.rows.size(); ++i) {
    if (old_used[i]) continue;
    DiffRow x = start_row(old_run.rows[i]);
    x.old_row = std::move(old_run.rows[i]);
    d.rows.push_back(std::move(x));
  }
  d.control_used = options.control && library_versions_match(old_run, new_run);
  if (d.control_used) set_controls(d.rows);
  for (DiffRow& r : d.rows) judge(r, options);
  decide_tested(d.rows, options);
  for (DiffRow& r : d.rows) r.changed = is_change(r.verdict);
  old_run.rows.clear();
  new_run.rows.clear();
  d.old_run = std::move(old_run);
  d.new_run = std::move(new_run);
  add_warnings(d);
  return d;
}

int diff_exit_code(const DiffResult& d) { return d.regressions() > 0 ? 1 : 0; }

// ---- rendering ----------------------------------------------------------------------------

namespace {

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
  if (r->status != "ok") return r->status;
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
  c.verdict = std::string(verdict_name(r.verdict));
  if (r.verdict == Verdict::only_new && r.new_row && failing(r.new_row->status)) c.verdict += ", " + r.new_row->status;
  if (!r.why.empty()) c.verdict += " (" + r.why + ")";
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
  if (!f.commit.empty()) s += "  commit " + f.commit;
  if (!f.timestamp.empty()) s += "  " + f.timestamp;
  if (!f.device_name.empty()) s += "  " + f.device_name;
  if (f.schema_version == 1) s += "  (schema 1)";
  return s;
}

std::string method_line(const DiffResult& d) {
  std::size_t m = 0;
  for (const DiffRow& r : d.rows) m += r.tested;
  return "a change counts when the two-sided Mann-Whitney U test on the samples gives p < " + alpha_text(d.options.alpha) +
         (m > 1 ? " (Holm-adjusted over the " + std::to_string(m) + " rows tested)" : std::string()) +
         " and the medians differ by more than " + percent(d.options.threshold) +
         " or the quieter run's noise, whichever is larger" +
         (d.control_used ? "; a hand-written row must change both raw and against its problem's library rows "
                           "(column '/lib'), the same way"
                         : std::string());
}

const char* const kLegend =
    "new/old: ratio of the medians; /lib: new/old divided by the library's new/old in the same problem ('-': "
    "judged raw); speed: 1/r - 1 (+ = faster) for r the ratio judged (of new/old and /lib the one nearer 1; none "
    "when they disagree); p: the U test's p-value (with /lib the larger of the two tests'), Holm-adjusted; "
    "'?': not testable (no samples, or too few), judged by the threshold alone";

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
  const std::size_t slower = d.count(Verdict::slower), regress = d.regressions();
  if (!regress) return "no regression (exit status 0)";
  return counted(regress, "regression") + ": " + std::to_string(slower) + " significantly slower, " +
         std::to_string(regress - slower) + " newly failing (exit status 1)";
}

}  // namespace

void print_diff(std::ostream& os, const DiffResult& d, bool only_changed) {
  os << "compare diff\n  OLD: " << run_line(d.old_run) << "\n  NEW: " << run_line(d.new_run) << '\n';
  os << "  " << method_line(d) << '\n';
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
  os << "- OLD: `" << d.old_run.label << '`' << (d.old_run.commit.empty() ? "" : ", commit `" + d.old_run.commit + '`')
     << (d.old_run.timestamp.empty() ? "" : ", " + d.old_run.timestamp)
     << (d.old_run.device_name.empty() ? "" : ", " + d.old_run.device_name) << '\n';
  os << "- NEW: `" << d.new_run.label << '`' << (d.new_run.commit.empty() ? "" : ", commit `" + d.new_run.commit + '`')
     << (d.new_run.timestamp.empty() ? "" : ", " + d.new_run.timestamp)
     << (d.new_run.device_name.empty() ? "" : ", " + d.new_run.device_name) << '\n';
  os << "- " << method_line(d) << '\n';
  os << "- " << summary_line(d) << "; " << outcome_line(d) << '\n';
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
      const bool bold = r->regression;
      os << "| `" << md(r->variant) << '`' << (r->library ? " (library)" : "") << " | " << md(c.old_t) << " | "
         << md(c.new_t) << " | " << c.ratio << " | " << c.adjusted << " | " << c.speed << " | " << c.p << " | " << c.samples << " | "
         << (bold ? "**" : "") << md(c.verdict) << (bold ? "**" : "") << " |\n";
    }
  }
  if (groups.empty()) os << '\n' << (only_changed ? "No changes.\n" : "No rows.\n");
  os << '\n' << kLegend << '\n';
  return os.str();
}

// ---- the subcommand -----------------------------------------------------------------------

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
               "1 a variant got significantly slower or started failing, 2 bad input. See docs/judging-progress.md.",
               "compare diff"};
  std::string old_path, new_path, threshold_text = "2%", markdown_path, format = "table";
  double alpha = 0.05;
  bool only_changed = false, no_control = false;
  app.add_option("OLD", old_path, "the earlier report (compare's JSON)")->required();
  app.add_option("NEW", new_path, "the later report")->required();
  app.add_flag("--only-changed", only_changed, "show only rows that changed (significant and beyond the threshold, "
                                               "status changes, rows in one run only)");
  app.add_option("--threshold", threshold_text, "smallest change of the median that counts, as 0.02 or 2%; a row's "
                                                "threshold is raised to the quieter run's noise (default 2%)");
  app.add_flag("--no-control", no_control, "judge every row on its raw change (default: hand-written rows against "
                                           "their problem's library rows, which share the run's shifts)");
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
