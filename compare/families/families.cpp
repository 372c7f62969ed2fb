// The registry: every family the runner knows, in the order of --list and the default run.
// Adding a family: its traits in compare/family_<name>.hpp and one line here.
#include "compare/core/family_core.hpp"
#include "compare/families/family_dot.hpp"
#include "compare/families/family_matvec.hpp"
#include "compare/families/family_product.hpp"
#include "compare/families/family_reduce.hpp"
#include "compare/families/family_rows.hpp"
#include "compare/families/family_table.hpp"
#include "compare/families/family_transpose.hpp"
#if KL_HAVE_NCCL
#include "compare/families/family_allreduce.hpp"
#endif

namespace kl {

const std::vector<const Family*>& all_families() {
  static const std::vector<const Family*> list = {
      &family<ReduceFamily>(),
      &family<DotFamily>(),
      &family<RowsFamily>(),
      &family<GemmFamily>(),
      &family<AatFamily>(),
      &family<GemvFamily>(),
      &family<GevmFamily>(),
      &family<TransposeFamily>(),
      &family<TableFamily>(),
#if KL_HAVE_NCCL
      &family<AllreduceFamily>(),
#endif
  };
  return list;
}

const std::vector<UnbuiltFamily>& unbuilt_families() {
  static const std::vector<UnbuiltFamily> list = {
#if !KL_HAVE_NCCL
      {"allreduce", "not built: CMake found no NCCL (nccl.h and libnccl.so, searched under the CUDA toolkit, "
                    "NCCL_ROOT and the system; or -DKL_WITH_NCCL=OFF)"},
#endif
  };
  return list;
}

const Family* find_family(std::string_view name) {
  for (const Family* f : all_families())
    if (f->name() == name) return f;
  return nullptr;
}

const std::string& ProblemKey::axis(std::string_view name) const {
  for (const auto& [n, v] : axes)
    if (n == name) return v;
  throw std::logic_error("problem has no axis '" + std::string(name) + "'");
}

std::string Family::shape_label(const ProblemKey& k) const {
  std::string s = sizes().label(k.dims);
  for (const auto& [n, v] : k.axes) s += " " + n + "=" + v;
  return s;
}

ProblemKey make_key(const Family& f, DType t, Dims dims, AxisValues axes) {
  ProblemKey k{t, std::move(dims), {}};
  for (const StringAxis& a : f.axes()) {
    std::string value = a.defaults.empty() ? a.values.at(0) : a.defaults.at(0);
    for (const auto& [n, v] : axes)
      if (n == a.name) value = v;
    k.axes.emplace_back(a.name, value);
  }
  return k;
}

}  // namespace kl
