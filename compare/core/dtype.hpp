// Element types the runner knows, their names on the command line, and their unit roundoff.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace kl {

enum class DType { i32, f32, f64 };

inline std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::i32: return "int";
    case DType::f32: return "float";
    case DType::f64: return "double";
  }
  return "?";
}

inline std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "int" || s == "i32" || s == "int32") return DType::i32;
  if (s == "float" || s == "f32" || s == "fp32") return DType::f32;
  if (s == "double" || s == "f64" || s == "fp64") return DType::f64;
  return std::nullopt;
}

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<int>() { return DType::i32; }
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<double>() { return DType::f64; }

// Unit roundoff u = 2^-p of round-to-nearest in the accumulating type (0: exact integer sums).
template <class T>
constexpr double unit_roundoff() {
  if constexpr (std::numeric_limits<T>::is_integer) return 0.0;
  else return std::numeric_limits<T>::epsilon() / 2;
}

}  // namespace kl
