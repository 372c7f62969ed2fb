// Families "gemv" (y = A·x) and "gevm" (y = x·A), document 003 and the ladder beyond it. A is
// row-major M × N (M rows, N columns, row r at r·N), float and double, any M, N >= 1.
//
// Sizes: "M x N" (rows × columns) or one number for a square matrix. Document 003 asks for
// timings at "matrix sizes 1000x500, 1000x1000, 1500x1000, 2000x1000, 2000x1500, 2500x1500,
// 2500x2000"; its code calls the rows N and the columns (the vector's length) M, and writes
// sizes rows first, so 1000x500 is read as 1000 rows × 500 columns: M = 1000, N = 500 here. The
// set is `--sizes 003`, for both families (gevm multiplies the same matrices from the left).
//
// Metric: GB/s over the bytes the job must move, (M·N + M + N)·sizeof(T) (A once, x, y), against
// the device-to-device copy bandwidth measured in the same run; "vs lib" against cuBLAS's gemv.
//
// Validation: a matrix × vector product is a matrix product with one output column (gemv:
// (M × N)·(N × 1)) or one output row (gevm: (1 × M)·(M × N)), so the problem is a ProductProblem
// (compare/families/family_product.hpp) with those dimensions: per element |ŷ_i - y_i| <= gamma(depth)·
// (|A|·|x|)_i + the reference's own error, against a compensated fp64 reference (CompensatedDot
// per output; on the GPU above 2^25 multiply-adds), the depth the summation length (N for gemv,
// M for gevm) unless a variant declares a shorter tree; and equality on integer-valued inputs
// (exact_values for sums of products, the sparse side on A).
#pragma once

#include "common/args/matvec_args.hpp"
#include "compare/families/family_product.hpp"

namespace kl {

inline SizeSpec matvec_sizes() {
  return {.dims = {"M", "N"},
          // Document 003's largest size; a large square matrix (1 GiB of floats: bandwidth-bound,
          // twenty times the L2); a shape no block, tile or vector width divides.
          .defaults = {{2500, 2000}, {16384, 16384}, {4097, 1023}},
          .sweep_lo = 8,
          .sweep_hi = 14,
          .named = {{"003", "document 003's sweep, rows x columns: 1000x500 .. 2500x2000",
                     {{1000, 500}, {1000, 1000}, {1500, 1000}, {2000, 1000}, {2000, 1500}, {2500, 1500}, {2500, 2000}}},
                    {"shapes", "document 003's largest size and the matrix of gemm's matrix-vector shapes (4096²)",
                     {{2500, 2000}, {4096, 4096}}}}};
}

// y = A·x (kGevm = false) or y = x·A (kGevm = true) as the product of its two operands: in(0) is
// the left one (A for gemv, x for gevm), in(1) the right one.
template <class T, bool kGevm>
class MatVecProblem final : public ProductProblem<T> {
 public:
  MatVecProblem(const ProblemKey& k, const RunContext& ctx)
      : ProductProblem<T>(k, ctx, input_sizes(k), kGevm ? 1 : rows(k), kGevm ? cols(k) : 1, kGevm ? rows(k) : cols(k)),
        rows_(rows(k)),
        cols_(cols(k)) {}

  static int rows(const ProblemKey& k) { return dim(k, 0); }
  static int cols(const ProblemKey& k) { return dim(k, 1); }
  static MatrixShape size_of(const ProblemKey& k) { return {rows(k), cols(k)}; }
  static std::vector<std::size_t> input_sizes(const ProblemKey& k) {
    const std::size_t M = rows(k), N = cols(k);
    if (kGevm) return {M, M * N};
    return {M * N, N};
  }
  static std::size_t output_size(const ProblemKey& k) { return static_cast<std::size_t>(kGevm ? cols(k) : rows(k)); }
  static std::size_t scratch_bytes(const ProblemKey& k) {
    const double M = rows(k), N = cols(k);
    return kGevm ? ProductProblem<T>::reference_scratch(1, N, M) : ProductProblem<T>::reference_scratch(M, 1, N);
  }

  MatVecArgs<T> args(void* workspace) const {
    const T* A = this->in(kGevm ? 1 : 0).device();
    const T* x = this->in(kGevm ? 0 : 1).device();
    return {A, x, this->out().device(), rows_, cols_, workspace};
  }

  Metric metric() const override {
    const double M = rows_, N = cols_;
    return this->bandwidth_metric((M * N + M + N) * sizeof(T));
  }

 protected:
  const T* b_host() const override { return this->in(1).host.data(); }
  const T* b_device() const override { return this->in(1).device(); }
  // gemv: b = x, one column (k runs along x). gevm: b = A, k runs down its rows (stride N).
  std::size_t sb_k() const override { return kGevm ? static_cast<std::size_t>(cols_) : 1; }
  std::size_t sb_j() const override { return 1; }
  void make_inputs(InputKind kind, std::uint64_t seed) override {
    // Exact inputs: when even ±1 everywhere would overflow the mantissa, A is the sparse side.
    this->fill_operand(this->in(0).host, kind, seed, !kGevm);
    this->fill_operand(this->in(1).host, kind, this->input_seed(seed, 1), kGevm);
  }

 private:
  int rows_, cols_;
};

// What the two families share: all but their names and lists (gevm multiplies the same matrices
// from the left: gemv's types, sizes, arguments and problem).
template <bool kGevm>
struct MatVecTraits : FamilyTraits {
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<float, double>;
  static std::vector<DType> default_types() { return {DType::f32, DType::f64}; }
  static SizeSpec sizes() { return matvec_sizes(); }
  template <class T> using Args = MatVecArgs<T>;
  template <class T> using Problem = MatVecProblem<T, kGevm>;
};

struct GemvFamily : MatVecTraits<false> {
  static constexpr std::string_view name = "gemv";
  static constexpr std::string_view summary = "y = A·x, A row-major M×N (doc 003; ladder beyond it)";
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return gemv_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return gemv_library<T>(); }
};

struct GevmFamily : MatVecTraits<true> {
  static constexpr std::string_view name = "gevm";
  static constexpr std::string_view summary = "y = x·A, A row-major M×N (doc 003 \"by analogy\"; ladder beyond it)";
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return gevm_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return gevm_library<T>(); }
};

}  // namespace kl
