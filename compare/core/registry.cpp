// The family registry. Families register themselves (compare/families/<name>.cpp:
// KL_REGISTER_FAMILY(Traits, order)); the order key is the order of --list and the default run.
#include "compare/core/family.hpp"
#include "compare/core/family_core.hpp"

#include <algorithm>
#include <tuple>

namespace kl {

namespace {

struct Registered {
  const Family* family;
  int order;
};
std::vector<Registered>& registered() {
  static std::vector<Registered> list;
  return list;
}
std::vector<UnbuiltFamily>& unbuilt() {
  static std::vector<UnbuiltFamily> list;
  return list;
}

}  // namespace

void register_family(const Family* f, int order) { registered().push_back({f, order}); }
void register_unbuilt_family(std::string name, std::string why) { unbuilt().push_back({std::move(name), std::move(why)}); }

const std::vector<const Family*>& all_families() {
  // Built on first use, after every static registration has run.
  static const std::vector<const Family*> list = [] {
    auto r = registered();
    std::stable_sort(r.begin(), r.end(), [](const Registered& a, const Registered& b) {
      return std::forward_as_tuple(a.order, a.family->name()) < std::forward_as_tuple(b.order, b.family->name());
    });
    for (std::size_t i = 1; i < r.size(); ++i)
      if (r[i].family->name() == r[i - 1].family->name())
        throw std::logic_error("two families are named " + std::string(r[i].family->name()));
    std::vector<const Family*> out;
    for (const auto& x : r) out.push_back(x.family);
    return out;
  }();
  return list;
}

const std::vector<UnbuiltFamily>& unbuilt_families() { return unbuilt(); }

void refuse_duplicate_names(std::string_view family, std::string_view type, const std::vector<std::string_view>& names) {
  std::vector<std::string_view> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end())
    throw std::logic_error(std::string(family) + " " + std::string(type) + ": two variants are named '" + std::string(*dup) +
                           "' (a name identifies a row in reports, diffs and --variants)");
}

const Family* find_family(std::string_view name) {
  for (const Family* f : all_families())
    if (f->name() == name) return f;
  return nullptr;
}

const std::string& ProblemKey::axis(std::string_view name) const {
  for (const auto& [n, v] : axes)
    if (n == name) return v;
  throw std::logic_error("problem has no axis '" + std::string(name) + "'");
}

std::string Family::shape_label(const ProblemKey& k) const {
  std::string s = sizes().label(k.dims);
  for (const auto& [n, v] : k.axes) s += " " + n + "=" + v;
  return s;
}

ProblemKey make_key(const Family& f, DType t, Dims dims, AxisValues axes) {
  ProblemKey k{t, std::move(dims), {}};
  for (const StringAxis& a : f.axes()) {
    std::string value = a.defaults.empty() ? a.values.at(0) : a.defaults.at(0);
    for (const auto& [n, v] : axes)
      if (n == a.name) value = v;
    k.axes.emplace_back(a.name, value);
  }
  return k;
}

}  // namespace kl
