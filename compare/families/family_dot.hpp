// Family "dot": s = sum of x_i·y_i over two arrays (document 000's lab, variant 1; document 004's
// dotKernel and dotKernel_V2), int, float and double, any n >= 1.
//
// Metric: GB/s over the fewest bytes the job must move (2·n·sizeof(T) read, one value written),
// against the device-to-device copy bandwidth measured in the same run.
// Validation: random inputs against the compensated fp64 dot product (CompensatedDot),
// |s_hat - s| <= gamma(h + 1)·sum |x_i·y_i| + the reference's own error, h being the variant's
// declared height of its summation tree and the + 1 the rounding of each product (an FMA rounds
// product and sum once, a separate multiply and add twice: either is within h + 1); integer-valued
// inputs for equality (floating types), sparse on x when n is too large for dense ones
// (exact_values with two factors); integers exact, modulo 2^32 as CUDA's int multiplies and adds
// wrap.
#pragma once

#include "common/args/dot_args.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/reference.hpp"

#include <cstdint>
#include <type_traits>

namespace kl {

struct DotFamily : FamilyTraits {
  static constexpr std::string_view name = "dot";
  static constexpr std::string_view summary = "s = sum of x_i*y_i (doc 000 lab variant 1; doc 004 dotKernel, dotKernel_V2)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<int, float, double>;
  static std::vector<DType> default_types() { return {DType::f32}; }
  // 1000: document 000's lab; 1024 and 1025: document 004 ("Probar con 1025"); 2^28: a size
  // where the GPU runs at DRAM bandwidth. max_dim: the device memory check refuses what does not
  // fit.
  static SizeSpec sizes() {
    return {.dims = {"n"},
            .max_dim = 1LL << 36,
            .defaults = {{1000}, {1024}, {1025}, {1LL << 28}},
            .sweep_lo = 10,
            .sweep_hi = 28};
  }
  template <class T> using Args = DotArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return dot_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return dot_library<T>(); }

  template <class T>
  class Problem final : public ProblemBase<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProblemBase<T>(k, ctx, input_sizes(k), 1), n_(size_of(k)) {}
    static std::size_t size_of(const ProblemKey& k) { return static_cast<std::size_t>(k.dims.at(0)); }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) { return {size_of(k), size_of(k)}; }
    static std::size_t output_size(const ProblemKey&) { return 1; }

    Args<T> args(void* ws) const {
      return {this->in(0).device(), this->in(1).device(), n_, this->out().device(), ws};
    }
    double default_depth() const { return static_cast<double>(n_); }  // any order: n - 1 roundings at most
    Metric metric() const override {
      return this->bandwidth_metric(static_cast<double>((2 * n_ + 1) * sizeof(T)));
    }

   protected:
    // The variant's depth counts the additions; each product adds one rounding of its own.
    double error_factor(const Candidate& c) const override {
      return gamma_bound(c.rounding_depth + 1, unit_roundoff<T>());
    }

    void make_inputs(InputKind kind, std::uint64_t seed) override {
      T* x = this->in(0).host.data();
      T* y = this->in(1).host.data();
      const std::uint64_t seed_y = this->input_seed(seed, 1);
      if (kind == InputKind::random) {
        fill_random(x, n_, seed);
        fill_random(y, n_, seed_y);
        return;
      }
      // n·max|x|·max|y| within the mantissa, so every partial sum is exact in any order; past
      // 2^24 (float) terms x is sparse and y is ±1.
      // x[0] is a precision sentinel (compare/core/problem.hpp); y[0], an edge element, is nonzero.
      const ExactValues e = exact_values<T>(static_cast<double>(n_), 2, true);
      fill_exact(x, n_, seed, e, Sentinels{n_, 0});
      fill_exact(y, n_, seed_y, e.density < 1 ? ExactValues{1, 1} : e);
    }

    void make_reference(InputKind) override {
      const T* x = this->in(0).host.data();
      const T* y = this->in(1).host.data();
      auto& o = this->out();
      if constexpr (std::is_integral_v<T>) {
        // Modulo 2^64 arithmetic agrees with the exact sum modulo 2^32, whatever the products.
        std::uint64_t s = 0;
        for (std::size_t i = 0; i < n_; ++i)
          s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]) * static_cast<std::int64_t>(y[i]));
        o.ref[0] = wrap_int32(static_cast<std::int64_t>(s));
      } else {
        CompensatedDot d;
        for (std::size_t i = 0; i < n_; ++i) d.add(static_cast<double>(x[i]), static_cast<double>(y[i]));
        const double n = static_cast<double>(n_);
        o.ref[0] = d.value();
        // sum |x_i·y_i| was itself summed in fp64 (relative error within gamma64(n)): scaled up
        // so the bound stays an upper bound. The reference's own error is the slack.
        o.scale[0] = d.abs / (1 - gamma_bound(n, unit_roundoff<double>()));
        o.slack[0] = CompensatedDot::self_error(o.ref[0], d.abs, n);
      }
    }

   private:
    std::size_t n_;
  };
};

}  // namespace kl
