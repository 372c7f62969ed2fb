#include "compare/report/report.hpp"

#include "compare/core/requirements.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

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

namespace {

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

// Groups rows by problem, preserving order.
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

struct Column {
  std::string head;
  bool left;
};

void print_grid(std::ostream& os, const std::vector<Column>& cols,
                const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> w(cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) w[c] = cols[c].head.size();
  for (const auto& row : cells)
    for (std::size_t c = 0; c < cols.size(); ++c) w[c] = std::max(w[c], row[c].size());
  auto line = [&](const std::vector<std::string>& v) {
    os << " ";
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string pad(w[c] - v[c].size(), ' ');
      os << ' ' << (cols[c].left ? v[c] + pad : pad + v[c]);
    }
    os << '\n';
  };
  std::vector<std::string> heads;
  for (const auto& c : cols) heads.push_back(c.head);
  line(heads);
  for (const auto& row : cells) line(row);
}

std::string problem_title(const Row& r) { return r.family + "  " + r.dtype + "  " + r.shape; }

}  // namespace

void print_table(std::ostream& os, const Report& rep) {
  for (const auto& group : by_problem(rep)) {
    const Row& first = *group.front();
    // The second rate's column (allreduce: algbw beside busbw) only where the metric has one.
    const bool also = !first.metric.also_name.empty();
    std::vector<Column> cols = {{"variant", true}, {"origin", true}, {"median", false}, {"min", false},
                                {"max", false},    {"noise", false}, {rate_head(first.metric), false}};
    if (also) cols.push_back({first.metric.also_name, false});
    for (const Column& c : std::vector<Column>{{"vs lib", false}, {"vs ceil", false}, {"check", true}}) cols.push_back(c);
    os << '\n' << problem_title(first);
    if (!first.metric.unit.empty()) os << "   " << (also ? rate_head(first.metric) + " and " + first.metric.also_name : "rate") << " in " << first.metric.unit;
    if (!first.metric.ceiling_label.empty()) os << ", ceiling: " << first.metric.ceiling_label;
    if (!first.library_name.empty()) os << ", library: " << first.library_name;
    os << '\n';
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> notes;
    for (const Row* r : group) {
      std::string name = r->variant + (r->source == Source::library ? " [lib]" : "");
      std::vector<std::string> cell;
      if (r->status == RowStatus::skipped || r->status == RowStatus::error) {
        cell = {name, r->origin, "-", "-", "-", "-", "-", "-", "-", std::string(status_name(r->status))};
      } else {
        cell = {name, r->origin,
                r->has_timing ? format_time_ms(r->time_ms.median) : "-",
                r->has_timing ? format_time_ms(r->time_ms.min) : "-",
                r->has_timing ? format_time_ms(r->time_ms.max) : "-",
                r->has_timing ? format_percent(r->time_ms.noise) + (r->converged ? "" : "*") : "-",
                throughput_text(*r), format_percent(r->vs_library), format_percent(r->vs_ceiling),
                check_text(*r)};
      }
      if (also) cell.insert(cell.begin() + 7, r->status == RowStatus::skipped || r->status == RowStatus::error ? "-" : also_text(*r));
      cells.push_back(std::move(cell));
      if (!r->note.empty() && (r->status != RowStatus::ok || has_slow_note(r->note))) notes.push_back(r->variant + ": " + r->note);
    }
    print_grid(os, cols, cells);
    for (const auto& n : notes) os << "    note: " << n << '\n';
  }
  os << "\n  check: worst |error| / bound on random inputs (pass <= 1); int ok/FAIL: equality on integer-valued"
        " inputs; (no lib): no library output to cross-check against. noise: relative std. dev. of samples"
        " (* = stopped by the time/sample cap before reaching the noise target)\n";
}

namespace {

nlohmann::json check_json(const Check& c) {
  using nlohmann::json;
  json x = {{"ran", c.ran}, {"pass", c.pass}};
  if (c.ran) {
    x["max_abs_err"] = std::isfinite(c.max_abs_err) ? json(c.max_abs_err) : json("inf");
    x["worst_err_over_bound"] = std::isfinite(c.worst_ratio) ? json(c.worst_ratio) : json("inf");
    x["bound_at_worst"] = c.bound_at_worst;
    x["worst_index"] = c.worst_index;
    x["elements_out_of_bound"] = c.bad_count;
    if (!c.detail.empty()) x["detail"] = c.detail;
  }
  return x;
}

nlohmann::json state_json(const DeviceState& s) {
  using nlohmann::json;
  if (!s.available) return {{"available", false}, {"why", s.why_unavailable}};
  return {{"available", true},
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

Check check_from_json(const nlohmann::json& x) {
  Check c;
  c.ran = x.value("ran", false);
  c.pass = x.value("pass", false);
  if (!c.ran) return c;
  auto num = [&](const char* k) {
    const auto& v = x.at(k);
    return v.is_string() ? std::numeric_limits<double>::infinity() : v.get<double>();
  };
  c.max_abs_err = num("max_abs_err");
  c.worst_ratio = num("worst_err_over_bound");
  c.bound_at_worst = x.value("bound_at_worst", 0.0);
  c.worst_index = x.value("worst_index", std::size_t{0});
  c.bad_count = x.value("elements_out_of_bound", std::size_t{0});
  c.detail = x.value("detail", std::string());
  return c;
}

}  // namespace

std::string row_to_json(const Row& r) {
  using nlohmann::json;
  json x = {{"family", r.family}, {"dtype", r.dtype},       {"shape", r.shape},
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
  x["validation"] = check_json(r.check);
  x["validation_exact_inputs"] = check_json(r.exact_check);
  x["validation_vs_library"] = check_json(r.library_check);
  x["had_library_output"] = r.had_library_output;
  if (r.has_timing) {
    x["timing_ms"] = {{"count", r.time_ms.samples}, {"median", r.time_ms.median},
                      {"min", r.time_ms.min},         {"max", r.time_ms.max},
                      {"mean", r.time_ms.mean},       {"noise", r.time_ms.noise},
                      {"converged", r.converged},     {"samples", r.samples_ms}};
  }
  x["metric"] = {{"work", r.work},
                 {"work_unit", r.metric.work_unit},
                 {"family_work", r.metric.work},
                 {"unit", r.metric.unit},
                 {"scale", r.metric.scale},
                 {"decimals", r.metric.decimals},
                 {"ceiling", r.metric.ceiling_label},
                 {"ceiling_value", r.metric.ceiling},
                 {"library", r.library_name}};
  if (!r.metric.rate_name.empty()) x["metric"]["rate_name"] = r.metric.rate_name;
  if (!r.metric.also_name.empty()) {
    x["metric"]["also_name"] = r.metric.also_name;
    x["metric"]["also_factor"] = r.metric.also_factor;
    if (r.has_timing) x["metric"]["also"] = r.throughput * r.metric.also_factor;
  }
  if (r.has_timing) {
    x["metric"]["throughput"] = r.throughput;
    x["metric"]["vs_library"] = r.vs_library;
    x["metric"]["vs_ceiling"] = r.vs_ceiling;
  }
  return x.dump();
}

Row row_from_json(const std::string& text) {
  const auto x = nlohmann::json::parse(text);
  Row r;
  r.family = x.at("family");
  r.dtype = x.at("dtype");
  r.shape = x.at("shape");
  r.dims = x.at("dims").get<Dims>();
  if (x.contains("dim_names")) r.dim_names = x["dim_names"].get<std::vector<std::string>>();
  if (x.contains("axes"))
    for (const auto& p : x["axes"]) r.axes.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
  r.variant = x.at("variant");
  r.origin = x.value("origin", std::string());
  r.lesson = x.value("lesson", std::string());
  r.source = x.at("source") == "library" ? Source::library : Source::handwritten;
  const std::string st = x.at("status");
  r.status = st == "ok" ? RowStatus::ok : st == "FAIL" ? RowStatus::fail : st == "skipped" ? RowStatus::skipped : RowStatus::error;
  r.seed = x.value("seed", std::uint64_t{0});
  r.note = x.value("note", std::string());
  r.check = check_from_json(x.at("validation"));
  r.exact_check = check_from_json(x.at("validation_exact_inputs"));
  r.library_check = check_from_json(x.at("validation_vs_library"));
  r.had_library_output = x.value("had_library_output", false);
  if (x.contains("timing_ms")) {
    const auto& t = x["timing_ms"];
    r.has_timing = true;
    r.time_ms.samples = t.at("count");
    r.time_ms.median = t.at("median");
    r.time_ms.min = t.at("min");
    r.time_ms.max = t.at("max");
    r.time_ms.mean = t.at("mean");
    r.time_ms.noise = t.at("noise");
    r.converged = t.at("converged");
    r.samples_ms = t.at("samples").get<std::vector<double>>();
  }
  const auto& m = x.at("metric");
  r.work = m.at("work");
  r.metric.work_unit = m.at("work_unit");
  r.metric.work = m.at("family_work");
  r.metric.unit = m.at("unit");
  r.metric.scale = m.at("scale");
  r.metric.decimals = m.at("decimals");
  r.metric.ceiling_label = m.at("ceiling");
  r.metric.ceiling = m.at("ceiling_value");
  r.library_name = m.at("library");
  r.metric.rate_name = m.value("rate_name", std::string());
  r.metric.also_name = m.value("also_name", std::string());
  r.metric.also_factor = m.value("also_factor", 0.0);
  r.throughput = m.value("throughput", 0.0);
  r.vs_library = m.value("vs_library", 0.0);
  r.vs_ceiling = m.value("vs_ceiling", 0.0);
  return r;
}

std::string to_json(const Report& rep) {
  using nlohmann::json;
  const RunMeta& m = rep.meta;
  json j;
  j["schema"] = "kernel-ladder/compare/2";
  j["tool"] = m.tool_version;
  j["command_line"] = m.command_line;
  j["git_commit"] = m.git_commit;
  j["timestamp_utc"] = m.timestamp_utc;
  j["complete"] = !m.incomplete;
  if (m.incomplete) j["incomplete_reason"] = m.incomplete_reason;
  j["mode"] = m.mode;
  j["timing_method"] = m.timing_method;
  j["l2_flush"] = m.l2_flush;
  if (m.has_device) {
    const DeviceInfo& d = m.device;
    j["device"] = {{"index", d.index},
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
                   {"fp64_tflops_peak", d.fp64_tflops_peak},
                   {"smem_bank_mode", m.smem_bank_mode}};
    j["versions"] = {{"driver", d.driver_version},
                     {"cuda_runtime", d.runtime_version},
                     {"cublas", d.cublas_version},
                     {"cccl", d.cccl_version}};
    j["device_state"] = {{"start", state_json(m.state_start)}, {"end", state_json(m.state_end)}};
    j["ceilings"] = {{"d2d_copy_gbps_measured", m.copy_gbps},
                     {"fp32_tflops_peak", d.fp32_tflops_peak},
                     {"fp64_tflops_peak", d.fp64_tflops_peak}};
  }
  json rows = json::array();
  for (const Row& r : rep.rows) rows.push_back(json::parse(row_to_json(r)));
  j["results"] = std::move(rows);
  return j.dump(2) + "\n";
}

namespace {
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}
}  // namespace

std::string to_csv(const Report& rep) {
  std::ostringstream os;
  os << "family,dtype,shape,variant,source,origin,status,median_ms,min_ms,max_ms,noise,samples,"
        "throughput,unit,vs_library,vs_ceiling,max_abs_err,err_over_bound,pass,exact_inputs_pass,note\n";
  for (const Row& r : rep.rows) {
    os << csv_escape(r.family) << ',' << r.dtype << ',' << csv_escape(r.shape) << ','
       << csv_escape(r.variant) << ',' << source_name(r.source) << ',' << csv_escape(r.origin) << ','
       << status_name(r.status) << ',';
    if (r.has_timing) {
      os << fmt("%.6g", r.time_ms.median) << ',' << fmt("%.6g", r.time_ms.min) << ','
         << fmt("%.6g", r.time_ms.max) << ',' << fmt("%.4g", r.time_ms.noise) << ','
         << r.time_ms.samples << ',' << fmt("%.6g", r.throughput) << ',' << r.metric.unit << ','
         << fmt("%.4g", r.vs_library) << ',' << fmt("%.4g", r.vs_ceiling) << ',';
    } else {
      os << ",,,,,,,,,";
    }
    if (r.check.ran) os << fmt("%.6g", r.check.max_abs_err) << ',' << fmt("%.4g", r.check.worst_ratio) << ',' << (r.check.pass ? "true" : "false");
    else os << ",,";
    os << ',' << (r.exact_check.ran ? (r.exact_check.pass ? "true" : "false") : "");
    os << ',' << csv_escape(r.note) << '\n';
  }
  if (rep.meta.incomplete) os << "# incomplete: " << csv_escape(rep.meta.incomplete_reason) << '\n';
  return os.str();
}

std::string to_markdown(const Report& rep) {
  std::ostringstream os;
  const RunMeta& m = rep.meta;
  os << "# compare results\n\n";
  if (m.incomplete) os << "**Incomplete:** " << m.incomplete_reason << "\n\n";
  if (m.has_device) {
    const DeviceInfo& d = m.device;
    os << "- device: " << d.name << " (CC " << d.cc_major << '.' << d.cc_minor << ", " << d.sm_count
       << " SMs, " << fmt("%.0f", d.sm_clock_mhz) << " MHz, L2 " << (d.l2_bytes >> 20) << " MiB, "
       << fmt("%.1f", d.global_mem_bytes / 1073741824.0) << " GiB)\n";
    os << "- driver " << d.driver_version << ", CUDA runtime " << d.runtime_version << ", cuBLAS "
       << d.cublas_version << ", CCCL " << d.cccl_version << '\n';
    os << "- ceilings: device-to-device copy " << fmt("%.0f", m.copy_gbps) << " GB/s measured (DRAM "
       << fmt("%.0f", d.dram_gbps_theoretical) << " GB/s theoretical); FP32 peak "
       << fmt("%.1f", d.fp32_tflops_peak) << " TFLOP/s, FP64 peak " << fmt("%.1f", d.fp64_tflops_peak)
       << " TFLOP/s (FMA lanes × SMs × clock)\n";
  }
  os << "- commit `" << m.git_commit << "`, " << m.timestamp_utc << ", mode: " << m.mode << '\n';
  os << "- command: `" << m.command_line << "`\n";
  os << "- timing: " << m.timing_method << "\n";
  auto state = [&](const char* when, const DeviceState& s) {
    if (!s.available) return;
    os << "- GPU at " << when << ": SM " << s.sm_clock_mhz << " MHz (max " << s.max_sm_clock_mhz << "), memory "
       << s.mem_clock_mhz << " MHz, " << s.temperature_c << " C, " << fmt("%.0f", s.power_w) << " W"
       << (s.app_clocks_changed ? ", application clocks changed from default" : "");
    for (const auto& r : s.reasons) os << ", " << r;
    os << '\n';
  };
  state("start", m.state_start);
  state("end", m.state_end);
  for (const auto& group : by_problem(rep)) {
    const Row& first = *group.front();
    os << "\n## " << problem_title(first) << "\n\n";
    const bool also = !first.metric.also_name.empty();
    auto head = [&](const std::string& name) {
      const std::string unit = first.metric.unit.empty() ? "rate" : first.metric.unit;
      return first.metric.rate_name.empty() && name.empty() ? unit : (name.empty() ? first.metric.rate_name : name) + " " + unit;
    };
    os << "| variant | origin | median | min | max | noise | " << head("") << (also ? " | " + head(first.metric.also_name) : "")
       << " | vs " << (first.library_name.empty() ? "library" : first.library_name) << " | vs ceiling | check |\n";
    os << "|---|---|--:|--:|--:|--:|--:|" << (also ? "--:|" : "") << "--:|--:|---|\n";
    for (const Row* r : group) {
      os << "| `" << r->variant << '`' << (r->source == Source::library ? " (library)" : "") << " | " << r->origin << " | ";
      if (r->has_timing) {
        os << format_time_ms(r->time_ms.median) << " | " << format_time_ms(r->time_ms.min) << " | "
           << format_time_ms(r->time_ms.max) << " | " << format_percent(r->time_ms.noise) << " | "
           << throughput_text(*r) << " | " << (also ? also_text(*r) + " | " : "") << format_percent(r->vs_library)
           << " | " << format_percent(r->vs_ceiling) << " | ";
      } else {
        os << "- | - | - | - | - | " << (also ? "- | " : "") << "- | - | ";
      }
      os << (r->status == RowStatus::ok ? check_text(*r) + (has_slow_note(r->note) ? "; " + r->note : std::string())
                                        : std::string(status_name(r->status)) + ": " + r->note)
         << " |\n";
    }
    if (!first.metric.ceiling_label.empty()) os << "\nceiling: " << first.metric.ceiling_label << '\n';
  }
  return os.str();
}

namespace {

// A temporary file beside `p` with a unique name (mkstemp), removed again unless renamed.
struct TempFile {
  std::string path;
  bool keep = false;
  explicit TempFile(const std::filesystem::path& p) {
    std::string tmpl = p.string() + ".XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file beside " + p.string());
    close(fd);
    path = tmpl;
  }
  ~TempFile() {
    if (!keep) std::remove(path.c_str());
  }
};

void write_all(const std::string& path, const std::string& content) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0 &&
                  fsync(fileno(f)) == 0;
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  TempFile tmp(p);
  write_all(tmp.path, content);
  std::error_code ec;
  fs::rename(tmp.path, p, ec);
  if (ec) throw std::runtime_error("cannot write " + p.string() + ": " + ec.message());
  tmp.keep = true;
}

std::vector<std::string> write_reports(const std::string& base, const Report& r) {
  // Rendered first, so a failure to render leaves the old files as they were.
  const std::vector<std::pair<std::string, std::string>> files = {
      {base + ".json", to_json(r)}, {base + ".csv", to_csv(r)}, {base + ".md", to_markdown(r)}};
  std::vector<std::string> written;
  for (const auto& [path, content] : files) {
    write_file_atomic(path, content);
    written.push_back(path);
  }
  return written;
}

}  // namespace kl
