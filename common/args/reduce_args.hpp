// The reduce family's launch arguments and its two lists.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <vector>

namespace kl {

// reduce: *out = sum of in[0, n). n >= 1.
template <class T>
struct ReduceArgs {
  using Size = std::size_t;  // n
  const T* in;
  std::size_t n;
  T* out;
  void* workspace;
};

template <class T> using ReduceVariant = Variant<ReduceArgs<T>>;

template <class T> std::vector<ReduceVariant<T>> reduce_handwritten();  // int, float, double
template <class T> std::vector<ReduceVariant<T>> reduce_library();

}  // namespace kl
