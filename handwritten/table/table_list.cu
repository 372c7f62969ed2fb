// The table family's hand-written ladder, in ladder order. One line per variant. float only:
// the document's table and its intrinsics are single precision.
#include "common/args/table_args.hpp"
#include "handwritten/table/table_argument_step.cuh"
#include "handwritten/table/table_constant_step.cuh"
#include "handwritten/table/table_vec16.cuh"

namespace kl {

template <class T>
std::vector<TableVariant<T>> table_handwritten() {
  using table_detail::Accurate;
  using table_detail::Intrinsics;
  return {
      table_const::variant<Intrinsics>(
          "table_const_intrinsics",
          "the section's lesson: step in __constant__, copied before each launch; __sinf(sqrt.approx)"),
      table_arg::variant<Intrinsics>(
          "table_arg_intrinsics", "the code as printed: step as a kernel argument (no copy); __sinf(sqrt.approx)"),
      table_const::variant<Accurate>(
          "table_const_accurate", "step in __constant__, copied before each launch; accurate sinf(sqrtf)"),
      table_arg::variant<Accurate>(
          "table_arg_accurate", "step as a kernel argument, accurate sinf(sqrtf): both lessons"),
      table_const::variant_once<Intrinsics>(
          "table_const_once_intrinsics",
          "step in __constant__ copied only when it changes: the constant read without the copy; __sinf"),
      // beyond the document: the same elements, written 4 at a time (docs/transpose-and-table.md)
      table_vec16::variant<Intrinsics>(
          "table_vec16_intrinsics", "4 elements per thread in one 16-byte store: the store bandwidth; __sinf(sqrt.approx)"),
      table_vec16::variant<Accurate>(
          "table_vec16_accurate", "4 elements per thread in one 16-byte store: the store bandwidth; accurate sinf(sqrtf)"),
  };
}

template std::vector<TableVariant<float>> table_handwritten<float>();

}  // namespace kl
