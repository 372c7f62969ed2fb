// Problem sizes: the named dimensions of a family ("n"; "M x N"; "M x N x K"), how `--sizes`
// entries are parsed into them, named size sets (document 003's sweep as `--sizes 003`), and
// power-of-two sweeps. Said once here for every family; errors name the dimension. Dims, the
// values themselves, is a report type (compare/report/row.hpp).
#pragma once

#include "compare/report/row.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

// Every dimension the runner accepts is at most this: kernels index with int and step tiles
// past the last element (k0 += BK), so a dimension within 2^30 never overflows a signed int.
inline constexpr long long kMaxDim = 1LL << 30;

struct NamedSizes {
  std::string name;         // what follows --sizes, e.g. "003"
  std::string description;  // one line for --list
  std::vector<Dims> sizes;
};

struct SizeSpec {
  std::vector<std::string> dims = {};  // names, e.g. {"M", "N", "K"}; a single name is a count
  bool one_number_fills = true;    // "2048" means 2048 in every dimension (square)
  long long max_dim = kMaxDim;     // per-dimension limit (a count may allow more: reduce, dot)
  std::vector<Dims> defaults = {};    // the default comparison's sizes
  int sweep_lo = 10, sweep_hi = 20;  // --default-sweep: 2^lo .. 2^hi in every dimension
  std::vector<NamedSizes> named = {};  // --sizes NAME

  std::string syntax() const;      // "M x N x K, or one number for all: 2048, 513x257x129"
  std::string label(const Dims& d) const;  // "n=1024", "513x257x129"
  // Parses one --sizes entry (or a named set) into dims; throws UsageError naming the family,
  // the text and the dimension at fault.
  std::vector<Dims> parse(std::string_view family, std::string_view text) const;
  // 2^e in every dimension for e in [lo, hi]; throws UsageError where 2^hi is above max_dim.
  std::vector<Dims> sweep(std::string_view family, int lo, int hi) const;
};

// Parses a positive integer: "1000", "1e6", "2^28", "1<<20"; throws UsageError("<what> '<text>' ...").
long long parse_positive_count(std::string_view text, std::string_view what);

}  // namespace kl
