// Family "transpose": B = Aᵀ, A row-major M×N, B row-major N×M (document 000's transpose1 and the
// shared-memory steps beyond it), float and double, any M, N >= 1.
//
// Metric: GB/s over 2·M·N·sizeof(T) (every element read once and written once), against the
// device-to-device copy bandwidth measured in the same run ("vs ceil"): a copy moves the same
// bytes with both sides coalesced, the most a transpose can hope for. There is deliberately no
// "copy" row among the library baselines: a copy is not a transpose and could only pass by
// validating it differently; the runner's measured copy ceiling already is that yardstick (at
// 16384² float, 1 GiB each way, it is a copy of exactly the same bytes).
// Validation: a transpose moves bits, so the random-input check is already an equality (bound 0
// for every element, NaN poison fails): no second, integer-valued input set.
#pragma once

#include "common/args/transpose_args.hpp"
#include "compare/core/family_core.hpp"

#include <algorithm>

namespace kl {

struct TransposeFamily : FamilyTraits {
  static constexpr bool exact_inputs = false;  // see Problem: exact_check_is_separate_ = false
  static constexpr std::string_view name = "transpose";
  static constexpr std::string_view summary = "B = A^T, row-major A of M×N (doc 000: transpose1; shared-memory tiles beyond it)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<float, double>;
  static std::vector<DType> default_types() { return {DType::f32, DType::f64}; }
  // 1000: document 000's lab size; 2048 and 16384 (2^28 elements: 1 GiB of float, past any
  // cache); 4097×1023, whose sides no tile or vector width divides; 1×N and M×1, where the
  // transpose is a copy and the tiles are one row or column wide (100003 > 65535 tiles of 16
  // would not fit gridDim.y without the kernels' tile-row loop).
  static SizeSpec sizes() {
    return {.dims = {"M", "N"},
            .defaults = {{1000, 1000}, {2048, 2048}, {16384, 16384}, {4097, 1023}, {1, 100003}, {100003, 1}},
            .sweep_lo = 8,
            .sweep_hi = 14,
            .named = {{"shapes", "the bandwidth-bound size (16384²) and a shape no tile divides", {{16384, 16384}, {4097, 1023}}}}};
  }
  template <class T> using Args = TransposeArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return transpose_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return transpose_library<T>(); }

  template <class T>
  class Problem final : public ProblemBase<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProblemBase<T>(k, ctx, input_sizes(k), output_size(k)), M_(dim(k, 0)), N_(dim(k, 1)) {
      this->exact_check_is_separate_ = false;  // the random check is already an equality
    }
    static MatrixShape size_of(const ProblemKey& k) { return {dim(k, 0), dim(k, 1)}; }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) { return {output_size(k)}; }
    static std::size_t output_size(const ProblemKey& k) { return static_cast<std::size_t>(dim(k, 0)) * dim(k, 1); }

    Args<T> args(void*) const { return {this->in(0).device(), this->out().device(), M_, N_}; }
    double default_depth() const { return 0; }  // no arithmetic: gamma(0) = 0, the bound is 0
    Metric metric() const override {
      return this->bandwidth_metric(2.0 * static_cast<double>(output_size(this->key())) * sizeof(T));
    }

    // Bound 0 for every element: equality. Said directly rather than as 0·scale + 0, so a check
    // reads only the output and the reference (2^28 elements are checked four times a variant).
    Check validate(const Candidate&) override {
      return this->out().validate_with([](std::size_t) { return 0.0; });
    }
    Check cross_check(const Candidate&) override {
      return this->out().cross_check_with([](std::size_t) { return 0.0; });
    }

   protected:
    void make_inputs(InputKind, std::uint64_t seed) override {
      fill_random(this->in(0).host.data(), this->in(0).size(), seed);
    }
    // ref[j·M + i] = A[i·N + j], in 64×64 blocks so that neither side strides through memory
    // one element per cache line.
    void make_reference(InputKind) override {
      const T* a = this->in(0).host.data();
      auto& o = this->out();
      constexpr int kB = 64;
      for (int i0 = 0; i0 < M_; i0 += kB)
        for (int j0 = 0; j0 < N_; j0 += kB)
          for (int j = j0; j < std::min(N_, j0 + kB); ++j)
            for (int i = i0; i < std::min(M_, i0 + kB); ++i)
              o.ref[static_cast<std::size_t>(j) * M_ + i] = static_cast<double>(a[static_cast<std::size_t>(i) * N_ + j]);
      // scale and slack stay 0 (value-initialised): nothing rounds.
    }

   private:
    int M_, N_;
  };
};

}  // namespace kl
