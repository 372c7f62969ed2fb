// Family "table": y[i] = sin(sqrt(step·i)) for i in [0, n), document 000's tableKernel (the
// constant-memory example), float.
//
// Axis `step` (--axis step=1e-5,1): a positive finite number whose float is normal; the kernels
// get float(step), and the reference is computed for that float, in double. Default steps: 1e-5
// (arguments sqrt(step·i) up to 3.2 at n = 10^6, up to 52 at 2^28: mostly inside [-π, π],
// where __sinf's documented bound holds) and 1 (arguments up to 16384 at 2^28, where it does
// not): the document chose the intrinsics without saying what they cost in accuracy; these two
// show it, against the accurate functions and the library.
//
// Metric: GB/s over the n·4 bytes written (the table reads nothing; elements per second =
// GB/s / 4), against the device-to-device copy bandwidth measured in the same run (read + write
// bytes: a write-only stream is held to the same DRAM bandwidth).
//
// Validation: every element against the fp64 reference (compare/core/reference_table.hpp) within a
// bound derived per element from the documented accuracy of the functions a variant evaluates,
// its error model (Variant::error_model), and from the rounding of the float argument:
//
//   The kernel forms p = fl(fl(i)·s): relative error at most (1 + u)² − 1 = 2u + u² (u = 2^-24;
//   i converts exactly below 2^24). Its square root q = sqrt_v(p) then differs from the exact
//   argument x = sqrt(s·i) by the relative ρ = max(sqrt(1 + a)(1 + e) − 1, 1 − sqrt(1 − a)(1 − e))
//   with a = 2u + u² and e the square root's own relative error. Since |sin(x + δ) − sin x −
//   cos(x)·δ| <= δ²/2, the propagated error is at most |cos x|·ρx + (ρx)²/2: it grows with x and
//   vanishes where the sine is flat, so the bound is tight exactly where the table is most
//   sensitive. |cos x| is taken from the reference: sqrt(1 − ref² + 2ε + ε² + 2^-50) (ε the
//   reference's error), capped at 1. Then the sine's own error, per model:
//
//   "sinf(sqrtf)"          sqrtf: IEEE round to nearest (nvcc's default -prec-sqrt=true), e = u.
//                          sinf: 2 ulps from the correctly rounded result (full range), plus that
//                          result's own half ulp: 2.5·2^-23·|sin q| (+ 2.5 subnormal ulps), with
//                          |sin q| <= min(1, |ref| + ε + propagated).
//   "__sinf(sqrt.approx)"  the approximate square root (sqrt.approx.f32: MUFU.SQRT on sm_90, what
//                          sqrtf is under -prec-sqrt=false): 1 ulp from the correctly rounded
//                          result, documented for that flag, plus its half ulp: e = 3u.
//                          __sinf: for |q| <= π the documented absolute error 2^-21.41. Past π
//                          the guide says only "larger", so the model is derived from what the
//                          instruction does (SASS on sm_90: FMUL.RZ by fl(1/(2π)) =
//                          0.15915493667125701904, then MUFU.SIN on the revolutions): the
//                          product's truncation (< 2^-23 relative) and the constant's own relative
//                          error ε_c (about 4.0e-8) shift the sine's argument by at most
//                          |q|·κ, κ = 2^-23(1 + ε_c) + ε_c, and MUFU.SIN reduces the revolutions
//                          exactly (a float's fraction is exact). Its own error on the reduced
//                          revolutions is not documented: the guide's 2^-21.41 is __sinf's whole
//                          error on [-π, π], FMUL.RZ's shift (up to π·κ there) included, so
//                          MUFU.SIN alone is only known to be within 2^-21.41 + π·κ of
//                          sin(2π·revolutions). Past π: 2^-21.41 + π·κ + |q|·κ, with
//                          |q| <= x(1 + ρ). Outputs flushed from the subnormal range add at most
//                          2^-126.
//
// The bound is that plus the reference's own error. The guide's errors come "from extensive but
// not exhaustive tests", so they are not guarantees: the worst ratio each variant reaches (the
// `check` column) says how close a run came. A variant that declares no error model is checked
// as "sinf(sqrtf)"; an unknown name fails its check, naming the known ones. Where the bound of
// some element reaches 1 (|sin| <= 1: any value of the right magnitude would pass) the check
// says nothing and fails, saying why: the float argument alone leaves the sine undetermined
// there (use a smaller step or n).
//
// The table has no inputs, hence no second, exact-input run.
#pragma once

#include "common/args/table_args.hpp"
#include "compare/core/device_memory.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/reference_table.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numbers>
#include <string>

namespace kl {

struct TableErrorModel {
  std::string_view name;
  double sqrt_rel;  // e: the square root's relative error against the exact one
  bool fast_sin;    // __sinf's absolute model instead of sinf's ulps
};

inline constexpr TableErrorModel kTableModels[] = {
    {"sinf(sqrtf)", 0x1p-24, false},
    {"__sinf(sqrt.approx)", 3 * 0x1p-24, true},
};

inline const TableErrorModel* find_table_model(std::string_view name) {
  if (name.empty()) name = kTableModels[0].name;
  for (const auto& m : kTableModels)
    if (m.name == name) return &m;
  return nullptr;
}

// The bound on |y_i − ref_i| under model m at argument x, where the reference is r with an
// error of at most eps (derivation above). The model's constants are worked out once.
class TableBound {
 public:
  explicit TableBound(const TableErrorModel& m) : fast_sin_(m.fast_sin) {
    constexpr double u = 0x1p-24, a = 2 * u + u * u;
    rho_ = std::max(std::sqrt(1 + a) * (1 + m.sqrt_rel) - 1, 1 - std::sqrt(1 - a) * (1 - m.sqrt_rel));
    const double eps_c = std::fabs(static_cast<double>(0.15915493667125701904f) * (2 * std::numbers::pi) - 1);
    kappa_ = 0x1p-23 * (1 + eps_c) + eps_c;
  }
  double operator()(double x, double r, double eps) const {
    const double delta = rho_ * x;
    const double cos_hi = std::min(1.0, std::sqrt(std::max(0.0, 1 - r * r) + 2 * eps + eps * eps + 0x1p-50));
    const double propagated = cos_hi * delta + 0.5 * delta * delta;
    double own;
    if (!fast_sin_) {
      own = 2.5 * 0x1p-23 * std::min(1.0, std::fabs(r) + eps + propagated) + 2.5 * 0x1p-149;
    } else {
      const double q_hi = x * (1 + rho_);
      // Past π: MUFU.SIN's own error (the documented total plus the shift it contains) and the
      // shift of this argument.
      own = kSinfE0 + (q_hi > std::numbers::pi ? (std::numbers::pi + q_hi) * kappa_ : 0.0) + 0x1p-126;
    }
    return own + propagated + eps;
  }

 private:
  static inline const double kSinfE0 = std::exp2(-21.41);  // __sinf on [-π, π], documented
  bool fast_sin_;
  double rho_ = 0, kappa_ = 0;
};

// --axis step=V: why V is refused, or "".
inline std::string refuse_table_step(const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || errno != 0 || end != v.c_str() + v.size() || !std::isfinite(d) || d <= 0)
    return "is not a positive finite number";
  const float f = static_cast<float>(d);
  if (!(f >= FLT_MIN) || !std::isfinite(f)) return "is outside float's normal range [1.2e-38, 3.4e38] (the kernels take a float step)";
  return "";
}

struct TableFamily : FamilyTraits {
  static constexpr bool exact_inputs = false;  // see Problem: exact_check_is_separate_ = false
  static constexpr std::string_view name = "table";
  static constexpr std::string_view summary = "y[i] = sin(sqrt(step*i)), i < n (doc 000: tableKernel, constant memory, __sinf)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<float>;  // the document's table and its intrinsics are float
  static std::vector<DType> default_types() { return {DType::f32}; }
  // 2^20 and 2^28 (1 GiB written, past any cache); 1000003, a prime no block divides.
  static SizeSpec sizes() {
    return {.dims = {"n"},
            .defaults = {{1LL << 20}, {1LL << 28}, {1000003}},
            .sweep_lo = 10,
            .sweep_hi = 28,
            .named = {{"shapes", "the table at the store bandwidth (2^28) and at a size no block divides", {{1LL << 28}, {1000003}}}}};
  }
  static std::vector<StringAxis> axes() {
    return {{.name = "step",
             .values = {"1e-5", "1"},
             .defaults = {"1e-5", "1"},
             .help = "the table's step, a positive number (the kernels take it as a float)",
             .refuse = refuse_table_step}};
  }
  template <class T> using Args = TableArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return table_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return table_library<T>(); }

  template <class T>
  class Problem final : public ProblemBase<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProblemBase<T>(k, ctx, {}, output_size(k)), shape_(size_of(k)) {
      this->exact_check_is_separate_ = false;  // no inputs: one check, against the bound
    }
    static TableShape size_of(const ProblemKey& k) {
      // The float the kernels get, exactly, as the double the reference uses.
      return {static_cast<std::size_t>(k.dims.at(0)), static_cast<double>(static_cast<float>(std::strtod(k.axis("step").c_str(), nullptr)))};
    }
    static std::vector<std::size_t> input_sizes(const ProblemKey&) { return {}; }
    static std::size_t output_size(const ProblemKey& k) { return static_cast<std::size_t>(k.dims.at(0)); }
    static std::size_t scratch_bytes(const ProblemKey& k) {
      return output_size(k) > kHostTableRef ? CheckedOutput<T>::reference_scratch_bytes(output_size(k)) : 0;
    }

    Args<T> args(void*) const { return {this->out().device(), shape_.n, static_cast<T>(shape_.step)}; }
    double default_depth() const { return 0; }  // unused: the bound is the error model's
    Metric metric() const override {
      return this->bandwidth_metric(static_cast<double>(shape_.n) * sizeof(T));
    }

    Check validate(const Candidate& c) override {
      const Bounds* b = bounds(c.error_model);
      if (!b) return unknown_model(c.error_model);
      Check r = this->out().validate_with([&](std::size_t i) { return static_cast<double>(b->bound[i]); });
      return meaningful(r, *b);
    }
    void keep_as_library(const Candidate& c) override {
      lib_model_ = c.error_model;
      ProblemBase<T>::keep_as_library(c);
    }
    // |y − y_lib| within the sum of both bounds: each lies within its own of the truth.
    Check cross_check(const Candidate& c) override {
      const Bounds* b = bounds(c.error_model);
      const Bounds* l = bounds(lib_model_);
      if (!b) return unknown_model(c.error_model);
      if (!l) return unknown_model(lib_model_);
      return this->out().cross_check_with(
          [&](std::size_t i) { return static_cast<double>(b->bound[i]) + static_cast<double>(l->bound[i]); });
    }

   protected:
    void make_inputs(InputKind, std::uint64_t) override {}
    // ref = sin(x), scale = x (the bound grows with it), slack = the reference's own error.
    void make_reference(InputKind) override {
      auto& o = this->out();
      const std::size_t n = shape_.n;
      if (n <= kHostTableRef) {
        reference_table_host(shape_.step, n, o.ref.data(), o.scale.data());
      } else {
        o.reference_from_device([&](double* dref, double* dx) { reference_table_device(shape_.step, n, dref, dx); });
      }
      for (std::size_t i = 0; i < n; ++i) o.slack[i] = table_reference_error(o.scale[i]);
      bounds_.clear();
    }

   private:
    struct Bounds {
      std::vector<float> bound;
      std::size_t worst = 0;  // the element with the largest bound
    };

    // The per-element bounds of an error model, made on first use and kept for the problem (each
    // variant is checked up to four times). Stored as floats, widened by 2^-22 first so that the
    // float is never below the bound (rounding to nearest moves it by at most 2^-24): half the
    // memory and reading time of doubles at 2^28, for a bound looser by one part in 4 million.
    const Bounds* bounds(const std::string& model) {
      const TableErrorModel* m = find_table_model(model);
      if (!m) return nullptr;
      auto [it, fresh] = bounds_.try_emplace(std::string(m->name));
      if (fresh) {
        const auto& o = this->out();
        const TableBound bound_of(*m);
        Bounds& b = it->second;
        b.bound.resize(shape_.n);
        for (std::size_t i = 0; i < shape_.n; ++i) {
          b.bound[i] = static_cast<float>(bound_of(o.scale[i], o.ref[i], o.slack[i]) * (1 + 0x1p-22));
          if (b.bound[i] > b.bound[b.worst]) b.worst = i;
        }
      }
      return &it->second;
    }

    static Check unknown_model(const std::string& name) {
      Check c;
      c.ran = true;
      c.worst_ratio = INFINITY;
      std::string known;
      for (const auto& m : kTableModels) known += (known.empty() ? "" : ", ") + std::string(m.name);
      c.detail = "unknown error model '" + name + "' (the table family knows: " + known + ")";
      return c;
    }

    // A bound of 1 or more says nothing about a sine: the check fails, saying where and why.
    Check meaningful(Check r, const Bounds& b) const {
      if (b.bound.empty() || b.bound[b.worst] < 1) return r;
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "error bound not meaningful: %.3g at i = %zu, where sqrt(step*i) = %.6g and the float argument's "
                    "rounding alone leaves the sine undetermined (use a smaller step or n)",
                    static_cast<double>(b.bound[b.worst]), b.worst, this->out().scale[b.worst]);
      r.pass = false;
      r.worst_ratio = INFINITY;
      r.detail = buf;
      return r;
    }

    TableShape shape_;
    std::string lib_model_;
    std::map<std::string, Bounds> bounds_;
  };
};

}  // namespace kl
