#include "compare/report/schema.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kl {

using nlohmann::json;

std::string report_schema_id(int version) { return std::string(kReportSchemaName) + "/" + std::to_string(version); }

namespace {

// A number that may have been written as "inf" (a validation error) or null (NaN).
double number(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "inf" || s == "+inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-inf" || s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "nan" || s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  throw ReportReadError("a number is expected, not " + v.dump());
}

double number_or(const json& j, const char* key, double fallback) {
  return j.contains(key) ? number(j[key]) : fallback;
}

// A finite number, or "inf" for anything else (the validation fields).
json finite_or_inf(double v) { return std::isfinite(v) ? json(v) : json("inf"); }

// `out` = j[key] where present and not null; a value of another type throws json::type_error.
template <class T>
void read(const json& j, const char* key, T& out) {
  if (j.contains(key) && !j[key].is_null()) out = j[key].get<T>();
}

std::string required(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string())
    throw ReportReadError(std::string("a row has no \"") + key + "\" (not a compare report?)");
  return j[key].get<std::string>();
}

RowStatus status_from(const std::string& s) {
  if (s == "ok") return RowStatus::ok;
  if (s == "FAIL") return RowStatus::fail;
  if (s == "skipped") return RowStatus::skipped;
  return RowStatus::error;
}

// The one line of a nlohmann exception, without its "[json.exception...] " prefix.
std::string json_message(const std::exception& e) {
  std::string what = e.what();
  const auto pos = what.find("] ");
  return pos == std::string::npos ? what : what.substr(pos + 2);
}

}  // namespace

// ---- Check ---------------------------------------------------------------------------------

void to_json(json& j, const Check& c) {
  j = {{"ran", c.ran}, {"pass", c.pass}};
  if (!c.ran) return;
  j["max_abs_err"] = finite_or_inf(c.max_abs_err);
  j["worst_err_over_bound"] = finite_or_inf(c.worst_ratio);
  j["bound_at_worst"] = c.bound_at_worst;
  j["worst_index"] = c.worst_index;
  j["elements_out_of_bound"] = c.bad_count;
  if (!c.detail.empty()) j["detail"] = c.detail;
}

void from_json(const json& j, Check& c) {
  c = Check{};
  read(j, "ran", c.ran);
  read(j, "pass", c.pass);
  if (!c.ran) return;
  c.max_abs_err = number_or(j, "max_abs_err", 0);
  c.worst_ratio = number_or(j, "worst_err_over_bound", 0);
  c.bound_at_worst = number_or(j, "bound_at_worst", 0);
  read(j, "worst_index", c.worst_index);
  read(j, "elements_out_of_bound", c.bad_count);
  read(j, "detail", c.detail);
}

// ---- SampleStats ---------------------------------------------------------------------------

void to_json(json& j, const SampleStats& s) {
  j = {{"count", s.samples}, {"median", s.median}, {"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"noise", s.noise}};
}

void from_json(const json& j, SampleStats& s) {
  s = SampleStats{};
  if (j.contains("count")) read(j, "count", s.samples);
  else if (j.contains("samples") && j["samples"].is_number()) read(j, "samples", s.samples);  // schema 1: a count
  s.median = number_or(j, "median", 0);
  s.min = number_or(j, "min", 0);
  s.max = number_or(j, "max", 0);
  s.mean = number_or(j, "mean", 0);
  s.noise = number_or(j, "noise", 0);
}

// ---- Metric --------------------------------------------------------------------------------

void to_json(json& j, const Metric& m) {
  j = {{"work_unit", m.work_unit}, {"family_work", m.work}, {"unit", m.unit},
       {"scale", m.scale},         {"decimals", m.decimals}, {"ceiling", m.ceiling_label},
       {"ceiling_value", m.ceiling}};
  if (!m.rate_name.empty()) j["rate_name"] = m.rate_name;
  if (!m.also_name.empty()) {
    j["also_name"] = m.also_name;
    j["also_factor"] = m.also_factor;
  }
}

void from_json(const json& j, Metric& m) {
  m = Metric{};
  read(j, "work_unit", m.work_unit);
  m.work = number_or(j, "family_work", number_or(j, "work", 0));  // schema 1: the row's work only
  read(j, "unit", m.unit);
  m.scale = number_or(j, "scale", m.scale);
  read(j, "decimals", m.decimals);
  read(j, "ceiling", m.ceiling_label);
  m.ceiling = number_or(j, "ceiling_value", 0);
  read(j, "rate_name", m.rate_name);
  read(j, "also_name", m.also_name);
  m.also_factor = number_or(j, "also_factor", 0);
}

// ---- DeviceState ---------------------------------------------------------------------------

void to_json(json& j, const DeviceState& s) {
  if (!s.available) {
    j = {{"available", false}, {"why", s.why_unavailable}};
    return;
  }
  j = {{"available", true},
       {"sm_clock_mhz", s.sm_clock_mhz},
       {"mem_clock_mhz", s.mem_clock_mhz},
       {"max_sm_clock_mhz", s.max_sm_clock_mhz},
       {"applications_sm_clock_mhz", s.app_sm_clock_mhz},
       {"default_applications_sm_clock_mhz", s.default_app_sm_clock_mhz},
       {"applications_clocks_changed", s.app_clocks_changed},
       {"temperature_c", s.temperature_c},
       {"power_w", s.power_w},
       {"clock_event_reasons", s.reasons}};
}

void from_json(const json& j, DeviceState& s) {
  s = DeviceState{};
  s.available = j.value("available", !j.contains("why"));
  read(j, "why", s.why_unavailable);
  read(j, "sm_clock_mhz", s.sm_clock_mhz);
  read(j, "mem_clock_mhz", s.mem_clock_mhz);
  read(j, "max_sm_clock_mhz", s.max_sm_clock_mhz);
  read(j, "applications_sm_clock_mhz", s.app_sm_clock_mhz);
  read(j, "default_applications_sm_clock_mhz", s.default_app_sm_clock_mhz);
  read(j, "applications_clocks_changed", s.app_clocks_changed);
  read(j, "temperature_c", s.temperature_c);
  s.power_w = number_or(j, "power_w", 0);
  read(j, "clock_event_reasons", s.reasons);
}

// ---- DeviceInfo ----------------------------------------------------------------------------

void to_json(json& j, const DeviceInfo& d) {
  j = {{"index", d.index},
       {"name", d.name},
       {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
       {"sm_count", d.sm_count},
       {"sm_clock_mhz", d.sm_clock_mhz},
       {"mem_clock_mhz", d.mem_clock_mhz},
       {"mem_bus_bits", d.mem_bus_bits},
       {"l2_bytes", d.l2_bytes},
       {"global_mem_bytes", d.global_mem_bytes},
       {"smem_per_sm_bytes", d.smem_per_sm},
       {"dram_gbps_theoretical", d.dram_gbps_theoretical},
       {"fp32_tflops_peak", d.fp32_tflops_peak},
       {"fp64_tflops_peak", d.fp64_tflops_peak}};
}

void from_json(const json& j, DeviceInfo& d) {
  d = DeviceInfo{};
  read(j, "index", d.index);
  read(j, "name", d.name);
  if (j.contains("compute_capability") && j["compute_capability"].is_string()) {
    const std::string cc = j["compute_capability"].get<std::string>();
    if (std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2) d.cc_major = d.cc_minor = 0;
  }
  read(j, "sm_count", d.sm_count);
  d.sm_clock_mhz = number_or(j, "sm_clock_mhz", 0);
  d.mem_clock_mhz = number_or(j, "mem_clock_mhz", 0);
  read(j, "mem_bus_bits", d.mem_bus_bits);
  read(j, "l2_bytes", d.l2_bytes);
  read(j, "global_mem_bytes", d.global_mem_bytes);
  read(j, "smem_per_sm_bytes", d.smem_per_sm);
  d.dram_gbps_theoretical = number_or(j, "dram_gbps_theoretical", 0);
  d.fp32_tflops_peak = number_or(j, "fp32_tflops_peak", 0);
  d.fp64_tflops_peak = number_or(j, "fp64_tflops_peak", 0);
}

// ---- Row -----------------------------------------------------------------------------------

void to_json(json& x, const Row& r) {
  x = {{"family", r.family}, {"dtype", r.dtype},       {"shape", r.shape},
       {"dims", r.dims},     {"variant", r.variant},   {"origin", r.origin},
       {"lesson", r.lesson}, {"source", source_name(r.source)}, {"status", status_name(r.status)},
       {"seed", r.seed}};
  if (!r.dim_names.empty()) x["dim_names"] = r.dim_names;
  if (!r.axes.empty()) {
    json a = json::array();
    for (const auto& [n, v] : r.axes) a.push_back({n, v});
    x["axes"] = a;
  }
  if (!r.note.empty()) x["note"] = r.note;
  if (r.slow_path) x["slow_path"] = true;
  if (r.not_run) x["not_run"] = true;
  x["validation"] = r.check;
  x["validation_exact_inputs"] = r.exact_check;
  x["validation_vs_library"] = r.library_check;
  x["had_library_output"] = r.had_library_output;
  if (r.has_timing) {
    json t = r.time_ms;
    t["converged"] = r.converged;
    t["samples"] = r.samples_ms;
    if (!r.pass_medians_ms.empty()) t["pass_medians"] = r.pass_medians_ms;
    x["timing_ms"] = std::move(t);
  }
  json m = r.metric;
  m["work"] = r.work;
  m["library"] = r.library_name;
  if (!r.metric.also_name.empty() && r.has_timing) m["also"] = r.throughput * r.metric.also_factor;
  if (r.has_timing) {
    m["throughput"] = r.throughput;
    m["vs_library"] = r.vs_library;
    m["vs_ceiling"] = r.vs_ceiling;
  }
  x["metric"] = std::move(m);
}

void from_json(const json& x, Row& r) {
  if (!x.is_object()) throw ReportReadError("\"results\" holds something that is not a row");
  r = Row{};
  r.family = required(x, "family");
  r.dtype = required(x, "dtype");
  r.shape = required(x, "shape");
  r.variant = required(x, "variant");
  r.status = status_from(required(x, "status"));
  read(x, "dims", r.dims);
  read(x, "dim_names", r.dim_names);
  if (x.contains("axes") && x["axes"].is_array())
    for (const auto& p : x["axes"]) r.axes.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
  read(x, "origin", r.origin);
  read(x, "lesson", r.lesson);
  r.source = x.value("source", std::string("handwritten")) == "library" ? Source::library : Source::handwritten;
  read(x, "seed", r.seed);
  read(x, "note", r.note);
  read(x, "slow_path", r.slow_path);
  read(x, "not_run", r.not_run);
  read(x, "validation", r.check);
  read(x, "validation_exact_inputs", r.exact_check);
  read(x, "validation_vs_library", r.library_check);
  read(x, "had_library_output", r.had_library_output);
  if (x.contains("timing_ms") && x["timing_ms"].is_object()) {
    const json& t = x["timing_ms"];
    r.has_timing = true;
    r.time_ms = t.get<SampleStats>();
    read(t, "converged", r.converged);
    if (t.contains("samples") && t["samples"].is_array())
      for (const json& s : t["samples"]) r.samples_ms.push_back(number(s));
    if (t.contains("pass_medians") && t["pass_medians"].is_array())
      for (const json& s : t["pass_medians"]) r.pass_medians_ms.push_back(number(s));
  }
  if (x.contains("metric") && x["metric"].is_object()) {
    const json& m = x["metric"];
    r.metric = m.get<Metric>();
    r.work = number_or(m, "work", 0);
    read(m, "library", r.library_name);
    r.throughput = number_or(m, "throughput", 0);
    r.vs_library = number_or(m, "vs_library", 0);
    r.vs_ceiling = number_or(m, "vs_ceiling", 0);
  }
}

// ---- RunMeta -------------------------------------------------------------------------------

void to_json(json& j, const RunMeta& m) {
  j = json::object();
  j["tool"] = m.tool_version;
  j["command_line"] = m.command_line;
  j["git_commit"] = m.git_commit;
  j["timestamp_utc"] = m.timestamp_utc;
  j["complete"] = !m.incomplete;
  if (m.incomplete) j["incomplete_reason"] = m.incomplete_reason;
  j["passes"] = m.passes;
  j["processes"] = m.processes;
  j["mode"] = m.mode;
  j["timing_method"] = m.timing_method;
  j["l2_flush"] = m.l2_flush;
  if (!m.has_device) return;
  const DeviceInfo& d = m.device;
  j["device"] = d;
  j["device"]["smem_bank_mode"] = m.smem_bank_mode;
  j["versions"] = {{"driver", d.driver_version},
                   {"cuda_runtime", d.runtime_version},
                   {"cublas", d.cublas_version},
                   {"cccl", d.cccl_version}};
  j["device_state"] = {{"start", m.state_start}, {"end", m.state_end}};
  j["ceilings"] = {{"d2d_copy_gbps_measured", m.copy_gbps},
                   {"fp32_tflops_peak", d.fp32_tflops_peak},
                   {"fp64_tflops_peak", d.fp64_tflops_peak}};
}

void from_json(const json& j, RunMeta& m) {
  m = RunMeta{};
  read(j, "tool", m.tool_version);
  read(j, "command_line", m.command_line);
  read(j, "git_commit", m.git_commit);
  read(j, "timestamp_utc", m.timestamp_utc);
  bool complete = true;
  read(j, "complete", complete);
  m.incomplete = !complete;
  read(j, "incomplete_reason", m.incomplete_reason);
  read(j, "passes", m.passes);
  read(j, "processes", m.processes);
  m.passes = std::max(m.passes, 1);
  m.processes = std::max(m.processes, 1);
  read(j, "mode", m.mode);
  read(j, "timing_method", m.timing_method);
  read(j, "l2_flush", m.l2_flush);
  if (j.contains("device") && j["device"].is_object()) {
    m.has_device = true;
    m.device = j["device"].get<DeviceInfo>();
    read(j["device"], "smem_bank_mode", m.smem_bank_mode);
  }
  if (j.contains("versions") && j["versions"].is_object()) {
    const json& v = j["versions"];
    read(v, "driver", m.device.driver_version);
    read(v, "cuda_runtime", m.device.runtime_version);
    read(v, "cublas", m.device.cublas_version);
    read(v, "cccl", m.device.cccl_version);
  }
  if (j.contains("device_state") && j["device_state"].is_object()) {
    read(j["device_state"], "start", m.state_start);
    read(j["device_state"], "end", m.state_end);
  }
  if (j.contains("ceilings") && j["ceilings"].is_object()) m.copy_gbps = number_or(j["ceilings"], "d2d_copy_gbps_measured", 0);
}

// ---- Report --------------------------------------------------------------------------------

void to_json(json& j, const Report& r) {
  j = r.meta;
  j["schema"] = report_schema_id(kReportSchemaVersion);
  j["schema_version"] = kReportSchemaVersion;
  json rows = json::array();
  for (const Row& row : r.rows) rows.push_back(row);
  j["results"] = std::move(rows);
}

void from_json(const json& j, Report& r) {
  const std::string prefix = report_schema_id(0).substr(0, kReportSchemaName.size() + 1);  // "kernel-ladder/compare/"
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>().rfind(prefix, 0) != 0)
    throw ReportReadError("not a compare report (no \"schema\": \"" + prefix + "N\")");
  const std::string schema = j["schema"].get<std::string>();
  int version = 0;
  try {
    std::size_t used = 0;
    version = std::stoi(schema.substr(prefix.size()), &used);
    if (used != schema.size() - prefix.size()) version = 0;
  } catch (const std::exception&) {
    version = 0;
  }
  if (version < 1) throw ReportReadError("unknown schema '" + schema + "'");
  if (j.contains("schema_version") && !(j["schema_version"].is_number_integer() && j["schema_version"].get<int>() == version))
    throw ReportReadError("\"schema_version\": " + j["schema_version"].dump() + " does not match \"schema\": \"" + schema + "\"");
  if (!j.contains("results") || !j["results"].is_array())
    throw ReportReadError("no \"results\" array (not a compare report?)");
  Report out;
  out.schema_version = version;
  try {
    out.meta = j.get<RunMeta>();
  } catch (const json::exception& e) {
    throw ReportReadError("the metadata does not read as compare's (" + json_message(e) + ")");
  }
  try {
    for (const json& row : j["results"]) out.rows.push_back(row.get<Row>());
  } catch (const json::exception& e) {  // a field of an unexpected type
    throw ReportReadError("a row does not read as compare's (" + json_message(e) + ")");
  }
  r = std::move(out);
}

Report parse_report(std::string_view text) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    throw ReportReadError("not JSON (" + json_message(e) + ")");
  }
  return j.get<Report>();
}

}  // namespace kl
