#include "compare/report/text.hpp"

#include <cmath>
#include <cstdio>
#include <map>

namespace kl {

std::string_view status_name(RowStatus s) {
  switch (s) {
    case RowStatus::ok: return "ok";
    case RowStatus::fail: return "FAIL";
    case RowStatus::skipped: return "skipped";
    case RowStatus::error: return "ERROR";
  }
  return "?";
}

std::string_view source_name(Source s) { return s == Source::library ? "library" : "handwritten"; }

std::string format_time_ms(double ms) {
  char buf[32];
  if (!(ms >= 0) || !std::isfinite(ms)) return "-";
  if (ms < 1e-3) std::snprintf(buf, sizeof buf, "%.0f ns", ms * 1e6);
  else if (ms < 1.0) std::snprintf(buf, sizeof buf, "%.1f us", ms * 1e3);
  else if (ms < 1000.0) std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.2f s", ms / 1e3);
  return buf;
}

std::string format_percent(double f) {
  char buf[32];
  if (!std::isfinite(f) || f <= 0) return "-";
  std::snprintf(buf, sizeof buf, f < 0.1 ? "%.2f%%" : "%.1f%%", f * 100.0);
  return buf;
}

namespace report_text {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string throughput_text(const Row& r) {
  if (!r.has_timing) return "-";
  return fmt(("%." + std::to_string(r.metric.decimals) + "f").c_str(), r.throughput);
}

// The metric's second rate (Metric::also_name), e.g. allreduce's algorithm bandwidth.
std::string also_text(const Row& r) {
  if (!r.has_timing || r.metric.also_name.empty()) return "-";
  return fmt(("%." + std::to_string(r.metric.decimals) + "f").c_str(), r.throughput * r.metric.also_factor);
}

std::string rate_head(const Metric& m) { return m.rate_name.empty() ? "rate" : m.rate_name; }

// "pass 0.31": the worst element's error over its bound on random inputs; "exact" for an
// equality check; then the exact-input check, and whether a library output was there to
// cross-check against.
std::string check_text(const Row& r) {
  if (!r.check.ran && !r.exact_check.ran) return "-";
  std::string s = r.check.pass ? "pass" : "FAIL";
  if (r.check.bound_at_worst > 0) s += " " + fmt("%.2g", r.check.worst_ratio);
  else if (r.check.ran) s += r.check.pass ? " exact" : "";
  if (r.exact_check.ran) s += r.exact_check.pass ? ", int ok" : ", int FAIL";
  if (r.library_check.ran && !r.library_check.pass) s += " (lib FAIL)";
  else if (r.source == Source::handwritten && !r.had_library_output) s += " (no lib)";
  return s;
}

std::vector<std::vector<const Row*>> by_problem(const Report& r) {
  std::vector<std::vector<const Row*>> groups;
  std::map<std::string, std::size_t> index;
  for (const Row& row : r.rows) {
    const std::string key = row.family + "|" + row.dtype + "|" + row.shape;
    auto it = index.find(key);
    if (it == index.end()) {
      index[key] = groups.size();
      groups.push_back({&row});
    } else {
      groups[it->second].push_back(&row);
    }
  }
  return groups;
}

std::string problem_title(const Row& r) { return r.family + "  " + r.dtype + "  " + r.shape; }

}  // namespace report_text
}  // namespace kl
