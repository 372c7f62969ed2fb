// Families "gemm" (C = A·B, docs 000, 001, 004 and the ladder beyond them) and "aat"
// (C = A·Aᵀ, doc 000), row-major, float and double, any shape.
//
// Metric: TFLOP/s over 2·M·N·K (for A·Aᵀ: 2·M·M·K, the full product the documents compute),
// against the device's FMA peak for the type (lanes × SMs × clock) and, as "vs library",
// against cuBLAS measured in the same run.
// Validation, per element: |c_hat_ij - c_ij| <= gamma(K)·(|A|·|B|)_ij, against an fp64
// reference computed on the host for small products and, above kHostRefMacs, on the GPU by
// compare/reference_gpu.cu (which the GPU suite checks against the host reference).
#include "compare/problem_product.hpp"

namespace kl {
namespace {

int as_int_dim(long long v, const char* what) {
  if (v > std::numeric_limits<int>::max()) throw UsageError(std::string(what) + " is larger than 2^31-1");
  return static_cast<int>(v);
}

// Parses "2048" (square) or "MxNxK" / "MxK" with `parts` numbers.
Dims parse_shape(std::string_view text, std::size_t parts, const char* family) {
  Dims d;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find_first_of("xX*", start);
    d.push_back(parse_positive_count(text.substr(start, x == std::string_view::npos ? x : x - start),
                                     std::string(family) + " size"));
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  if (d.size() == 1) d.assign(parts, d[0]);
  if (d.size() != parts)
    throw UsageError(std::string(family) + " size '" + std::string(text) + "' needs " +
                     (parts == 3 ? "M x N x K" : "M x K") + " (or one number for a square problem)");
  for (long long v : d) as_int_dim(v, (std::string(family) + " dimension").c_str());
  return d;
}

template <class T>
std::vector<GemmVariant<T>> all_gemm() {
  auto v = gemm_handwritten<T>();
  for (auto& l : gemm_library<T>()) v.push_back(l);
  return v;
}
template <class T>
std::vector<AatVariant<T>> all_aat() {
  auto v = aat_handwritten<T>();
  for (auto& l : aat_library<T>()) v.push_back(l);
  return v;
}

template <class T>
std::vector<Row> run_gemm(const Family& fam, const Dims& d, RunContext& ctx) {
  const int M = static_cast<int>(d[0]), N = static_cast<int>(d[1]), K = static_cast<int>(d[2]);
  const std::uint64_t seed = ctx.opt.seed ? *ctx.opt.seed : fresh_seed();
  ProductProblem<T> p(ProductKind::gemm, M, N, K, seed, ctx.opt.end_to_end, ctx.dev);
  const auto list = all_gemm<T>();
  std::vector<Candidate> cands;
  for (const GemmVariant<T>* v : select_variants(list, ctx.opt)) {
    Candidate c;
    c.info = listing_of(v->info);
    c.unsupported = v->unsupported ? v->unsupported(M, N, K) : nullptr;
    c.prepare = v->prepare;
    c.launch = [v, &p, M, N, K](void*, cudaStream_t s) { v->launch(GemmArgs<T>{p.A(), p.B(), p.C(), M, N, K}, s); };
    cands.push_back(std::move(c));
  }
  return execute(fam, dtype_of<T>(), d, p, cands, ctx, seed);
}

template <class T>
std::vector<Row> run_aat(const Family& fam, const Dims& d, RunContext& ctx) {
  const int M = static_cast<int>(d[0]), K = static_cast<int>(d[1]);
  const std::uint64_t seed = ctx.opt.seed ? *ctx.opt.seed : fresh_seed();
  ProductProblem<T> p(ProductKind::aat, M, M, K, seed, ctx.opt.end_to_end, ctx.dev);
  const auto list = all_aat<T>();
  std::vector<Candidate> cands;
  for (const AatVariant<T>* v : select_variants(list, ctx.opt)) {
    Candidate c;
    c.info = listing_of(v->info);
    c.unsupported = v->unsupported ? v->unsupported(M, K) : nullptr;
    c.prepare = v->prepare;
    c.launch = [v, &p, M, K](void*, cudaStream_t s) { v->launch(AatArgs<T>{p.A(), p.C(), M, K}, s); };
    cands.push_back(std::move(c));
  }
  return execute(fam, dtype_of<T>(), d, p, cands, ctx, seed);
}

template <class V>
std::vector<VariantListing> to_listings(const std::vector<V>& list) {
  std::vector<VariantListing> out;
  for (const auto& v : list) out.push_back(listing_of(v.info));
  return out;
}

std::size_t elem_size(DType t) { return t == DType::f32 ? sizeof(float) : sizeof(double); }

std::size_t reference_bytes(double macs, std::size_t out_elems) {
  return macs > kHostRefMacs ? 2 * out_elems * sizeof(double) : 0;
}

class GemmFamily final : public Family {
 public:
  std::string_view name() const override { return "gemm"; }
  std::string_view summary() const override {
    return "C = A·B, row-major, any M×N×K (docs 000, 001, 004; ladder beyond them)";
  }
  std::string_view unit() const override { return "TFLOP/s"; }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f64}; }
  std::vector<DType> default_dtypes() const override { return {DType::f32, DType::f64}; }
  std::vector<VariantListing> variants(DType t) const override {
    return t == DType::f32 ? to_listings(all_gemm<float>()) : t == DType::f64 ? to_listings(all_gemm<double>()) : std::vector<VariantListing>{};
  }
  // 2048: document 001's size; 1000: document 000's; two non-square shapes that no tile divides.
  std::vector<Dims> default_sizes() const override {
    return {{2048, 2048, 2048}, {1000, 1000, 1000}, {4097, 4095, 17}, {513, 257, 129}};
  }
  std::pair<int, int> default_sweep() const override { return {8, 13}; }
  std::vector<Dims> sweep(int lo, int hi) const override {
    std::vector<Dims> v;
    for (int e = lo; e <= hi; ++e) v.push_back({1LL << e, 1LL << e, 1LL << e});
    return v;
  }
  std::string size_syntax() const override { return "MxNxK, or N for a square product: 2048, 513x257x129"; }
  Dims parse_size(std::string_view text) const override { return parse_shape(text, 3, "gemm"); }
  std::string shape_label(const Dims& d) const override {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
  }
  std::size_t device_bytes(DType t, const Dims& d) const override {
    const double M = static_cast<double>(d[0]), N = static_cast<double>(d[1]), K = static_cast<double>(d[2]);
    const std::size_t mn = static_cast<std::size_t>(M * N);
    return static_cast<std::size_t>((M * K + K * N + M * N) * static_cast<double>(elem_size(t))) +
           reference_bytes(M * N * K, mn);
  }
  std::vector<Row> run(DType t, const Dims& d, RunContext& ctx) const override {
    return t == DType::f32 ? run_gemm<float>(*this, d, ctx) : run_gemm<double>(*this, d, ctx);
  }
};

class AatFamily final : public Family {
 public:
  std::string_view name() const override { return "aat"; }
  std::string_view summary() const override { return "C = A·Aᵀ, row-major, A of M×K (doc 000)"; }
  std::string_view unit() const override { return "TFLOP/s"; }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f64}; }
  std::vector<DType> default_dtypes() const override { return {DType::f32, DType::f64}; }
  std::vector<VariantListing> variants(DType t) const override {
    return t == DType::f32 ? to_listings(all_aat<float>()) : t == DType::f64 ? to_listings(all_aat<double>()) : std::vector<VariantListing>{};
  }
  // 1000: document 000's lab size; 2048 for a size the GPU is busy with; one odd shape.
  std::vector<Dims> default_sizes() const override { return {{1000, 1000}, {2048, 2048}, {1025, 333}}; }
  std::pair<int, int> default_sweep() const override { return {8, 13}; }
  std::vector<Dims> sweep(int lo, int hi) const override {
    std::vector<Dims> v;
    for (int e = lo; e <= hi; ++e) v.push_back({1LL << e, 1LL << e});
    return v;
  }
  std::string size_syntax() const override { return "MxK, or N for a square A: 1000, 1025x333"; }
  Dims parse_size(std::string_view text) const override { return parse_shape(text, 2, "aat"); }
  std::string shape_label(const Dims& d) const override { return std::to_string(d[0]) + "x" + std::to_string(d[1]); }
  std::size_t device_bytes(DType t, const Dims& d) const override {
    const double M = static_cast<double>(d[0]), K = static_cast<double>(d[1]);
    const std::size_t mm = static_cast<std::size_t>(M * M);
    return static_cast<std::size_t>((M * K + M * M) * static_cast<double>(elem_size(t))) + reference_bytes(M * M * K, mm);
  }
  std::vector<Row> run(DType t, const Dims& d, RunContext& ctx) const override {
    return t == DType::f32 ? run_aat<float>(*this, d, ctx) : run_aat<double>(*this, d, ctx);
  }
};

}  // namespace

const Family& gemm_family() {
  static const GemmFamily f;
  return f;
}
const Family& aat_family() {
  static const AatFamily f;
  return f;
}

}  // namespace kl
