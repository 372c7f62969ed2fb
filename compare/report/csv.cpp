// CSV: a header and one line per row, fields escaped.
#include "compare/report/text.hpp"

#include <sstream>

namespace kl {

using namespace report_text;

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

}  // namespace kl
