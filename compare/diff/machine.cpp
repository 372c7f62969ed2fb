// The comparison for machines: JSON (every row's numbers and verdict) and JUnit XML (one test
// case per row), so a CI system shows which variant regressed without parsing the table.
#include "compare/diff/diff.hpp"
#include "compare/diff/text.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace kl {

using nlohmann::json;

std::string_view row_outcome(const DiffRow& r) {
  if (r.gates) return r.verdict == Verdict::slower ? "regressed" : "newly_failing";
  switch (r.verdict) {
    case Verdict::maybe_slower:
    case Verdict::maybe_faster:
    case Verdict::unknown:
    case Verdict::still_failing:
    case Verdict::now_skipped:
    case Verdict::skipped:
    case Verdict::only_old:
    case Verdict::only_new: return "skipped";
    default: return "passed";
  }
}

namespace {

using namespace diff_text;

// A number JSON can hold; null where it was not measured (0 stands for "none" in DiffRow).
json number_or_null(double v) { return v > 0 && std::isfinite(v) ? json(v) : json(nullptr); }

json side_json(const RunFile& f, std::size_t rows) {
  return {{"file", f.label},
          {"commit", f.meta.git_commit},
          {"dirty", f.dirty()},
          {"timestamp_utc", f.meta.timestamp_utc},
          {"gpu", f.meta.device.name},
          {"complete", !f.meta.incomplete},
          {"passes", f.meta.passes},
          {"processes", f.meta.processes},
          {"rows", rows}};
}

json row_side(const std::optional<RunRow>& r) {
  if (!r) return nullptr;
  json j = {{"status", status_name(r->row.status)}, {"median_ms", number_or_null(r->median)}, {"samples", r->count}};
  if (!r->pass_medians.empty()) j["pass_medians_ms"] = r->pass_medians;
  return j;
}

json row_json(const DiffRow& r) {
  json j = {{"family", r.family},
            {"dtype", r.dtype},
            {"shape", r.shape},
            {"variant", r.variant},
            {"library", r.library},
            {"verdict", verdict_name(r.verdict)},
            {"outcome", row_outcome(r)},
            {"gates", r.gates},
            {"old", row_side(r.old_row)},
            {"new", row_side(r.new_row)},
            {"ratio", number_or_null(r.raw_ratio)},
            {"ratio_judged", number_or_null(r.ratio)},
            {"control", number_or_null(r.control)},
            {"threshold", r.threshold},
            {"run_floor_applied", r.floored},
            {"test", !r.test.ran ? "none" : r.on_passes ? "t_pass_medians" : "mann_whitney_u_samples"},
            {"p", r.test.ran ? json(r.test.p) : json(nullptr)},
            {"p_adjusted", r.tested ? json(r.p_adjusted) : json(nullptr)},
            {"why", r.why}};
  if (!r.old_variant.empty()) j["old_variant"] = r.old_variant;
  return j;
}

std::string xml_escaped(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? ' ' : c;
    }
  }
  return o;
}

// What a row's test case says: the verdict with its reason, the two medians and the ratio.
std::string row_message(const DiffRow& r) {
  std::string m = std::string(verdict_name(r.verdict));
  if (!r.why.empty()) m += " (" + r.why + ")";
  auto t = [](const std::optional<RunRow>& x) {
    return !x ? std::string("-") : !x->ok() ? std::string(status_name(x->row.status)) : x->has_timing ? format_time_ms(x->median) : "-";
  };
  m += ": " + t(r.old_row) + " -> " + t(r.new_row);
  if (r.ratio > 0) m += ", speed " + percent(1.0 / r.ratio - 1.0, true);
  if (r.tested) m += ", p " + p_text(r.p_adjusted);
  if (!r.old_variant.empty()) m += ", was " + r.old_variant;
  return m;
}

}  // namespace

std::string diff_json(const DiffResult& d) {
  json rows = json::array();
  std::map<std::string, std::size_t> outcomes = {{"passed", 0}, {"regressed", 0}, {"newly_failing", 0}, {"skipped", 0}};
  for (const DiffRow& r : d.rows) {
    rows.push_back(row_json(r));
    ++outcomes[std::string(row_outcome(r))];
  }
  json j = {{"schema", "kernel-ladder/compare-diff/1"},
            {"old", side_json(d.old_run, d.old_rows)},
            {"new", side_json(d.new_run, d.new_rows)},
            {"options",
             {{"alpha", d.options.alpha},
              {"threshold", d.options.threshold},
              {"run_floor_us", d.options.run_floor_us},
              {"min_passes", d.options.min_passes},
              {"min_processes", d.options.min_processes},
              {"control", d.control_used},
              {"gate_library", d.options.gate_library},
              {"allow_incomplete", d.options.allow_incomplete}}},
            {"renames", {{"source", d.options.renames_source}, {"paired", d.renamed_pairs}}},
            {"warnings", d.warnings},
            {"input_failures", d.input_failures},
            {"outcomes", outcomes},
            {"regressions", d.regressions()},
            {"exit_status", diff_exit_code(d)},
            {"rows", std::move(rows)}};
  return j.dump(2) + "\n";
}

std::string diff_junit(const DiffResult& d) {
  std::ostringstream cases;
  std::size_t failures = 0, skipped = 0, tests = 0;
  if (!d.input_failures.empty()) {
    ++tests, ++failures;
    std::string why;
    for (const auto& f : d.input_failures) why += (why.empty() ? "" : "; ") + f;
    cases << "    <testcase classname=\"compare diff\" name=\"inputs complete\">\n      <failure message=\""
          << xml_escaped(why) << "\" type=\"incomplete\"/>\n    </testcase>\n";
  }
  for (const DiffRow& r : d.rows) {
    ++tests;
    const std::string_view outcome = row_outcome(r);
    cases << "    <testcase classname=\"" << xml_escaped(r.family + "." + r.dtype + "." + r.shape) << "\" name=\""
          << xml_escaped(r.variant + (r.library ? " [library]" : "")) << "\"";
    const std::string msg = xml_escaped(row_message(r));
    if (outcome == "passed") {
      cases << ">\n      <system-out>" << msg << "</system-out>\n    </testcase>\n";
    } else if (outcome == "skipped") {
      ++skipped;
      cases << ">\n      <skipped message=\"" << msg << "\"/>\n    </testcase>\n";
    } else {
      ++failures;
      cases << ">\n      <failure message=\"" << msg << "\" type=\"" << outcome << "\"/>\n    </testcase>\n";
    }
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"compare diff\" tests=\"" << tests
     << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\">\n  <testsuite name=\""
     << xml_escaped(d.old_run.label + " -> " + d.new_run.label) << "\" tests=\"" << tests << "\" failures=\"" << failures
     << "\" errors=\"0\" skipped=\"" << skipped << "\">\n"
     << cases.str() << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

}  // namespace kl
