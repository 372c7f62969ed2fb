// The dot family's launch arguments and its two lists.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <vector>

namespace kl {

// dot: *out = sum of x[i]·y[i] over [0, n). n >= 1. int wraps modulo 2^32 like CUDA's int adds.
template <class T>
struct DotArgs {
  using Size = std::size_t;  // n
  const T* x;
  const T* y;
  std::size_t n;
  T* out;
  void* workspace;
};

template <class T> using DotVariant = Variant<DotArgs<T>>;

template <class T> std::vector<DotVariant<T>> dot_handwritten();  // int, float, double
template <class T> std::vector<DotVariant<T>> dot_library();

}  // namespace kl
