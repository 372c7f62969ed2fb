// The list of families the runner knows. Adding a family: implement kl::Family in
// compare/family_<name>.cpp and add one line here.
#include "compare/family.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace kl {

const Family& reduce_family();
const Family& gemm_family();
const Family& aat_family();

const std::vector<const Family*>& all_families() {
  static const std::vector<const Family*> list = {&reduce_family(), &gemm_family(), &aat_family()};
  return list;
}

const Family* find_family(std::string_view name) {
  for (const Family* f : all_families())
    if (f->name() == name) return f;
  return nullptr;
}

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

}  // namespace kl
