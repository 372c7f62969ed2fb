// Family "reduce": the sum of all elements of an array (documents 000, 001, 002, 004).
//
// Metric: GB/s over the fewest bytes the job must move (n·sizeof(T) read, one value written),
// against the device-to-device copy bandwidth measured in the same run.
// Validation: random inputs against the compensated fp64 sum, |s_hat - s| <= gamma(h)·sum|x_i|
// with h the variant's declared summation-tree height; integer-valued inputs for equality
// (floating types); integers exact (modulo 2^32, as CUDA int adds wrap).
#pragma once

#include "common/args/reduce_args.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/reference.hpp"

namespace kl {

struct ReduceFamily : FamilyTraits {
  static constexpr std::string_view name = "reduce";
  static constexpr std::string_view summary = "sum of all elements of an array (docs 000, 001, 002, 004)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<int, float, double>;
  static std::vector<DType> default_types() { return {DType::f32}; }
  // max_dim: the device memory check refuses what does not fit.
  static SizeSpec sizes() {
    return {.dims = {"n"}, .max_dim = 1LL << 36, .defaults = {{1LL << 28}}, .sweep_lo = 10, .sweep_hi = 28};
  }
  template <class T> using Args = ReduceArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return reduce_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return reduce_library<T>(); }

  template <class T>
  class Problem final : public ProblemBase<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProblemBase<T>(k, ctx, input_sizes(k), 1), n_(size_of(k)) {}
    static std::size_t size_of(const ProblemKey& k) { return static_cast<std::size_t>(k.dims.at(0)); }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) { return {size_of(k)}; }
    static std::size_t output_size(const ProblemKey&) { return 1; }

    Args<T> args(void* ws) const { return {this->in(0).device(), n_, this->out().device(), ws}; }
    double default_depth() const { return static_cast<double>(n_); }  // any order: n - 1 roundings at most
    Metric metric() const override { return this->bandwidth_metric(static_cast<double>((n_ + 1) * sizeof(T))); }

   protected:
    void make_inputs(InputKind kind, std::uint64_t seed) override {
      T* x = this->in(0).host.data();
      if (kind == InputKind::random) fill_random(x, n_, seed);
      else fill_exact(x, n_, seed, exact_values<T>(static_cast<double>(n_), 1, true), Sentinels{n_, 0});  // x[0]: a precision sentinel
    }
    void make_reference(InputKind) override {
      const SumReference r = reference_sum(this->in(0).host.data(), n_);
      auto& o = this->out();
      if constexpr (std::is_integral_v<T>) {
        o.ref[0] = wrap_int32(r.exact_int);
      } else {
        o.ref[0] = r.sum;
        o.scale[0] = r.abs_sum;
        o.slack[0] = r.self_error;
      }
    }

   private:
    std::size_t n_;
  };
};

}  // namespace kl
