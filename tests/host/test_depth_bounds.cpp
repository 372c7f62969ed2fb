// Every dot and rows variant, at every size the default comparison and the documented results
// commands run (docs/rows-and-dot.md) and at the GPU suite's largest, either declares the size
// unsupported or has an error bound that means something there: gamma(depth + the family's extra
// roundings) < 1. Otherwise the runner fails it with "error bound not meaningful", which is what
// cublas_dot (any-order depth n) did at the default 2^28 floats, and the documents' serial row
// kernels and cublas_gemv_ones at 1 × 2^24 and 2^24 × 1.
//
// Depth hooks that need a device (the SM-sized grids, CUB's temporary-storage queries) cannot be
// evaluated without a GPU and are skipped here; the serial kernels and cuBLAS, whose depths grow
// with the size, need none, and the test insists they were checked.
#include "compare/families/family_dot.hpp"
#include "compare/families/family_rows.hpp"
#include "compare/core/tolerance.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

using namespace kl;

namespace {

// The variant's declared depth, or the family's default when it declares none; false when the
// hook needs a device this machine does not have.
template <class V, class Size>
bool depth_of(const V& v, Size size, double default_depth, double& depth) {
  if (!v.rounding_depth) {
    depth = default_depth;
    return true;
  }
  try {
    depth = v.rounding_depth(size);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

template <class T>
void check_dot(std::set<std::string>& checked) {
  std::vector<Dims> sizes = DotFamily::sizes().defaults;
  sizes.push_back({(1LL << 24) + 3});  // the GPU suite's largest regular size
  sizes.push_back({(1LL << 31) + 3});  // its 64-bit-index case
  std::vector<DotVariant<T>> all = dot_handwritten<T>();
  for (const auto& v : dot_library<T>()) all.push_back(v);
  for (const Dims& d : sizes) {
    const std::size_t n = static_cast<std::size_t>(d.at(0));
    for (const auto& v : all) {
      CAPTURE(v.info.name);
      CAPTURE(n);
      if (v.unsupported && v.unsupported(n)) continue;
      double depth = 0;
      if (!depth_of(v, n, static_cast<double>(n), depth)) continue;
      checked.insert(std::string(v.info.name));
      if (std::is_integral_v<T>) continue;  // exact
      CHECK(meaningful_factor(gamma_bound(depth + 1, unit_roundoff<T>())));  // + 1: the product
    }
  }
}

template <class T>
void check_rows(std::set<std::string>& checked) {
  const Family& f = family<RowsFamily>();
  std::vector<ProblemKey> keys;
  std::vector<Dims> sizes = RowsFamily::sizes().defaults;
  sizes.push_back({1, 1LL << 24});  // the results commands' degenerate shapes
  sizes.push_back({1LL << 24, 1});
  sizes.push_back({1, (1LL << 24) + 3});
  const std::vector<StringAxis> axes = f.axes();  // op, layout
  for (const Dims& d : sizes)
    for (const std::string& op : axes.at(0).values)
      for (const std::string& layout : axes.at(1).values)
        keys.push_back(make_key(f, dtype_of<T>(), d, {{"op", op}, {"layout", layout}}));
  for (const auto& [d, a] : RowsFamily::extra_defaults()) keys.push_back(make_key(f, dtype_of<T>(), d, a));

  std::vector<RowsVariant<T>> all = rows_handwritten<T>();
  for (const auto& v : rows_library<T>()) all.push_back(v);
  for (const ProblemKey& k : keys) {
    const RowsShape s = RowsFamily::Problem<T>::size_of(k);
    const int extra = row_op_extra_roundings(s.op);
    const double count = static_cast<double>(is_column_op(s.op) ? s.M : s.N);
    const std::string label = f.shape_label(k);
    for (const auto& v : all) {
      CAPTURE(v.info.name);
      CAPTURE(label);
      if (v.unsupported && v.unsupported(s)) continue;
      double depth = 0;
      if (!depth_of(v, s, count, depth)) continue;
      checked.insert(std::string(v.info.name));
      if (extra < 0) continue;  // max, min: exact
      CHECK(meaningful_factor(gamma_bound(depth + extra, unit_roundoff<T>())));
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("every dot variant is unsupported or meaningfully bounded at the sizes that are run", T, int, float,
                   double) {
  std::set<std::string> checked;
  check_dot<T>(checked);
  for (const char* name : {"dot1_global_memory", "dot2_shared_memory", "dot_atomic_serial_block", "dot_atomic_tree"})
    CHECK(checked.count(name) == 1);
  if (!std::is_integral_v<T>) CHECK(checked.count("cublas_dot") == 1);  // at the sizes it supports
}

TEST_CASE_TEMPLATE("every rows variant is unsupported or meaningfully bounded at the sizes that are run", T, float,
                   double) {
  std::set<std::string> checked;
  check_rows<T>(checked);
  for (const char* name : {"rows_global", "rows_shared", "rows_shared_padded", "rows_warp_vec", "rows_warp_peel",
                           "rows_subwarp", "cub_segmented_reduce", "cublas_gemv_ones"})
    CHECK(checked.count(name) == 1);
}

TEST_CASE("the serial variants and cuBLAS say why at the sizes where no bound holds (float)") {
  // The variant's hooks, its `unsupported` one null when it declares none.
  struct Hooks {
    std::function<const char*(std::size_t)> dot;
    std::function<const char*(RowsShape)> rows;
    const char* unsupported(std::size_t n) const { return dot ? dot(n) : nullptr; }
    const char* unsupported(RowsShape s) const { return rows ? rows(s) : nullptr; }
  };
  const auto find = [](const auto& list, const char* name) {
    for (const auto& v : list)
      if (v.info.name == name) {
        Hooks h;
        if constexpr (std::is_same_v<typename std::decay_t<decltype(v)>::Size, RowsShape>) h.rows = v.unsupported;
        else h.dot = v.unsupported;
        return h;
      }
    FAIL("no variant " << name);
    return Hooks{};
  };
  // dot: cuBLAS's any-order depth n at the default 2^28; 004's atomics past 2^29.
  const auto dot_lib = dot_library<float>();
  const auto dot_hw = dot_handwritten<float>();
  CHECK(find(dot_lib, "cublas_dot").unsupported(std::size_t{1} << 28) != nullptr);
  CHECK(find(dot_lib, "cublas_dot").unsupported(1025) == nullptr);
  CHECK(find(dot_hw, "dot_atomic_tree").unsupported((std::size_t{1} << 31) + 3) != nullptr);
  CHECK(find(dot_hw, "dot_atomic_tree").unsupported(std::size_t{1} << 28) == nullptr);
  CHECK(find(dot_library<double>(), "cublas_dot").unsupported(std::size_t{1} << 28) == nullptr);
  // rows: one serial chain over 2^24 elements; max and min still run.
  const auto rows_hw = rows_handwritten<float>();
  const auto rows_lib = rows_library<float>();
  const RowsShape wide{1, 1 << 24, std::size_t{1} << 24, RowOp::row_sum};
  const RowsShape tall{1 << 24, 1, 1, RowOp::col_mean};
  for (const char* name : {"rows_global", "rows_shared", "rows_shared_padded"}) {
    CAPTURE(name);
    CHECK(find(rows_hw, name).unsupported(wide) != nullptr);
    CHECK(find(rows_hw, name).unsupported(tall) != nullptr);
    CHECK(find(rows_hw, name).unsupported({1, 1 << 24, std::size_t{1} << 24, RowOp::row_max}) == nullptr);
    CHECK(find(rows_hw, name).unsupported({1000, 1000, 1000, RowOp::row_mean}) == nullptr);
  }
  CHECK(find(rows_lib, "cublas_gemv_ones").unsupported(wide) != nullptr);
  CHECK(find(rows_lib, "cublas_gemv_ones").unsupported(tall) != nullptr);
  CHECK(find(rows_lib, "cublas_gemv_ones").unsupported({16384, 16384, 16384, RowOp::col_mean}) == nullptr);
  CHECK(find(rows_library<double>(), "cublas_gemv_ones").unsupported(wide) == nullptr);
}
