// Reading the two runs: through the report's schema (compare/report/schema.hpp), into the same
// Row and RunMeta the runner writes; here only what the comparison judges is derived from them.
#include "compare/diff/diff.hpp"
#include "compare/report/schema.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kl {

RunRow::RunRow(Row r) : row(std::move(r)) {
  const SampleStats& t = row.time_ms;
  has_timing = row.has_timing && std::isfinite(t.median) && t.median > 0;
  if (has_timing) {
    median = t.median;
    noise = std::isfinite(t.noise) ? std::max(0.0, t.noise) : 0.0;
  }
  has_samples = row.has_timing && !row.samples_ms.empty();
  for (double s : row.samples_ms)
    if (std::isfinite(s)) samples.push_back(s);
  count = has_samples ? samples.size() : row.time_ms.samples;
  if (has_timing)
    for (double m : row.pass_medians_ms)
      if (std::isfinite(m) && m > 0) pass_medians.push_back(m);
}

namespace {

using json = nlohmann::json;

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

void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(prefix, scalar_text(j));
  }
}

// A number the runner records, "" where the report has none (0: no device has it).
std::string recorded(long long v) { return v ? std::to_string(v) : std::string(); }

}  // namespace

RunFile run_file(Report report, const std::string& label) {
  RunFile f;
  f.label = label;
  f.schema_version = report.schema_version;
  f.meta = std::move(report.meta);
  const RunMeta& m = f.meta;
  const DeviceInfo& d = m.device;
  f.environment = {{"GPU", d.name},
                   {"SM count", recorded(d.sm_count)},
                   {"driver", recorded(d.driver_version)},
                   {"CUDA runtime", recorded(d.runtime_version)},
                   {"cuBLAS", d.cublas_version},
                   {"CCCL", d.cccl_version},
                   {"mode", m.mode},
                   {"L2 flush", m.l2_flush},
                   {"shared-memory bank mode", m.smem_bank_mode}};
  // In the order the report lists them (its keys are sorted); a state never recorded (no
  // "device_state" in the report) is left out.
  for (const auto& [when, s] : {std::pair<const char*, const DeviceState*>{"end", &m.state_end}, {"start", &m.state_start}})
    if (s->available || !s->why_unavailable.empty()) flatten(json(*s), when, f.device_state);
  f.rows.reserve(report.rows.size());
  for (Row& r : report.rows) f.rows.emplace_back(std::move(r));
  return f;
}

RunFile parse_run(std::string_view text, const std::string& label) {
  try {
    return run_file(parse_report(text), label);
  } catch (const ReportReadError& e) {
    throw DiffInputError(label + ": " + e.what());
  }
}

RunFile load_run(const std::string& path) {
  try {
    return run_file(load_report(path), path);
  } catch (const ReportReadError& e) {
    throw DiffInputError(e.what());  // says the path
  }
}

}  // namespace kl
