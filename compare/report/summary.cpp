#include "compare/report/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kl {

namespace {

std::string percent(double f) {
  if (!(f > 0)) return "";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * f);
  return b;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string md_cell(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::vector<SummaryLine> summarize(const Report& r, const std::vector<std::pair<std::string, std::string>>& ungraded) {
  std::vector<SummaryLine> lines;
  std::map<std::string, std::size_t> at;
  for (const Row& row : r.rows) {
    if (row.source != Source::handwritten) continue;
    auto [it, fresh] = at.emplace(row.variant, lines.size());
    if (fresh) {
      SummaryLine l;
      l.variant = row.variant;
      const auto slash = row.variant.find('/');
      if (slash != std::string::npos) l.submission = row.variant.substr(0, slash);
      lines.push_back(l);
    }
    SummaryLine& l = lines[it->second];
    if (l.families.find(row.family) == std::string::npos) l.families += (l.families.empty() ? "" : ",") + row.family;
    if (row.status == RowStatus::skipped) {
      ++l.skipped;
      continue;
    }
    ++l.problems;
    if (row.status == RowStatus::ok) {
      ++l.passed;
      if (row.vs_library > 0) {
        l.best_vs_library = std::max(l.best_vs_library, row.vs_library);
        l.worst_vs_library = l.worst_vs_library > 0 ? std::min(l.worst_vs_library, row.vs_library) : row.vs_library;
      }
      l.best_vs_ceiling = std::max(l.best_vs_ceiling, row.vs_ceiling);
    } else if (l.verdict.empty()) {
      l.verdict = std::string(row.status == RowStatus::error ? "ERROR" : "FAIL") + ": " + row.family + " " + row.dtype +
                  " " + row.shape + ": " + row.note;
    }
  }
  for (SummaryLine& l : lines)
    if (l.verdict.empty()) l.verdict = l.problems ? "passed" : "not run (every problem skipped)";
  for (const auto& [name, status] : ungraded) {
    SummaryLine l;
    l.submission = name;
    l.variant = name + "/*";
    l.verdict = status;
    lines.push_back(l);
  }
  return lines;
}

std::string summary_markdown(const std::vector<SummaryLine>& lines) {
  std::string s =
      "| submission | variant | families | verdict | passed | best vs lib | worst vs lib | best vs ceiling |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const SummaryLine& l : lines) {
    s += "| " + md_cell(l.submission.empty() ? "(ladder)" : l.submission) + " | " + md_cell(l.variant) + " | " +
         md_cell(l.families) + " | " + md_cell(l.verdict) + " | " + std::to_string(l.passed) + "/" +
         std::to_string(l.problems) + (l.skipped ? " (" + std::to_string(l.skipped) + " skipped)" : "") + " | " +
         percent(l.best_vs_library) + " | " + percent(l.worst_vs_library) + " | " + percent(l.best_vs_ceiling) + " |\n";
  }
  return s;
}

std::string summary_csv(const std::vector<SummaryLine>& lines) {
  std::string s = "submission,variant,families,verdict,passed,problems,skipped,best_vs_library,worst_vs_library,best_vs_ceiling\n";
  for (const SummaryLine& l : lines) {
    char nums[160];
    std::snprintf(nums, sizeof nums, "%d,%d,%d,%.4f,%.4f,%.4f", l.passed, l.problems, l.skipped, l.best_vs_library,
                  l.worst_vs_library, l.best_vs_ceiling);
    s += csv_field(l.submission) + "," + csv_field(l.variant) + "," + csv_field(l.families) + "," + csv_field(l.verdict) +
         "," + nums + "\n";
  }
  return s;
}

}  // namespace kl
