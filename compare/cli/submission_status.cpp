#include "compare/cli/submission_status.hpp"

#include "compare/core/family.hpp"
#include "compare/sandbox/submissions.hpp"

#include <algorithm>
#include <map>

namespace kl {
namespace {

std::string comma_joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "reduce: warp_atomic (float); gemv: warp_per_row (float, double)" for the given variants.
std::string registrations(const std::vector<const SubmissionVariant*>& vs) {
  std::vector<std::string> families;
  std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>> by_family;
  for (const SubmissionVariant* v : vs) {
    if (!by_family.count(v->family)) families.push_back(v->family);
    auto& names = by_family[v->family];
    const std::string name = v->full_name.substr(v->submission.size() + 1);
    auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
    if (it == names.end()) names.push_back({name, {v->dtype}});
    else it->second.push_back(v->dtype);
  }
  std::string s;
  for (const std::string& f : families) {
    std::vector<std::string> items;
    for (const auto& [name, types] : by_family[f]) items.push_back(name + " (" + comma_joined(types) + ")");
    s += (s.empty() ? "" : "; ") + f + ": " + comma_joined(items);
  }
  return s;
}

// "reduce (float)", "reduce (float), gemv (float, double)"
std::string chosen_text(const std::vector<ChosenFamily>& chosen) {
  std::vector<std::string> parts;
  for (const ChosenFamily& c : chosen) {
    std::vector<std::string> types;
    for (DType t : c.types) types.emplace_back(dtype_name(t));
    parts.push_back(std::string(c.family->name()) + " (" + comma_joined(types) + ")");
  }
  return comma_joined(parts);
}

bool chosen_has(const std::vector<ChosenFamily>& chosen, const SubmissionVariant& v) {
  for (const ChosenFamily& c : chosen)
    if (c.family->name() == v.family)
      for (DType t : c.types)
        if (dtype_name(t) == v.dtype) return true;
  return false;
}

}  // namespace

std::vector<SubmissionStatus> submission_statuses(const SubmissionSet& set, const std::vector<std::string>& patterns,
                                                  const std::vector<ChosenFamily>& chosen) {
  return statuses_of(set.mine(), patterns, chosen);
}

std::vector<SubmissionStatus> statuses_of(const std::vector<const Submission*>& subs, const std::vector<std::string>& patterns,
                                          const std::vector<ChosenFamily>& chosen) {
  std::vector<SubmissionStatus> out;
  for (const Submission* sub : subs) {
    const Submission& s = *sub;
    bool named = patterns.empty(), literally = false;
    for (const auto& p : patterns) {
      bool lit = false;
      if (pattern_names_submission(p, s.name, &lit)) named = true, literally |= lit;
    }
    if (!named) continue;
    SubmissionStatus st;
    st.name = s.name;
    if (!s.broken.empty()) {
      st.text = "left out: " + s.broken;
      st.left_out = st.failed = true;
      out.push_back(std::move(st));
      continue;
    }
    std::vector<const SubmissionVariant*> every, taken, in_chosen;
    for (const SubmissionVariant& v : s.variants) {
      every.push_back(&v);
      if (chosen.empty() || !chosen_has(chosen, v)) continue;
      in_chosen.push_back(&v);
      if (matches_any(v.full_name, patterns)) taken.push_back(&v);
    }
    if (chosen.empty()) {
      st.text = registrations(every);
    } else if (!taken.empty()) {
      st.graded = true;
      st.text = "graded: " + registrations(taken);
    } else {
      st.failed = literally;
      st.text = in_chosen.empty() ? "not graded: no variant in " + chosen_text(chosen) + "; it registers " + registrations(every)
                                  : "not graded: --variants names none of its variants in " + chosen_text(chosen) +
                                        "; it registers " + registrations(every);
    }
    out.push_back(std::move(st));
  }
  return out;
}

std::string status_lines(const std::vector<SubmissionStatus>& statuses) {
  std::string s;
  for (const SubmissionStatus& st : statuses) s += "  " + st.name + ": " + st.text + "\n";
  return s;
}

}  // namespace kl
