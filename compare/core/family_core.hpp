// The family template: what every family does the same way, said once. A family is a traits
// struct (compare/families/family_<name>.hpp) and one registration line in a translation unit of
// its own (compare/families/<name>.cpp: KL_REGISTER_FAMILY, compare/core/family.hpp):
//
//   struct ReduceFamily : FamilyTraits {
//     static constexpr std::string_view name = "reduce", summary = "...", unit = "GB/s";
//     using Types = TypeList<int, float, double>;        // element types it runs
//     static std::vector<DType> default_types();          // those of the default comparison
//     static SizeSpec sizes();                            // named dimensions, defaults, sweeps
//     static std::vector<StringAxis> axes();              // optional: string axes (FamilyTraits: none)
//     static std::vector<std::pair<Dims, AxisValues>> extra_defaults();  // optional: more default problems
//     template <class T> using Args = ReduceArgs<T>;
//     template <class T> static std::vector<Variant<Args<T>>> handwritten();  // its two lists
//     template <class T> static std::vector<Variant<Args<T>>> library();
//     template <class T> class Problem;                   // : ProblemBase<T>, see below
//   };
//
// Problem<T> is built from (const ProblemKey&, const RunContext&) and provides
//   static std::vector<std::size_t> input_sizes(const ProblemKey&);   // elements of each input
//   static std::size_t output_size(const ProblemKey&);                // elements of the output
//   static std::size_t scratch_bytes(const ProblemKey&);              // optional: reference scratch
//   static typename Args<T>::Size size_of(const ProblemKey&);         // what the variants' hooks get
//   Args<T> args(void* workspace) const;                              // the launch arguments
//   double default_depth() const;                                     // bound depth without a hook
//   make_inputs, make_reference, metric                              // ProblemBase's virtuals
// and TypedFamily<F> does the rest: element-type dispatch, joining and selecting the lists,
// listings, sizes, axes, device memory, candidates, the run.
//
// A problem that depends on the run as well as on its key (allreduce: how many GPUs it drives,
// RunOptions::gpus) may instead, or in addition, provide
//   static typename Args<T>::Size size_of(const ProblemKey&, const RunOptions&);
//   static AxisValues run_axes(const ProblemKey&, const RunOptions&); // shown with the shape: gpus=2
//   std::string unsupported() const;  // non-empty: why no variant can run here (every row skipped)
// and a problem that launches its variants itself (allreduce's --ops: N operations captured into
// one graph per launch) provides
//   void launch_variant(const Variant<Args<T>>&, const Args<T>&, cudaStream_t);
//   int ops_per_launch() const;       // operations one launch performs; samples are divided by it
#pragma once

#include "common/args_kind.hpp"
#include "compare/core/execute.hpp"
#include "compare/core/family.hpp"
#include "compare/core/problem.hpp"
#include "compare/core/random.hpp"
#include "compare/core/requirements.hpp"
#include "compare/core/remote_variants.hpp"

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kl {

template <class... Ts>
struct TypeList {};

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the T of Ts whose DType is t; returns what f returns.
template <class F, class T0, class... Ts>
auto dispatch_type(TypeList<T0, Ts...>, DType t, F&& f) -> decltype(f(TypeTag<T0>{})) {
  if (dtype_of<T0>() == t) return f(TypeTag<T0>{});
  if constexpr (sizeof...(Ts) > 0) return dispatch_type(TypeList<Ts...>{}, t, std::forward<F>(f));
  else throw UsageError("type " + std::string(dtype_name(t)) + " is not run by this family");
}

template <class... Ts>
std::vector<DType> dtypes_of(TypeList<Ts...>) {
  return {dtype_of<Ts>()...};
}

template <class List>
struct FirstType;
template <class T0, class... Ts>
struct FirstType<TypeList<T0, Ts...>> {
  using type = T0;
};

// The optional Problem members of the header comment, detected (C++17: .cu files include this).
namespace detail {
template <class P, class = void>
struct has_run_size : std::false_type {};
template <class P>
struct has_run_size<P, std::void_t<decltype(P::size_of(std::declval<const ProblemKey&>(), std::declval<const RunOptions&>()))>>
    : std::true_type {};
template <class P, class = void>
struct has_run_axes : std::false_type {};
template <class P>
struct has_run_axes<P, std::void_t<decltype(P::run_axes(std::declval<const ProblemKey&>(), std::declval<const RunOptions&>()))>>
    : std::true_type {};
template <class P, class = void>
struct has_problem_skip : std::false_type {};
template <class P>
struct has_problem_skip<P, std::void_t<decltype(std::declval<const P&>().unsupported())>> : std::true_type {};
// A problem that launches its variants itself: p.launch_variant(variant, args, stream), with
// p.ops_per_launch() operations per launch (allreduce's --ops).
template <class P, class V, class A, class = void>
struct launches_variants : std::false_type {};
template <class P, class V, class A>
struct launches_variants<P, V, A,
                         std::void_t<decltype(std::declval<P&>().launch_variant(std::declval<const V&>(), std::declval<const A&>(),
                                                                                std::declval<cudaStream_t>()))>>
    : std::true_type {};
}  // namespace detail

// Variant names identify rows (reports, `compare diff`, --variants): two variants of one family
// and type with the same name throw std::logic_error naming it (checked once, when the family's
// list is first built).
void refuse_duplicate_names(std::string_view family, std::string_view type, const std::vector<std::string_view>& names);

// Defaults a family's traits may leave out.
struct FamilyTraits {
  static std::vector<StringAxis> axes() { return {}; }
  static std::vector<FamilySetting> settings() { return {}; }
  static std::string planned_skip(const RunOptions&) { return {}; }
  // false where the random check is already an equality or there are no inputs (transpose,
  // table): no second, exact input set. Must agree with the Problem's exact_check_is_separate_.
  static constexpr bool exact_inputs = true;
  // Whether hand-written launches are stream-checked (captured and replayed: execute.cpp).
  static constexpr bool stream_check = true;
  static std::vector<std::pair<Dims, AxisValues>> extra_defaults() { return {}; }
  // false: left out of the default comparison until its variants have run on a GPU.
  static constexpr bool in_default_run = true;
};

inline VariantListing listing_of(const VariantInfo& i, const Requirements& needs = {}) {
  return {std::string(i.name), std::string(i.origin), std::string(i.lesson), i.source, needs};
}

template <class F>
class TypedFamily final : public Family {
 public:
  template <class T> using Args = typename F::template Args<T>;
  template <class T> using V = Variant<Args<T>>;
  template <class T> using P = typename F::template Problem<T>;
  // Rewrites a variant's launch arguments (the GPU suite's mutants: a dropped element, k - 1).
  template <class T> using ArgsHook = std::function<Args<T>(const Args<T>&, cudaStream_t)>;

  TypedFamily() : spec_(F::sizes()) {}

  std::string_view name() const override { return F::name; }
  std::string_view summary() const override { return F::summary; }
  std::string_view unit() const override { return F::unit; }
  std::vector<DType> dtypes() const override { return dtypes_of(typename F::Types{}); }
  std::vector<DType> default_dtypes() const override { return F::default_types(); }
  const SizeSpec& sizes() const override { return spec_; }
  std::vector<StringAxis> axes() const override { return F::axes(); }
  std::vector<std::pair<Dims, AxisValues>> extra_defaults() const override { return F::extra_defaults(); }
  std::vector<FamilySetting> settings() const override { return F::settings(); }
  bool in_default_run() const override { return F::in_default_run; }
  std::string planned_skip(const RunOptions& opt) const override { return F::planned_skip(opt); }
  bool has_exact_inputs(DType t) const override {
    return dispatch_type(typename F::Types{}, t, [](auto tag) {
      return F::exact_inputs && !std::is_integral_v<typename decltype(tag)::type>;
    });
  }

  // The ladder, then the library baselines (made once per type; candidates point into it).
  template <class T>
  static const std::vector<V<T>>& variants_of() {
    static const std::vector<V<T>> list = [] {
      auto v = F::template handwritten<T>();
      for (auto& l : F::template library<T>()) v.push_back(l);
      std::vector<std::string_view> names;
      for (const auto& x : v) names.push_back(x.info.name);
      refuse_duplicate_names(F::name, dtype_name(dtype_of<T>()), names);
      return v;
    }();
    return list;
  }

  // The ladder and the library baselines, then the remote variants (outside submissions).
  std::vector<VariantListing> variants(DType t, const RemoteVariants* remote) const override {
    return dispatch_type(typename F::Types{}, t, [&](auto tag) {
      std::vector<VariantListing> out;
      for (const auto& v : variants_of<typename decltype(tag)::type>()) out.push_back(listing_of(v.info, v.needs));
      if (remote)
        for (const RemoteVariant* rv : remote->of(F::name, t)) out.push_back(remote_listing(*rv));
      return out;
    });
  }
  std::string_view args_kind() const override {
    return ArgsKind<Args<typename FirstType<typename F::Types>::type>>::name;
  }

  static VariantListing remote_listing(const RemoteVariant& rv) {
    return {rv.full_name, rv.origin, rv.lesson, Source::handwritten, rv.needs};
  }

  // The Size the variants' hooks get (see the header comment).
  template <class T>
  static typename Args<T>::Size size_for(const ProblemKey& k, const RunOptions& opt) {
    if constexpr (detail::has_run_size<P<T>>::value) return P<T>::size_of(k, opt);
    else return P<T>::size_of(k);
  }

  std::size_t device_bytes(const ProblemKey& k, const RunOptions& opt) const override {
    return dispatch_type(typename F::Types{}, k.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::size_t elems = P<T>::output_size(k);
      // Inputs twice where the problem keeps a pristine copy of each (ProblemBase: the read-only check).
      for (std::size_t n : P<T>::input_sizes(k)) elems += std::is_base_of_v<ProblemBase<T>, P<T>> ? 2 * n : n;
      std::size_t ws = 0;
      // The largest workspace any variant asks for at this size.
      const auto size = size_for<T>(k, opt);
      for (const auto& v : variants_of<T>()) {
        try {
          if (v.workspace_bytes && !(v.unsupported && v.unsupported(size))) ws = std::max(ws, v.workspace_bytes(size));
        } catch (const std::exception&) {
        }
      }
      return elems * sizeof(T) + P<T>::scratch_bytes(k) + ws;
    });
  }

  std::size_t host_bytes(const ProblemKey& k, const RunOptions& opt) const override {
    return dispatch_type(typename F::Types{}, k.dtype, [&](auto tag) -> std::size_t {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_base_of_v<ProblemBase<T>, P<T>>) {
        return 0;
      } else {
        std::size_t bytes = CheckedOutput<T>::host_bytes(P<T>::output_size(k), opt.end_to_end);
        for (std::size_t n : P<T>::input_sizes(k)) bytes += Input<T>::host_bytes(n, opt.end_to_end);
        return bytes;
      }
    });
  }

  // Variant v bound to problem p: its hooks asked for p's size, its launch given p's arguments
  // (rewritten by `hook` where there is one). `problem_skip`: why no variant can run p, or "".
  template <class T>
  static Candidate bind(const V<T>& v, P<T>& p, const typename Args<T>::Size& size, const std::string& problem_skip = {},
                        ArgsHook<T> hook = {}) {
    Candidate c;
    c.info = listing_of(v.info, v.needs);
    c.prepare = v.prepare;
    c.error_model = std::string(v.error_model);
    c.check_stream = F::stream_check && v.info.source == Source::handwritten;
    try {
      if (!problem_skip.empty()) c.unsupported = problem_skip;
      else if (has_requirements(v.needs)) c.unsupported = check_on_this_device(v.needs);  // this GPU, this build
      if (const char* why = c.unsupported.empty() && v.unsupported ? v.unsupported(size) : nullptr) c.unsupported = why;
      if (c.unsupported.empty()) {
        c.workspace_bytes = v.workspace_bytes ? v.workspace_bytes(size) : 0;
        c.rounding_depth = v.rounding_depth ? v.rounding_depth(size) : p.default_depth();
        c.work = v.work ? v.work(size) : 0;
        if (has_requirements(v.needs)) c.remark = slow_note_on_this_device(v.needs);
      }
    } catch (const std::exception& e) {
      c.setup_error = e.what();
    }
    // A copy of the descriptor: bind() also serves variants that live no longer than the call.
    // A problem that launches its variants itself (allreduce's --ops: many operations in one
    // graph) says how many operations one launch is.
    if constexpr (detail::launches_variants<P<T>, V<T>, Args<T>>::value) {
      c.ops_per_launch = p.ops_per_launch();
      if (hook) c.launch = [v, &p, hook](void* ws, cudaStream_t s) { p.launch_variant(v, hook(p.args(ws), s), s); };
      else c.launch = [v, &p](void* ws, cudaStream_t s) { p.launch_variant(v, p.args(ws), s); };
    } else if (hook) {
      c.launch = [v, &p, hook](void* ws, cudaStream_t s) { v.launch(hook(p.args(ws), s), s); };
      if (v.tune) c.tune = [v, &p, hook](void* ws, cudaStream_t s, const Measure& m) { v.tune(hook(p.args(ws), s), s, m); };
    } else {
      c.launch = [v, &p](void* ws, cudaStream_t s) { v.launch(p.args(ws), s); };
      if (v.tune) c.tune = [v, &p](void* ws, cudaStream_t s, const Measure& m) { v.tune(p.args(ws), s, m); };
    }
    return c;
  }

  // The selected variants bound to problem p.
  template <class T>
  static std::vector<Candidate> candidates(P<T>& p, const RunOptions& opt, ArgsHook<T> hook = {}) {
    std::vector<Candidate> out;
    const auto size = size_for<T>(p.key(), opt);
    std::string problem_skip;  // why no variant can run this problem (e.g. fewer GPUs than it needs)
    if constexpr (detail::has_problem_skip<P<T>>::value) problem_skip = p.unsupported();
    for (const V<T>& v : variants_of<T>()) {
      if (!runs_under(v.info.name, v.info.source, opt)) continue;
      out.push_back(bind<T>(v, p, size, problem_skip, hook));
    }
    if (opt.remote)
      for (const RemoteVariant* rv : opt.remote->of(F::name, dtype_of<T>())) {
        if (!runs_under(rv->full_name, Source::handwritten, opt)) continue;  // as the ladder's own
        out.push_back(bind_remote<T>(*opt.remote, *rv, p, size, problem_skip));
      }
    if (opt.wrap_candidates) opt.wrap_candidates(out);
    return out;
  }

  // A remote variant bound to problem p: its hooks evaluated and its launches made in its own
  // process, on p's buffers.
  template <class T>
  static Candidate bind_remote(RemoteVariants& remote, const RemoteVariant& rv, P<T>& p, const typename Args<T>::Size& size,
                               const std::string& problem_skip) {
    Candidate c;
    c.info = remote_listing(rv);
    c.error_model = rv.error_model;
    c.check_stream = true;
    try {
      if (!problem_skip.empty()) c.unsupported = problem_skip;
      else if (has_requirements(rv.needs)) c.unsupported = check_on_this_device(rv.needs);
      if (c.unsupported.empty()) {
        const RemoteBind b = remote.bind(rv, &size, sizeof size);
        if (!b.refused.empty()) c.refused = b.refused;
        else if (!b.error.empty()) c.setup_error = "a hook failed in its sandbox: " + b.error;
        else if (!b.unsupported.empty()) c.unsupported = b.unsupported;
        c.workspace_bytes = b.workspace_bytes;
        c.rounding_depth = b.rounding_depth > 0 ? b.rounding_depth : p.default_depth();
        c.work = b.work;
      }
    } catch (const StreamContractError& e) {
      c.refused = e.what();
    } catch (const std::exception& e) {
      c.setup_error = e.what();
    }
    c.remote = remote.launch(
        rv,
        [&p](void* ws) {
          const Args<T> a = p.args(ws);
          std::vector<unsigned char> bytes(sizeof a);
          std::memcpy(bytes.data(), static_cast<const void*>(&a), sizeof a);
          return bytes;
        },
        ArgsKind<Args<T>>::pointers());
    c.launch = [](void*, cudaStream_t) { throw std::logic_error("a remote variant runs in its own process"); };
    return c;
  }

  // The row every variant of problem k starts from.
  Row proto_row(const ProblemKey& k) const {
    Row r;
    r.family = std::string(name());
    r.dtype = std::string(dtype_name(k.dtype));
    r.shape = shape_label(k);
    r.dims = k.dims;
    r.dim_names = spec_.dims;
    r.axes = k.axes;
    return r;
  }
  // ... with the axes the run decides (allreduce: gpus=G), which are part of what was measured.
  template <class T>
  Row proto_row(const ProblemKey& k, const RunOptions& opt) const {
    Row r = proto_row(k);
    if constexpr (detail::has_run_axes<P<T>>::value) {
      for (auto& [n, v] : P<T>::run_axes(k, opt)) {
        r.shape += " " + n + "=" + v;
        r.axes.emplace_back(n, v);
      }
    }
    return r;
  }

  // Builds problem k; a failure (device memory, the reference) becomes one error row per
  // selected variant.
  template <class T>
  std::vector<Row> run_typed(const ProblemKey& k, RunContext& ctx, ArgsHook<T> hook = {}) const {
    const std::uint64_t seed = ctx.opt.seed ? *ctx.opt.seed : fresh_seed();
    std::unique_ptr<P<T>> p;
    try {
      p = std::make_unique<P<T>>(k, ctx);
    } catch (const std::exception& e) {
      return failed_rows<T>(k, ctx, std::string("could not set up the problem: ") + e.what());
    }
    if (p->has_exact_inputs() != has_exact_inputs(k.dtype))
      throw std::logic_error(std::string(F::name) + ": the traits' exact_inputs disagrees with its Problem");
    auto cands = candidates<T>(*p, ctx.opt, hook);
    return execute(proto_row<T>(k, ctx.opt), *p, cands, ctx, seed);
  }

  std::vector<Row> run(const ProblemKey& k, RunContext& ctx) const override {
    return dispatch_type(typename F::Types{}, k.dtype,
                         [&](auto tag) { return run_typed<typename decltype(tag)::type>(k, ctx); });
  }

 private:
  template <class T>
  std::vector<Row> failed_rows(const ProblemKey& k, RunContext& ctx, const std::string& why) const {
    std::vector<Row> rows;
    for (const V<T>& v : variants_of<T>()) {
      if (!runs_under(v.info.name, v.info.source, ctx.opt)) continue;
      Row r = proto_row<T>(k, ctx.opt);
      r.variant = v.info.name;
      r.origin = v.info.origin;
      r.lesson = v.info.lesson;
      r.source = v.info.source;
      r.status = RowStatus::error;
      r.note = why;
      rows.push_back(std::move(r));
    }
    if (ctx.timer.context_is_dead()) ctx.fatal = why;
    return rows;
  }

  SizeSpec spec_;
};

// The one instance of family F (what KL_REGISTER_FAMILY registers).
template <class F>
const Family& family() {
  static const TypedFamily<F> f;
  return f;
}

// The problem key of a family at one type and size, its axes at their first default values (the
// GPU suite's shorthand).
ProblemKey make_key(const Family& f, DType t, Dims dims, AxisValues axes = {});

}  // namespace kl
