// The runner core (compare/core/execute.cpp) on the host, over a fake device: the pipeline's own
// rules, with no GPU. A result that is right only on the first run fails the re-validation after
// timing (which starts from poisoned outputs); a bound that says nothing fails; the exact-input
// check catches what the bound cannot; a handwritten row with no library output says so.
// (Figures in this file's comments are unmeasured: the fake device's own numbers.)
#include "compare/core/execute.hpp"
#include "compare/core/family_core.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

using namespace kl;

namespace {

// A device that is host memory and runs everything at once.
class FakeTimer : public Timer {
 public:
  cudaStream_t stream() const override { return nullptr; }
  void synchronize() override {}
  // Five samples, then the extra ones, each after its `before` (warm-ups: negative indices).
  Timing sample(const SampleHooks& h, const StopRule&, int warmup) override {
    for (int i = 0; i < warmup; ++i) {
      if (h.before) h.before(nullptr, i - warmup, false);
      h.op(nullptr, i - warmup);
    }
    Timing t;
    const int n = 5 + h.extra;
    for (int i = 0; i < n; ++i) {
      if (h.before) h.before(nullptr, i, i >= 5);
      h.op(nullptr, i);
      t.samples_ms.push_back(1.0 + 0.01 * i);
      if (h.after) h.after(i);
    }
    t.stats = summarize(t.samples_ms);
    t.converged = true;
    return t;
  }
  std::shared_ptr<void> allocate(std::size_t bytes) override {
    return bytes ? std::shared_ptr<void>(std::malloc(bytes), std::free) : nullptr;
  }
  void poison(void* p, std::size_t bytes, int pattern) override { std::memset(p, pattern & 1 ? 0x7f : 0xff, bytes); }
  void fill_bytes(void* p, std::size_t bytes, unsigned char value) override { std::memset(p, value, bytes); }
  std::size_t bytes_changed(const void* p, std::size_t bytes, unsigned char value) override {
    std::size_t n = 0;
    for (std::size_t i = 0; i < bytes; ++i) n += static_cast<const unsigned char*>(p)[i] != value;
    return n;
  }
  // No capture on the host: the poison, then the launch (what a replay of a well-behaved launch does).
  void run_captured(const std::function<void(cudaStream_t)>& launch, const std::function<void()>& between) override {
    between();
    launch(nullptr);
  }
  bool context_is_dead() override { return false; }
};

// A one-element "sum" whose output is a host double: reference `truth`, scale `abs_sum`.
class FakeProblem final : public Problem {
 public:
  double out = 0, truth = 0, abs_sum = 1000, exact_truth = 0;
  InputKind kind = InputKind::random;
  bool has_lib = false;
  double lib = 0;
  bool has_exact_inputs() const override { return true; }
  void load_inputs(InputKind k, std::uint64_t) override {
    kind = k;
    has_lib = false;
  }
  void poison(cudaStream_t, int pattern) override { out = pattern & 1 ? 3.4e38 : std::numeric_limits<double>::quiet_NaN(); }
  Check validate(const Candidate& c) override {
    CheckAccumulator acc;
    if (kind == InputKind::exact) {
      acc.add(0, out, exact_truth, 0);
      return acc.finish();
    }
    const double f = gamma_bound(c.rounding_depth, 0x1p-24);
    if (!meaningful_factor(f)) return meaningless_bound(c.rounding_depth, f);
    acc.add(0, out, truth, f * abs_sum);
    return acc.finish();
  }
  void keep_as_library(const Candidate&) override { has_lib = true, lib = out; }
  bool has_library_output() const override { return has_lib; }
  Check cross_check(const Candidate& c) override {
    CheckAccumulator acc;
    acc.add(0, out, lib, 2 * gamma_bound(c.rounding_depth, 0x1p-24) * abs_sum);
    return acc.finish();
  }
  void copy_inputs_to_device(cudaStream_t) override {}
  void copy_outputs_to_host(cudaStream_t) override {}
  Metric metric() const override { return Metric::bandwidth(bytes, 3000); }
  double bytes = 4096;  // what one run must move
  int generation = 0;   // which buffers are loaded: load_fresh makes new ones
  void load_fresh(std::uint64_t seed) override {
    ++generation;
    load_inputs(InputKind::random, seed);
  }
  // The right answer for the loaded input set.
  double answer() const { return kind == InputKind::exact ? exact_truth : truth; }
};

Candidate candidate(const char* name, Source src, std::function<void(void*, cudaStream_t)> launch, double depth = 10) {
  Candidate c;
  c.info = {name, "test", "", src};
  c.rounding_depth = depth;
  c.launch = std::move(launch);
  return c;
}

std::vector<Row> run_with(FakeProblem& p, std::vector<Candidate> cands, const RunOptions& opt) {
  static FakeTimer timer;
  static DeviceInfo dev;
  RunContext ctx{opt, dev, 3000, timer};
  Row proto;
  proto.family = "fake";
  return execute(proto, p, cands, ctx, 1);
}
std::vector<Row> run(FakeProblem& p, std::vector<Candidate> cands, bool time = true) {
  RunOptions opt;
  opt.time_variants = time;
  return run_with(p, std::move(cands), opt);
}

}  // namespace

TEST_CASE("the pipeline: a correct variant passes, is timed, and is compared with the library") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  const auto rows = run(p, {candidate("good", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); }),
                            candidate("lib", Source::library, [&](void*, cudaStream_t) { p.out = p.answer(); })});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].status == RowStatus::ok);
  CHECK(rows[0].exact_check.pass);
  CHECK(rows[0].library_check.ran);
  CHECK(rows[0].has_timing);
  CHECK(rows[0].samples_ms.size() == 5);
  CHECK(rows[0].vs_library == doctest::Approx(1.0));
}

TEST_CASE("a result that is right only on the first run fails after timing") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  int runs = 0;
  // Writes only on its first launch of each input set, like a kernel that relies on state an
  // earlier run left behind: the timed runs see the old value, the poisoned re-run does not.
  InputKind last = InputKind::exact;
  const auto rows = run(p, {candidate("stale", Source::handwritten, [&](void*, cudaStream_t) {
                              if (runs++ == 0 || p.kind != last) p.out = p.answer();
                              last = p.kind;
                            })});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == RowStatus::fail);
  CHECK(rows[0].note.find("wrong in its last timed run") != std::string::npos);
}

TEST_CASE("a bound that is infinite or not meaningful never passes") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  // Depth 2^24 in float: gamma = inf; 2^23: gamma = 1. Either lets 0 pass for any sum within
  // sum|x|: both must fail, even though the output is the exact answer.
  for (double depth : {16777216.0, 8388608.0, std::numeric_limits<double>::infinity()}) {
    CAPTURE(depth);
    const auto rows = run(p, {candidate("deep", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); }, depth)},
                          false);
    CHECK(rows[0].status == RowStatus::fail);
    CHECK(rows[0].note.find("not meaningful") != std::string::npos);
  }
  CHECK_FALSE(within(0.0, 1.0, std::numeric_limits<double>::infinity()));
}

TEST_CASE("the exact-input check catches an error the bound hides") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7, p.abs_sum = 1e9;  // a huge bound on random inputs
  // Drops one unit of the exact answer: within the random bound, not equal on exact inputs.
  const auto rows = run(p, {candidate("drops", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer() - 1; })});
  CHECK(rows[0].status == RowStatus::fail);
  CHECK(rows[0].check.pass);
  CHECK_FALSE(rows[0].exact_check.pass);
  CHECK(rows[0].note.rfind("exact inputs:", 0) == 0);
}

TEST_CASE("a handwritten row with no library output to cross-check says so") {
  FakeProblem p;
  p.truth = 1, p.exact_truth = 2;
  const auto rows = run(p, {candidate("alone", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); }),
                            candidate("broken_lib", Source::library, [&](void*, cudaStream_t) {})});
  CHECK(rows[0].status == RowStatus::ok);
  CHECK_FALSE(rows[0].had_library_output);
  CHECK(rows[0].note.find("no library output") != std::string::npos);
  CHECK(rows[1].status == RowStatus::fail);  // never writes: poison
}

TEST_CASE("an exception in one variant is its row's error; the others still run") {
  FakeProblem p;
  p.truth = 1, p.exact_truth = 2;
  const auto rows = run(p, {candidate("throws", Source::handwritten, [](void*, cudaStream_t) { throw std::runtime_error("boom"); }),
                            candidate("good", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); })});
  CHECK(rows[0].status == RowStatus::error);
  CHECK(rows[0].note == "boom");
  CHECK(rows[1].status == RowStatus::ok);
}

TEST_CASE("a slow path on this GPU: said in the row's note and flagged on the row, pass or fail") {
  FakeProblem p;
  p.truth = 1, p.exact_truth = 2;
  Candidate slow = candidate("slow", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); });
  slow.remark = "slow here: a test";
  Candidate wrong = candidate("slow_wrong", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer() + 1; });
  wrong.remark = "slow here: a test";
  const auto rows = run(p, {slow, wrong, candidate("lib", Source::library, [&](void*, cudaStream_t) { p.out = p.answer(); })});
  CHECK(rows[0].status == RowStatus::ok);
  CHECK(rows[0].note == "slow here: a test");
  CHECK(rows[0].slow_path);
  CHECK(rows[1].status == RowStatus::fail);
  CHECK(rows[1].note.find("; slow here: a test") != std::string::npos);
  CHECK(rows[1].slow_path);
  CHECK_FALSE(rows[2].slow_path);
}

TEST_CASE("a workspace that cannot be allocated makes error rows; rows already decided keep theirs") {
  struct NoMemory final : FakeTimer {
    std::shared_ptr<void> allocate(std::size_t) override { throw std::runtime_error("out of memory"); }
  } timer;
  FakeProblem p;
  Candidate needs = candidate("needs_workspace", Source::handwritten, [](void*, cudaStream_t) {});
  needs.workspace_bytes = 64;
  Candidate cannot = candidate("unsupported", Source::handwritten, [](void*, cudaStream_t) {});
  cannot.unsupported = "not for this size";
  std::vector<Candidate> cands{needs, cannot};
  RunOptions opt;
  DeviceInfo dev;
  RunContext ctx{opt, dev, 3000, timer};
  const auto rows = execute(Row{}, p, cands, ctx, 1);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].status == RowStatus::error);
  CHECK(rows[0].note == "could not allocate the workspace: out of memory");
  CHECK(rows[1].status == RowStatus::skipped);
  CHECK(rows[1].note == "not for this size");
}

TEST_CASE("variant names are unique in every family and type, and a duplicate is refused") {
  for (const Family* f : all_families())
    for (DType t : f->dtypes()) {
      std::set<std::string> seen;
      for (const auto& v : f->variants(t, nullptr)) {
        INFO(f->name() << " " << dtype_name(t) << " " << v.name);
        CHECK(seen.insert(v.name).second);
      }
    }
  CHECK_NOTHROW(refuse_duplicate_names("gemm", "float", {"a", "b", "c"}));
  try {
    refuse_duplicate_names("gemm", "float", {"gemm9_x", "cublas_gemm", "gemm9_x"});
    FAIL("a duplicate name was accepted");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()).find("'gemm9_x'") != std::string::npos);
  }
}

TEST_CASE("configuration names are built from their parameters") {
  const auto names = [](const char* family, DType t) {
    std::set<std::string> out;
    for (const auto& v : find_family(family)->variants(t, nullptr)) out.insert(v.name);
    return out;
  };
  const auto f = names("gemm", DType::f32), d = names("gemm", DType::f64);
  CHECK(f.count("gemm9_pipelined_128x128x16_w64x32_t8x8_s3"));
  CHECK(f.count("gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4"));
  CHECK(f.count("gemm10_swizzled_128x128x16_w64x32_t8x8_s3_colwise"));
  CHECK(d.count("gemm11_dmma_128x128x16_w64x32_s4_k8"));
  CHECK(names("transpose", DType::f32).count("transpose6_wide_tile_64x4"));
  CHECK(names("transpose", DType::f64).count("transpose7_vec_tile_16B_r16"));
  CHECK(names("gevm", DType::f32).count("gevm5_fitted_tiles_u4_cs"));
}

TEST_CASE("a variant that skips its work when its output looks done fails") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  // Works only when the output holds NaN: the runs poisoned with the finite pattern find a value
  // there and keep it.
  const auto rows = run(p, {candidate("lazy", Source::handwritten, [&](void*, cudaStream_t) {
                              if (std::isnan(p.out)) p.out = p.answer();
                            })});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == RowStatus::fail);
}

TEST_CASE("a result cached by its buffers fails on fresh buffers") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  // Computes once per set of buffers and input kind, then only "replays" by writing what it
  // remembered: right while the buffers hold the same inputs, wrong on fresh ones.
  double cached = 0;
  int cached_generation = -1;
  InputKind cached_kind = InputKind::exact;
  const auto rows = run(p, {candidate("cached", Source::handwritten, [&](void*, cudaStream_t) {
                              if (cached_generation != p.generation || cached_kind != p.kind) {
                                cached = p.answer();
                                cached_generation = p.generation, cached_kind = p.kind;
                                if (p.generation > 0) p.truth += 1;  // fresh inputs have another answer
                              }
                              p.out = cached == p.answer() ? cached : cached - 1;
                            })});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == RowStatus::fail);
  CHECK(rows[0].note.find("fresh inputs in fresh buffers") != std::string::npos);
}

TEST_CASE("a rate the GPU cannot reach fails its row instead of being reported as a speed-up") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  p.bytes = 1e12;  // 1 TB in the fake's 1 ms: 1e6 GB/s against a 3000 GB/s copy
  const auto rows = run(p, {candidate("too_fast", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); }),
                            candidate("lib", Source::library, [&](void*, cudaStream_t) { p.out = p.answer(); })});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].status == RowStatus::fail);
  CHECK(rows[0].note.find("faster than this GPU can move the bytes") != std::string::npos);
  CHECK(rows[1].status == RowStatus::ok);  // the library is the yardstick: reported, never judged
  p.bytes = 3e9 * 1e-3;  // exactly the copy's rate: possible
  const auto ok = run(p, {candidate("fast", Source::handwritten, [&](void*, cudaStream_t) { p.out = p.answer(); })});
  CHECK(ok[0].status == RowStatus::ok);
}

TEST_CASE("a profiler's run launches each variant once: no exact run, no recheck") {
  FakeProblem p;
  p.truth = 12.5, p.exact_truth = 7;
  int launches = 0;
  const auto counted = [&] {
    return std::vector<Candidate>{candidate("counted", Source::handwritten, [&](void*, cudaStream_t) {
      ++launches;
      p.out = p.answer();
    })};
  };
  // What scripts/profile.py asks for (--validate-only --no-exact-check --no-recheck): ncu then
  // sees one launch, so its time column is one launch's.
  RunOptions opt;
  opt.time_variants = false, opt.exact_check = false, opt.recheck = false;
  auto rows = run_with(p, counted(), opt);
  CHECK(rows[0].status == RowStatus::ok);
  CHECK(launches == 1);
  // Without --no-recheck the fresh-buffer recheck launches it again; with the exact run, a third time.
  launches = 0, opt.recheck = true;
  rows = run_with(p, counted(), opt);
  CHECK(launches == 2);
  launches = 0, opt.exact_check = true;
  rows = run_with(p, counted(), opt);
  CHECK(rows[0].exact_check.pass);
  CHECK(launches == 3);
}

TEST_CASE("which listed variants a run takes: the named hand-written ones, the baselines unless profiling") {
  RunOptions opt;
  CHECK(runs_under("reduce3_sequential_addressing", Source::handwritten, opt));
  CHECK(runs_under("cub_reduce", Source::library, opt));
  opt.variant_patterns = {"reduce[5-8]*"};
  CHECK(runs_under("reduce6_unroll", Source::handwritten, opt));
  CHECK_FALSE(runs_under("reduce3_sequential_addressing", Source::handwritten, opt));
  CHECK(runs_under("cub_reduce", Source::library, opt));  // the yardstick of every comparison
  opt.skip_library = true;  // profiling: only what the patterns name
  CHECK_FALSE(runs_under("cub_reduce", Source::library, opt));
  opt.variant_patterns = {"reduce6*", "cub*"};
  CHECK(runs_under("cub_reduce", Source::library, opt));
  opt.variant_patterns.clear();  // profiling with no pattern: every hand-written one, no baseline
  CHECK(runs_under("reduce6_unroll", Source::handwritten, opt));
  CHECK_FALSE(runs_under("cub_reduce", Source::library, opt));
}
