// Markdown: the run's metadata, then a table per problem.
#include "compare/report/text.hpp"

#include <sstream>

namespace kl {

using namespace report_text;

std::string to_markdown(const Report& rep) {
  std::ostringstream os;
  const RunMeta& m = rep.meta;
  os << "# compare results\n\n";
  if (m.incomplete) os << "**Incomplete:** " << m.incomplete_reason << "\n\n";
  if (m.has_device && m.device.sm_count == 0) {  // merged from several GPUs (compare/report/merge.hpp): a name only
    os << "- device: " << m.device.name << "\n";
  } else if (m.has_device) {
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
      os << (r->status == RowStatus::ok ? check_text(*r) + (r->slow_path ? "; " + r->note : std::string())
                                        : std::string(status_name(r->status)) + ": " + r->note)
         << " |\n";
    }
    if (!first.metric.ceiling_label.empty()) os << "\nceiling: " << first.metric.ceiling_label << '\n';
  }
  return os.str();
}

}  // namespace kl
