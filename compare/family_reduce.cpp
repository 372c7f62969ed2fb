// Family "reduce": the sum of all elements of an array (documents 000, 001, 002, 004).
//
// Metric: GB/s over the fewest bytes the job must move (n·sizeof(T) read, one value written),
// against the device-to-device copy bandwidth measured in the same run.
// Validation: against the fp64 reference; |s_hat - s| <= gamma(h)·sum|x_i| with h the variant's
// declared summation-tree height; integers exact (modulo 2^32, as CUDA int adds wrap).
#include "compare/problem_reduce.hpp"

namespace kl {
namespace {

template <class T>
std::vector<ReduceVariant<T>> all_reduce_variants() {
  auto v = reduce_handwritten<T>();
  for (auto& l : reduce_library<T>()) v.push_back(l);
  return v;
}

template <class T>
std::vector<Row> run_typed(const Family& fam, const Dims& d, RunContext& ctx) {
  const std::size_t n = static_cast<std::size_t>(d.at(0));
  const std::uint64_t seed = ctx.opt.seed ? *ctx.opt.seed : fresh_seed();
  ReduceProblem<T> problem(n, seed, ctx.opt.end_to_end, ctx.copy_gbps);
  const auto list = all_reduce_variants<T>();
  std::vector<Candidate> cands;
  for (const ReduceVariant<T>* v : select_variants(list, ctx.opt)) {
    Candidate c;
    c.info = listing_of(v->info);
    c.workspace_bytes = v->workspace_bytes ? v->workspace_bytes(n) : 0;
    c.prepare = v->prepare;
    c.rounding_depth = v->rounding_depth ? v->rounding_depth(n) : static_cast<double>(n);
    c.launch = [v, &problem, n](void* ws, cudaStream_t s) {
      v->launch(ReduceArgs<T>{problem.in(), n, problem.out(), ws}, s);
    };
    cands.push_back(std::move(c));
  }
  return execute(fam, dtype_of<T>(), d, problem, cands, ctx, seed);
}

template <class T>
std::vector<VariantListing> listings() {
  std::vector<VariantListing> out;
  for (const auto& v : all_reduce_variants<T>()) out.push_back(listing_of(v.info));
  return out;
}

template <class T>
std::size_t max_workspace(std::size_t n) {
  std::size_t m = 0;
  for (const auto& v : all_reduce_variants<T>())
    if (v.workspace_bytes) m = std::max(m, v.workspace_bytes(n));
  return m;
}

class ReduceFamily final : public Family {
 public:
  std::string_view name() const override { return "reduce"; }
  std::string_view summary() const override { return "sum of all elements of an array (docs 000, 001, 002, 004)"; }
  std::string_view unit() const override { return "GB/s"; }
  std::vector<DType> dtypes() const override { return {DType::i32, DType::f32, DType::f64}; }
  std::vector<DType> default_dtypes() const override { return {DType::f32}; }
  std::vector<VariantListing> variants(DType t) const override {
    switch (t) {
      case DType::i32: return listings<int>();
      case DType::f32: return listings<float>();
      case DType::f64: return listings<double>();
    }
    return {};
  }
  std::vector<Dims> default_sizes() const override { return {{1LL << 28}}; }
  std::pair<int, int> default_sweep() const override { return {10, 28}; }
  std::vector<Dims> sweep(int lo, int hi) const override {
    std::vector<Dims> v;
    for (int e = lo; e <= hi; ++e) v.push_back({1LL << e});
    return v;
  }
  std::string size_syntax() const override { return "element count: 1000, 1e6, 2^28"; }
  Dims parse_size(std::string_view text) const override { return {parse_positive_count(text, "reduce size")}; }
  std::string shape_label(const Dims& d) const override { return "n=" + std::to_string(d.at(0)); }
  std::size_t device_bytes(DType t, const Dims& d) const override {
    const std::size_t n = static_cast<std::size_t>(d.at(0));
    switch (t) {
      case DType::i32: return n * sizeof(int) + max_workspace<int>(n) + 64;
      case DType::f32: return n * sizeof(float) + max_workspace<float>(n) + 64;
      case DType::f64: return n * sizeof(double) + max_workspace<double>(n) + 64;
    }
    return 0;
  }
  std::vector<Row> run(DType t, const Dims& d, RunContext& ctx) const override {
    switch (t) {
      case DType::i32: return run_typed<int>(*this, d, ctx);
      case DType::f32: return run_typed<float>(*this, d, ctx);
      case DType::f64: return run_typed<double>(*this, d, ctx);
    }
    return {};
  }
};

}  // namespace

const Family& reduce_family() {
  static const ReduceFamily f;
  return f;
}

}  // namespace kl
