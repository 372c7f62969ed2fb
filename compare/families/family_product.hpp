// Families "gemm" (C = A·B, docs 000, 001, 004 and the ladder beyond them) and "aat"
// (C = A·Aᵀ, doc 000), row-major, float and double, any shape.
//
// Metric: TFLOP/s over 2·M·N·K (for A·Aᵀ: 2·M·M·K, the full product the documents compute;
// cublas_syrk is rated on the M·(M+1)·K it does), against the device's FMA peak for the type
// (lanes × SMs × clock) and, as "vs library", against cuBLAS measured in the same run.
// Validation, per element: |c_hat_ij - c_ij| <= gamma(K)·(|A|·|B|)_ij against a compensated fp64
// reference (host for small products; above kHostRefMacs on the GPU, compare/core/reference_gpu.cu,
// which the GPU suite checks against the host one); and equality on integer-valued inputs whose
// every partial sum is exact (K·max|a|·max|b| <= 2^24 or 2^53).
#pragma once

#include "common/args/gemm_args.hpp"
#include "compare/core/device_memory.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/reference.hpp"

#include <cstdio>

namespace kl {

// Above this many multiply-adds the reference is computed on the GPU.
inline constexpr double kHostRefMacs = 1 << 25;

// C (M×N) = A (M×K) · b, where b(k, j) = B[k*sb_k + j*sb_j] (gemm: B, K×N; aat: Aᵀ, A's
// buffer read with the strides swapped). The shared part of the two product families.
template <class T>
class ProductProblem : public ProblemBase<T> {
 public:
  ProductProblem(const ProblemKey& k, const RunContext& ctx, std::vector<std::size_t> inputs, int M, int N, int K)
      : ProblemBase<T>(k, ctx, inputs, static_cast<std::size_t>(M) * N), M_(M), N_(N), K_(K), dev_(ctx.dev) {}

  static std::size_t reference_scratch(double M, double N, double K) {
    return M * N * K > kHostRefMacs ? CheckedOutput<T>::reference_scratch_bytes(static_cast<std::size_t>(M * N))
                                    : 0;
  }
  double default_depth() const { return K_; }  // one chain of K products per element
  Metric metric() const override {
    const bool f32 = std::is_same_v<T, float>;
    char b[96];
    std::snprintf(b, sizeof b, "%s FMA peak %.1f TFLOP/s (%d lanes/SM x %d SMs x %.0f MHz)", f32 ? "FP32" : "FP64",
                  f32 ? dev_.fp32_tflops_peak : dev_.fp64_tflops_peak, f32 ? dev_.fp32_lanes_per_sm : dev_.fp64_lanes_per_sm,
                  dev_.sm_count, dev_.sm_clock_mhz);
    Metric m = Metric::flops(2.0 * M_ * static_cast<double>(N_) * K_, f32 ? dev_.fp32_tflops_peak : dev_.fp64_tflops_peak, b);
    // A double product may use the FP64 tensor cores (DMMA, full IEEE FP64): twice the FP64 FMA
    // peak where they are fast (8.0, 9.0); elsewhere they run at the FMA rate or slower. A float
    // product may use FFMA only (TF32 is a different precision).
    const bool fast_dmma = dev_.cc_major * 10 + dev_.cc_minor == 80 || dev_.cc_major == 9;
    if (!f32 && fast_dmma) {
      m.limit = 2 * dev_.fp64_tflops_peak;
      m.limit_label = "FP64 tensor-core peak (2x the FMA peak)";
    }
    return m;
  }

 protected:
  // The second operand: host and device pointers and its strides.
  virtual const T* b_host() const = 0;
  virtual const T* b_device() const = 0;
  virtual std::size_t sb_k() const = 0;
  virtual std::size_t sb_j() const = 0;

  // Random: uniform [-1, 1). Exact: integers with K·max|a|·max|b| within the mantissa; when even
  // ±1 is too much (K > 2^24 in float), A is sparse and B is ±1.
  // The sparse side also carries the precision sentinels (compare/core/problem.hpp): the first of
  // each run of K values (A's column 0; gevm's x[0]), so every output has one sentinel term whose
  // partner (B's row 0, gemv's x[0], gevm's A row 0, A·Aᵀ's a_j0) is nonzero: the other side is
  // dense, or A·Aᵀ's own column 0.
  void fill_operand(std::vector<T>& v, InputKind kind, std::uint64_t seed, bool sparse_side) const {
    if (kind == InputKind::random) return fill_random(v.data(), v.size(), seed);
    ExactValues e = exact_values<T>(K_, 2, true);
    if (e.density < 1 && !sparse_side) e = {1, 1};
    fill_exact(v.data(), v.size(), seed, e, sparse_side ? Sentinels{static_cast<std::size_t>(K_), 0} : Sentinels{});
  }

  void make_reference(InputKind kind) override {
    const std::size_t mn = static_cast<std::size_t>(M_) * N_;
    auto& o = this->out();
    std::vector<double>& abs = o.scale;
    const T* a = this->in(0).host.data();
    if (static_cast<double>(M_) * N_ * K_ <= kHostRefMacs) {
      reference_product_host(a, K_, 1, b_host(), sb_k(), sb_j(), M_, N_, K_, o.ref.data(), abs.data());
    } else {
      o.reference_from_device([&](double* dref, double* dabs) {
        reference_product_device(this->in(0).device(), K_, 1, b_device(), sb_k(), sb_j(), M_, N_, K_, dref, dabs,
                                 nullptr);
      });
    }
    if (kind == InputKind::exact) return;  // exact: equality, no scale needed
    // The kernel's bound is gamma(K)·(|A|·|B|)_ij; |A|·|B| was itself summed in fp64 (relative
    // error within gamma64(K)), so it is scaled up by 1/(1 - gamma64(K)). The reference's own
    // error (compensated) is the slack.
    const double g64 = gamma_bound(K_, unit_roundoff<double>());
    for (std::size_t i = 0; i < mn; ++i) {
      o.slack[i] = CompensatedDot::self_error(o.ref[i], abs[i], K_);
      abs[i] /= (1 - g64);
    }
  }

  int M_, N_, K_;
  const DeviceInfo& dev_;
};

struct GemmFamily : FamilyTraits {
  static constexpr std::string_view name = "gemm";
  static constexpr std::string_view summary = "C = A·B, row-major, any M×N×K (docs 000, 001, 004; ladder beyond them)";
  static constexpr std::string_view unit = "TFLOP/s";
  using Types = TypeList<float, double>;
  static std::vector<DType> default_types() { return {DType::f32, DType::f64}; }
  // 2048: document 001's size; 1000: document 000's; two non-square shapes that no tile divides.
  static SizeSpec sizes() {
    return {.dims = {"M", "N", "K"},
            .defaults = {{2048, 2048, 2048}, {1000, 1000, 1000}, {4097, 4095, 17}, {513, 257, 129}},
            .sweep_lo = 8,
            .sweep_hi = 13,
            .named = {{"shapes", "one product of each shape class gemm_auto tells apart (docs/sgemm-ladder.md, \"Every shape class\")",
                       {{4096, 1, 4096}, {1, 4096, 4096}, {4096, 4096, 1}, {513, 257, 129}, {1000, 1000, 1000},
                        {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}}}}};
  }
  template <class T> using Args = GemmArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return gemm_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return gemm_library<T>(); }

  template <class T>
  class Problem final : public ProductProblem<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProductProblem<T>(k, ctx, input_sizes(k), dim(k, 0), dim(k, 1), dim(k, 2)) {}
    static GemmShape size_of(const ProblemKey& k) { return {dim(k, 0), dim(k, 1), dim(k, 2)}; }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) {
      const std::size_t M = dim(k, 0), N = dim(k, 1), K = dim(k, 2);
      return {M * K, K * N};
    }
    static std::size_t output_size(const ProblemKey& k) { return std::size_t(dim(k, 0)) * dim(k, 1); }
    static std::size_t scratch_bytes(const ProblemKey& k) {
      return ProductProblem<T>::reference_scratch(dim(k, 0), dim(k, 1), dim(k, 2));
    }
    Args<T> args(void* workspace) const {
      return {this->in(0).device(), this->in(1).device(), this->out().device(), this->M_, this->N_, this->K_,
              workspace};
    }

   protected:
    const T* b_host() const override { return this->in(1).host.data(); }
    const T* b_device() const override { return this->in(1).device(); }
    std::size_t sb_k() const override { return static_cast<std::size_t>(this->N_); }
    std::size_t sb_j() const override { return 1; }
    void make_inputs(InputKind kind, std::uint64_t seed) override {
      this->fill_operand(this->in(0).host, kind, seed, true);
      this->fill_operand(this->in(1).host, kind, this->input_seed(seed, 1), false);
    }
  };
};

struct AatFamily : FamilyTraits {
  static constexpr std::string_view name = "aat";
  static constexpr std::string_view summary = "C = A·Aᵀ, row-major, A of M×K (doc 000)";
  static constexpr std::string_view unit = "TFLOP/s";
  using Types = TypeList<float, double>;
  static std::vector<DType> default_types() { return {DType::f32, DType::f64}; }
  // 1000: document 000's lab size; 2048 for a size the GPU is busy with; one odd shape.
  static SizeSpec sizes() {
    return {.dims = {"M", "K"},
            .defaults = {{1000, 1000}, {2048, 2048}, {1025, 333}},
            .sweep_lo = 8,
            .sweep_hi = 13,
            .named = {{"shapes", "A·Aᵀ where the triangle alone does not fill the GPU (1000²) and where it does (2048²)",
                       {{1000, 1000}, {2048, 2048}}}}};
  }
  template <class T> using Args = AatArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return aat_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return aat_library<T>(); }

  template <class T>
  class Problem final : public ProductProblem<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProductProblem<T>(k, ctx, input_sizes(k), dim(k, 0), dim(k, 0), dim(k, 1)) {}
    static AatShape size_of(const ProblemKey& k) { return {dim(k, 0), dim(k, 1)}; }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) { return {std::size_t(dim(k, 0)) * dim(k, 1)}; }
    static std::size_t output_size(const ProblemKey& k) { return std::size_t(dim(k, 0)) * dim(k, 0); }
    static std::size_t scratch_bytes(const ProblemKey& k) {
      return ProductProblem<T>::reference_scratch(dim(k, 0), dim(k, 0), dim(k, 1));
    }
    Args<T> args(void* workspace) const {
      return {this->in(0).device(), this->out().device(), this->M_, this->K_, workspace};
    }

   protected:
    // b(k, j) = A[j*K + k]: A's buffer read as Aᵀ.
    const T* b_host() const override { return this->in(0).host.data(); }
    const T* b_device() const override { return this->in(0).device(); }
    std::size_t sb_k() const override { return 1; }
    std::size_t sb_j() const override { return static_cast<std::size_t>(this->K_); }
    void make_inputs(InputKind kind, std::uint64_t seed) override {
      // A·Aᵀ's operands are the same matrix: sparse or not, one fill (products a_ik·a_jk).
      this->fill_operand(this->in(0).host, kind, seed, true);
    }

  };
};

}  // namespace kl
