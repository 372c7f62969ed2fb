// Small wordings the comparison and its rendering share (internal to compare/diff/).
#pragma once

#include "compare/diff/diff.hpp"

#include <cstdio>
#include <string>

namespace kl::diff_text {

inline std::string percent(double f, bool sign = false) {
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", f * 100.0);
  return buf;
}

inline std::string counted(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

inline std::string counted(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

inline std::string alpha_text(double a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", a);
  return buf;
}

inline std::string p_text(double p) {
  char buf[32];
  if (p < 0.001) return "<0.001";
  std::snprintf(buf, sizeof buf, "%.3f", p);
  return buf;
}

inline std::string problem_key(const DiffRow& r) { return r.family + '\x1f' + r.dtype + '\x1f' + r.shape; }

}  // namespace kl::diff_text
