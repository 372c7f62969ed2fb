#include "compare/report/merge.hpp"

#include <map>
#include <set>
#include <tuple>

namespace kl {

namespace {

using RowKey = std::tuple<std::string, std::string, std::string, std::string>;

// A submission's variant is named SUBMISSION/NAME; the ladder's and the library's never hold '/'.
bool from_a_submission(const Row& r) { return r.source == Source::handwritten && r.variant.find('/') != std::string::npos; }

std::string describe(const RowKey& k) {
  return std::get<0>(k) + " " + std::get<1>(k) + " " + std::get<2>(k) + " " + std::get<3>(k);
}

}  // namespace

std::vector<std::string> MergeNotes::lines() const {
  std::vector<std::string> out;
  if (copies_dropped)
    out.push_back(std::to_string(copies_dropped) + " library or ladder rows were in more than one report (each shard "
                  "times them beside its own submissions): each kept from the first report that has it");
  if (!mixed_gpus.empty())
    out.push_back("the reports come from different GPUs (" + mixed_gpus + "): their rows are not comparable with one another");
  return out;
}

Report merge_reports(const std::vector<Report>& parts, const std::vector<std::string>& labels, MergeNotes& notes) {
  if (parts.empty()) throw std::invalid_argument("nothing to merge");
  auto label = [&](std::size_t i) { return i < labels.size() ? labels[i] : "report " + std::to_string(i + 1); };
  Report out;
  out.meta = parts.front().meta;
  out.meta.incomplete_reason.clear();
  out.meta.incomplete = false;
  std::map<RowKey, std::size_t> first_part;
  std::set<std::string> devices;
  std::size_t copies = 0, twice = 0;
  std::string first_twice;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Report& p = parts[i];
    devices.insert(p.meta.device.name);
    if (p.meta.incomplete) {
      out.meta.incomplete = true;
      out.meta.incomplete_reason += (out.meta.incomplete_reason.empty() ? "" : "; ") + p.meta.incomplete_reason;
    }
    for (const Row& r : p.rows) {
      const RowKey key{r.family, r.dtype, r.shape, r.variant};
      const auto [at, fresh] = first_part.emplace(key, i);
      if (fresh) {
        out.rows.push_back(r);
      } else if (from_a_submission(r)) {
        if (twice++ == 0) first_twice = describe(key) + " is in " + label(at->second) + " and in " + label(i);
      } else {
        ++copies;
      }
    }
  }
  if (twice)
    throw MergeRefused(first_twice + (twice > 1 ? " (and " + std::to_string(twice - 1) + " more rows of submissions)" : "") +
                       ": a submission graded in two reports; merge joins shards that each grade other submissions "
                       "(compare diff compares two runs)");
  notes.copies_dropped = copies;
  if (devices.size() > 1) {
    for (const auto& d : devices) notes.mixed_gpus += (notes.mixed_gpus.empty() ? "" : ", ") + d;
    out.meta.device = DeviceInfo{};
    out.meta.device.name = "mixed GPUs: " + notes.mixed_gpus;
  }
  return out;
}

}  // namespace kl
