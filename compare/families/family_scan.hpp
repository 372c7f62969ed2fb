// Family "scan": the prefix sums of an array, inclusive or exclusive (the `form` axis), int, float
// and double, any n >= 1 (GPU Gems 3, chapter 39; Merrill and Grimshaw 2009; Yan et al. 2013;
// Merrill and Garland 2016: docs/scan.md).
//
// Metric: GB/s over the fewest bytes the job must move: n elements read and n written (2n),
// against the device-to-device copy bandwidth measured in the same run.
// Validation, every element: random inputs against the compensated fp64 prefix (reference_scan),
// |y_i - s_i| <= gamma(h)·sum|x_0..x_i| + the reference's own error, h the variant's declared
// summation-tree height (the deepest of any element's: an upper bound for every element, the
// early ones included); integer-valued inputs for equality in every element (floating types),
// small enough that every partial sum of any subset is exact, sparse past 2^23 terms in float with
// the first and last kExactEdge elements nonzero, and x_0 a precision sentinel that every prefix
// holds (compare/core/problem.hpp); integers exact, modulo 2^32 as CUDA's int adds wrap. A dropped,
// doubled or misplaced element changes every prefix after it.
#pragma once

#include "common/args/scan_args.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/reference.hpp"

#include <string>

namespace kl {

inline ScanForm parse_scan_form(const std::string& s) {
  if (s == "inclusive") return ScanForm::inclusive;
  if (s == "exclusive") return ScanForm::exclusive;
  throw UsageError("scan: form '" + s + "' is not one of inclusive, exclusive");
}

struct ScanFamily : FamilyTraits {
  static constexpr std::string_view name = "scan";
  static constexpr std::string_view summary =
      "inclusive and exclusive prefix sums of an array (GPU Gems 3 ch. 39; Merrill & Garland 2016)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<int, float, double>;
  static std::vector<DType> default_types() { return {DType::f32}; }
  static constexpr bool in_default_run = true;
  // 2^24: 64 MiB of float each way, more than an H100 or H200 holds in L2, where the single-pass
  // steps run at DRAM bandwidth; 1000003 (prime): no tile of any step divides it. Both forms at
  // the prime (extra_defaults), the inclusive one at 2^24: kept to what adds little to the
  // default run (every problem validates all n elements of every step several times). 2^28,
  // CUB's comparison size, is the scan stage's (scripts/device.sh); `--sizes odd` holds the edge
  // sizes, 2^31 + 7 among them (64-bit indices; the device memory check skips it where it does
  // not fit). max_dim: the device memory check refuses what does not fit.
  static SizeSpec sizes() {
    return {.dims = {"n"},
            .max_dim = 1LL << 36,
            .defaults = {{1LL << 24}, {1000003}},
            .sweep_lo = 10,
            .sweep_hi = 28,
            .named = {{"odd", "sizes no tile divides: 1, 31, 33, 1000, 1009, 1000003, 2^31 + 7",
                       {{1}, {31}, {33}, {1000}, {1009}, {1000003}, {(1LL << 31) + 7}}}}};
  }
  static std::vector<StringAxis> axes() {
    return {{.name = "form",
             .values = {"inclusive", "exclusive"},
             .defaults = {"inclusive"},
             .help = "inclusive (out[i] = in[0] + ... + in[i]) or exclusive (out[0] = 0, out[i] = in[0] + ... + in[i-1])"}};
  }
  static std::vector<std::pair<Dims, AxisValues>> extra_defaults() { return {{{1000003}, {{"form", "exclusive"}}}}; }
  template <class T> using Args = ScanArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return scan_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return scan_library<T>(); }

  template <class T>
  class Problem final : public ProblemBase<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProblemBase<T>(k, ctx, input_sizes(k), output_size(k)), shape_(size_of(k)) {}
    static ScanShape size_of(const ProblemKey& k) {
      return {static_cast<std::size_t>(k.dims.at(0)), parse_scan_form(k.axis("form"))};
    }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) { return {size_of(k).n}; }
    static std::size_t output_size(const ProblemKey& k) { return size_of(k).n; }

    Args<T> args(void* ws) const {
      return {this->in(0).device(), this->out().device(), shape_.n, shape_.form, ws};
    }
    // Any order: the last prefix sums n terms, n - 1 roundings at most.
    double default_depth() const { return static_cast<double>(shape_.n); }
    Metric metric() const override { return this->bandwidth_metric(2.0 * static_cast<double>(shape_.n) * sizeof(T)); }

   protected:
    void make_inputs(InputKind kind, std::uint64_t seed) override {
      T* x = this->in(0).host.data();
      const std::size_t n = shape_.n;
      if (kind == InputKind::random) fill_random(x, n, seed);
      // n terms of at most max_abs each (and the sentinel): every prefix, and every partial sum of
      // any subset of the terms, within the mantissa. x_0 is the sentinel: every inclusive prefix
      // holds it, every exclusive one but the first.
      else fill_exact(x, n, seed, exact_values<T>(static_cast<double>(n), 1, true), Sentinels{n, 0});
    }
    void make_reference(InputKind) override {
      auto& o = this->out();
      reference_scan(this->in(0).host.data(), shape_.n, shape_.form == ScanForm::inclusive, o.ref.data(), o.scale.data(),
                     o.slack.data());
    }

   private:
    ScanShape shape_;
  };
};

}  // namespace kl
