#include "compare/report/merge.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace kl {

Report merge_reports(const std::vector<Report>& parts, std::string& warning) {
  if (parts.empty()) throw std::invalid_argument("nothing to merge");
  Report out;
  out.meta = parts.front().meta;
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  std::set<std::string> devices;
  for (const Report& p : parts) {
    devices.insert(p.meta.device.name);
    if (p.meta.incomplete) {
      out.meta.incomplete = true;
      out.meta.incomplete_reason += (out.meta.incomplete_reason.empty() ? "" : "; ") + p.meta.incomplete_reason;
    }
    for (const Row& r : p.rows) {
      // Each shard times the library baselines again: the first shard's rows are kept, and each
      // submission's own row keeps its vs-library from its own shard's library, timed beside it.
      if (!seen.insert({r.family, r.dtype, r.shape, r.variant}).second) continue;
      out.rows.push_back(r);
    }
  }
  if (devices.size() > 1) {
    warning = "the reports come from different GPUs (";
    for (const auto& d : devices) warning += (warning.back() == '(' ? "" : ", ") + d;
    warning += "): their rows are not comparable with one another";
  }
  return out;
}

}  // namespace kl
