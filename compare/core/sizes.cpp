#include "compare/core/sizes.hpp"

#include "compare/core/family.hpp"  // UsageError

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace kl {

long long parse_positive_count(std::string_view text, std::string_view what) {
  const std::string s(text);
  auto fail = [&](const std::string& why) -> long long {
    throw UsageError(std::string(what) + " '" + s + "' " + why);
  };
  if (s.empty()) fail("is empty");
  long double value = 0;
  auto parse_number = [&](const std::string& t) -> long double {
    if (t.empty() || t.find_first_not_of("0123456789.eE+-") != std::string::npos) fail("is not a number");
    errno = 0;
    char* end = nullptr;
    const long double v = std::strtold(t.c_str(), &end);
    if (errno != 0 || end != t.c_str() + t.size()) fail("is not a number");
    return v;
  };
  if (auto p = s.find('^'); p != std::string::npos) {
    value = std::pow(parse_number(s.substr(0, p)), parse_number(s.substr(p + 1)));
  } else if (auto q = s.find("<<"); q != std::string::npos) {
    value = parse_number(s.substr(0, q)) * std::pow(2.0L, parse_number(s.substr(q + 2)));
  } else {
    value = parse_number(s);
  }
  if (!(value >= 1)) fail("must be a positive whole number");
  if (value != std::floor(value)) fail("must be a whole number");
  if (value > 9.0e18L) fail("is too large");
  return static_cast<long long>(value);
}

namespace {

std::string joined(const std::vector<std::string>& names, const char* sep) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : sep) + n;
  return s;
}

std::string limit_text(long long v) {
  for (int e = 0; e < 63; ++e)
    if ((1LL << e) == v) return "2^" + std::to_string(e);
  return std::to_string(v);
}

}  // namespace

std::string SizeSpec::syntax() const {
  if (dims.size() == 1) return dims[0] + " (a count, up to " + limit_text(max_dim) + "): 1000, 1e6, 2^28";
  std::string s = joined(dims, " x ");
  if (one_number_fills) s += ", or one number for all";
  s += " (each up to " + limit_text(max_dim) + ")";
  if (!defaults.empty()) s += ": " + label(defaults.front());
  for (const auto& n : named) s += "; " + n.name + " = " + n.description;
  return s;
}

std::string SizeSpec::label(const Dims& d) const {
  if (dims.size() == 1) return dims[0] + "=" + std::to_string(d.at(0));
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s;
}

std::vector<Dims> SizeSpec::parse(std::string_view family, std::string_view text) const {
  for (const auto& n : named)
    if (text == n.name) return n.sizes;
  const std::string what = std::string(family) + " size";
  Dims d;
  std::size_t start = 0, index = 0;
  while (true) {
    const std::size_t x = text.find_first_of("xX*", start);
    const std::string_view part = text.substr(start, x == std::string_view::npos ? x : x - start);
    const std::string dim_name = index < dims.size() ? dims[index] : "dimension " + std::to_string(index + 1);
    d.push_back(parse_positive_count(part, what + " '" + std::string(text) + "': " + dim_name + " ="));
    ++index;
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  if (d.size() == 1 && dims.size() > 1 && one_number_fills) d.assign(dims.size(), d[0]);
  if (d.size() != dims.size()) {
    std::string want = joined(dims, " x ");
    if (one_number_fills && dims.size() > 1) want += " (or one number for all)";
    for (const auto& n : named) want += ", or the set '" + n.name + "'";
    throw UsageError(what + " '" + std::string(text) + "' needs " + want);
  }
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] > max_dim)
      throw UsageError(what + " '" + std::string(text) + "': " + dims[i] + " = " + std::to_string(d[i]) +
                       " is larger than " + limit_text(max_dim));
  return {d};
}

std::vector<Dims> SizeSpec::sweep(std::string_view family, int lo, int hi) const {
  // The same per-dimension limit as --sizes (a sweep must not reach the device check with a
  // size no kernel's int index can hold).
  if (hi >= 63 || (1LL << hi) > max_dim)
    throw UsageError(std::string(family) + " sweep up to 2^" + std::to_string(hi) + ": " + dims.front() +
                     " = 2^" + std::to_string(hi) + " is larger than " + limit_text(max_dim));
  std::vector<Dims> v;
  for (int e = lo; e <= hi; ++e) v.push_back(Dims(dims.size(), 1LL << e));
  return v;
}

}  // namespace kl
