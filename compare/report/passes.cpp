// Passes merged into one report (passes.hpp says what is kept and why).
#include "compare/report/passes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

namespace kl {

namespace {

std::string row_key(const Row& r) { return r.family + '\x1f' + r.dtype + '\x1f' + r.shape + '\x1f' + r.variant; }
std::string problem_key(const Row& r) { return r.family + '\x1f' + r.dtype + '\x1f' + r.shape; }

bool timed_ok(const Row& r) { return r.status == RowStatus::ok && r.has_timing && r.time_ms.median > 0; }

// What one pass adds to a row: its samples and its median(s). A pass's failure wins over any
// success, so a variant that failed once is not reported as passing.
void absorb(Row& into, const Row& pass, bool first) {
  const bool was_failing = into.status == RowStatus::fail || into.status == RowStatus::error;
  const bool fails = pass.status == RowStatus::fail || pass.status == RowStatus::error;
  if (first) {
    into = pass;
    into.samples_ms.clear();
    into.pass_medians_ms.clear();
    into.has_timing = false;
    into.converged = true;
  } else if (fails && !was_failing) {
    into.status = pass.status;
    into.note = pass.note;
    into.slow_path = pass.slow_path;
    into.check = pass.check;
    into.exact_check = pass.exact_check;
    into.library_check = pass.library_check;
  } else if (into.status == RowStatus::skipped && pass.status == RowStatus::ok) {
    into.status = RowStatus::ok;  // skipped in an earlier pass only (e.g. a budget): the timed pass counts
    into.note = pass.note;
    into.slow_path = pass.slow_path;
  }
  if (!pass.has_timing) return;
  into.samples_ms.insert(into.samples_ms.end(), pass.samples_ms.begin(), pass.samples_ms.end());
  if (!pass.pass_medians_ms.empty())
    into.pass_medians_ms.insert(into.pass_medians_ms.end(), pass.pass_medians_ms.begin(), pass.pass_medians_ms.end());
  else if (std::isfinite(pass.time_ms.median) && pass.time_ms.median > 0)
    into.pass_medians_ms.push_back(pass.time_ms.median);
  into.converged = into.converged && pass.converged;
  if (!into.has_timing) {  // the rates are rescaled from the first timed pass's
    into.has_timing = true;
    into.time_ms = pass.time_ms;
    into.throughput = pass.throughput;
    into.vs_ceiling = pass.vs_ceiling;
  }
}

// The statistics from every pass's samples; rates scaled by the change of the median.
void finish(Row& r) {
  if (!r.has_timing) return;
  const double first_median = r.time_ms.median;
  if (!r.samples_ms.empty()) r.time_ms = summarize(r.samples_ms);
  if (first_median > 0 && r.time_ms.median > 0) {
    const double f = first_median / r.time_ms.median;
    r.throughput *= f;
    r.vs_ceiling *= f;
  }
}

// compare/core/execute.cpp's apply_vs_library, over each problem's merged rows.
void recompute_vs_library(std::vector<Row>& rows) {
  std::map<std::string, std::pair<double, std::string>> best;
  for (const Row& r : rows) {
    if (r.source != Source::library || !timed_ok(r)) continue;
    auto& b = best[problem_key(r)];
    if (b.first == 0 || r.time_ms.median < b.first) b = {r.time_ms.median, r.variant};
  }
  for (Row& r : rows) {
    const auto it = best.find(problem_key(r));
    if (it == best.end()) continue;
    r.library_name = it->second.second;
    r.vs_library = r.has_timing && r.time_ms.median > 0 ? it->second.first / r.time_ms.median : 0;
  }
}

void check_mergeable(const Report& a, const Report& b, std::size_t i) {
  const std::string which = "pass " + std::to_string(i + 1);
  if (a.meta.git_commit != b.meta.git_commit)
    throw PassMergeError(which + " has commit '" + b.meta.git_commit + "', the first '" + a.meta.git_commit +
                         "': merge passes of one build only");
  if (a.meta.device.name != b.meta.device.name)
    throw PassMergeError(which + " ran on '" + b.meta.device.name + "', the first on '" + a.meta.device.name +
                         "': merge passes of one GPU only");
}

}  // namespace

Report merge_passes(const std::vector<Report>& passes) {
  if (passes.empty()) throw PassMergeError("no passes to merge");
  Report out;
  out.meta = passes.front().meta;
  out.meta.passes = 0;
  out.meta.processes = 0;
  // Rows matched by key and by occurrence (a problem listed twice pairs up in order).
  std::map<std::string, std::vector<std::size_t>> index;
  for (std::size_t pi = 0; pi < passes.size(); ++pi) {
    const Report& p = passes[pi];
    if (pi) check_mergeable(passes.front(), p, pi);
    out.meta.passes += p.meta.passes;
    out.meta.processes += p.meta.processes;
    if (p.meta.incomplete && !out.meta.incomplete) {
      out.meta.incomplete = true;
      out.meta.incomplete_reason = "pass " + std::to_string(pi + 1) + ": " + p.meta.incomplete_reason;
    }
    std::map<std::string, std::size_t> seen;
    for (const Row& r : p.rows) {
      const std::string key = row_key(r);
      std::vector<std::size_t>& slots = index[key];
      const std::size_t k = seen[key]++;
      const bool fresh = k >= slots.size();
      if (fresh) {
        slots.push_back(out.rows.size());
        out.rows.emplace_back();
      }
      absorb(out.rows[slots[k]], r, fresh);
    }
  }
  out.meta.state_end = passes.back().meta.state_end;
  for (Row& r : out.rows) finish(r);
  recompute_vs_library(out.rows);
  return out;
}

}  // namespace kl
