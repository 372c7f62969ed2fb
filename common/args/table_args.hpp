// The table family's launch arguments and its two lists.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <vector>

namespace kl {

// table: y[i] = sin(sqrt(step·i)) for i in [0, n) (document 000's tableKernel). n >= 1.
struct TableShape {
  std::size_t n;
  double step;
};
template <class T>
struct TableArgs {
  using Size = TableShape;
  T* y;
  std::size_t n;
  T step;
};

template <class T> using TableVariant = Variant<TableArgs<T>>;

template <class T> std::vector<TableVariant<T>> table_handwritten();  // float (double: see the family)
template <class T> std::vector<TableVariant<T>> table_library();

}  // namespace kl
