#include "compare/core/execute.hpp"

#include "common/cuda_check.hpp"
#include "compare/core/remote_launch.hpp"
#include "compare/core/timing.hpp"
#include "compare/core/watchdog.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <fnmatch.h>

namespace kl {

bool matches_any(const std::string& name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns)
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// Wall seconds per phase of execute() over the whole process (KL_PHASE_TIMES=1 prints them at
// exit): where a run's time goes beyond the timed samples themselves.
struct PhaseClock {
  std::map<std::string, double> seconds;
  ~PhaseClock() {
    const char* e = std::getenv("KL_PHASE_TIMES");
    if (!e || std::string(e) != "1") return;
    for (const auto& [k, v] : seconds) std::fprintf(stderr, "phase %-10s %8.2f s\n", k.c_str(), v);
  }
};
PhaseClock& phase_clock() {
  static PhaseClock c;
  return c;
}
struct PhaseTimer {
  const char* name;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  explicit PhaseTimer(const char* n) : name(n) {}
  ~PhaseTimer() {
    phase_clock().seconds[name] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

namespace {

// An NVTX range around each run of a variant, named "family/type/shape/variant/phase", so a
// profiler (Nsight Compute --nvtx, Nsight Systems) can tell the kernels of one variant from
// another's (scripts/profile.py selects by it).
struct NvtxRange {
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

std::string range_name(const Row& r, const char* phase) {
  return r.family + "/" + r.dtype + "/" + r.shape + "/" + r.variant + "/" + phase;
}

// How far above its ceiling a measured rate may lie before the row is judged impossible rather
// than fast (README, "Method"). Bandwidth: the copy ceiling is measured in the same run on 1 GiB
// buffers (read + write); a read-mostly kernel beats it by a few percent (reductions, row sums
// and a 2048^2 transpose on an H100: docs/method.md, "What the harness checks, and what it cannot
// see"), so 1.25x is far outside what any real kernel showed. A problem whose bytes fit in L2
// (its writes can stay there within the timed window, its re-reads hit) may go to 3x. Compute:
// the peak is clocks x lanes at the boost clock, already an upper bound, so 5% covers the timer
// alone.
constexpr double kBandwidthMargin = 1.25, kBandwidthMarginInL2 = 3.0, kComputeMargin = 1.05;

// A submission's timed phase (README, "Method"): at least kRemoteMinSamples samples, kSnapshots of
// them chosen before it ran validated, and samples kFreshFrom..kFreshTo holding the states it has
// not seen. A median more than kRepeatRatio (plus kRepeatSlackMs) slower on new inputs than on
// repeated ones is a kept result; a reported median under kClockShare of the GPU clock's span
// (less the marks' own cost, measured by this process, and kClockSlackMs) is a time it did not
// spend. kPrecisionFactor:
// how many times the library's error on the same random inputs a submission may reach.
constexpr std::size_t kRemoteMinSamples = 40, kSnapshots = 3, kFreshFrom = 16, kFreshTo = 40;
constexpr double kRepeatRatio = 1.25, kRepeatSlackMs = 0.002, kClockShare = 0.8, kClockSlackMs = 0.008;
constexpr double kPrecisionFactor = 64;

struct Pipeline {
  Problem& problem;
  std::vector<Candidate>& cands;
  RunContext& ctx;
  std::vector<Row>& rows;
  std::vector<bool> pending = {};   // still to run (not skipped, not failed with an error)
  std::vector<bool> prepared = {};
  std::vector<bool> timed_ok = {};  // has a timing to finish (its validations decide its status)
  std::vector<std::size_t> order = {};  // library baselines first
  std::shared_ptr<void> workspace = {};  // guard, ws_bytes, guard (problem.hpp: kGuardBytes)
  std::size_t ws_bytes = 0;
  std::ptrdiff_t library = -1;  // the candidate whose output is kept for cross-checks
  int pattern = 0;              // the poison of the next run (alternates: Problem::poison)

  void* ws() const { return workspace ? static_cast<unsigned char*>(workspace.get()) + kGuardBytes : nullptr; }

  // The problem's inputs, output and workspace: what a submission's arguments may point into.
  std::vector<Problem::Region> buffers() const {
    std::vector<Problem::Region> b = problem.input_regions();
    b.push_back(problem.output_region());
    if (ws()) b.push_back({ws(), ws_bytes});
    return b;
  }

  std::string label(const Row& r, const char* phase) const {
    return r.family + " " + r.dtype + " " + r.shape + ": " + r.variant + " (" + phase + ")";
  }

  // Runs `body` for row i; an exception becomes the row's error, and a dead context stops the
  // problem (ctx.fatal).
  template <class Body>
  void guarded(std::size_t i, Body&& body) {
    Row& r = rows[i];
    try {
      body();
    } catch (const StreamContractError& e) {
      // Not a CUDA error of the kernel's own: the launch broke the contract. A failure, named.
      r.status = RowStatus::fail;
      r.check.ran = true;
      r.check.pass = false;
      r.check.detail = e.what();
      r.note = e.what();
      r.has_timing = false;
      pending[i] = false;
      if (ctx.timer.context_is_dead()) ctx.fatal = r.variant + " left the CUDA context unusable: " + e.what();
    } catch (const std::exception& e) {
      r.status = RowStatus::error;
      r.note = e.what();
      r.has_timing = false;
      pending[i] = false;
      if (ctx.timer.context_is_dead()) ctx.fatal = r.variant + " left the CUDA context unusable: " + e.what();
    }
  }

  bool stop() const { return !ctx.fatal.empty() || g_interrupted.load(); }

  // Marks every row still pending (`status`: skipped, or error where the runner itself failed
  // them), saying why; `never_started`: the run stopped before them (Row::not_run).
  void abandon(const std::string& why, RowStatus status = RowStatus::skipped, bool never_started = false) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (pending[i]) {
        rows[i].status = status;
        rows[i].note = why;
        rows[i].has_timing = false;
        rows[i].not_run = never_started;
        pending[i] = false;
      }
  }

  void poison_all(cudaStream_t s, int pat) {
    problem.poison(s, pat);
    ctx.timer.poison(ws(), ws_bytes, pat);
  }

  // What the last finished run wrote around its output or workspace, or to its inputs and their
  // guards ("" if nothing); everything it changed there is restored.
  std::string guard_damage() {
    std::string why = problem.guard_damage();
    if (ws_bytes) {
      auto add = [&](const std::string& w) { why += (why.empty() ? "" : "; ") + w; };
      const auto [before, after] = workspace_guard_changed();
      if (after)
        add("wrote past the end of its workspace: " + std::to_string(after) + " of the " + std::to_string(kGuardBytes) +
            " guard bytes after it changed");
      if (before)
        add("wrote before the start of its workspace: " + std::to_string(before) + " of the " +
            std::to_string(kGuardBytes) + " guard bytes before it changed");
    }
    const std::string inputs = problem.input_damage();
    if (!inputs.empty()) why += (why.empty() ? "" : "; ") + inputs;
    return why;
  }
  std::pair<std::size_t, std::size_t> workspace_guard_changed() {
    unsigned char* base = static_cast<unsigned char*>(workspace.get());
    const std::size_t before = ctx.timer.bytes_changed(base, kGuardBytes, kGuardByte);
    const std::size_t after = ctx.timer.bytes_changed(base + kGuardBytes + ws_bytes, kGuardBytes, kGuardByte);
    if (before || after) arm_workspace_guard();
    return {before, after};
  }
  void arm_workspace_guard() {
    if (!workspace) return;
    unsigned char* base = static_cast<unsigned char*>(workspace.get());
    ctx.timer.fill_bytes(base, kGuardBytes, kGuardByte);
    ctx.timer.fill_bytes(base + kGuardBytes + ws_bytes, kGuardBytes, kGuardByte);
  }

  // How long one phase of candidate i may take before it is judged never to end (README,
  // "Method"): a floor of seconds, or many times the library's own time where it is known, plus
  // the sampling budget for a timed phase.
  double phase_limit(bool timed) const {
    double lib_s = 0;
    if (library >= 0 && rows[static_cast<std::size_t>(library)].has_timing)
      lib_s = rows[static_cast<std::size_t>(library)].time_ms.median * 1e-3;
    double limit = std::max(ctx.opt.phase_timeout, 200.0 * lib_s);
    if (timed) limit += ctx.opt.stop.max_seconds + (ctx.opt.warmup + 1) * 200.0 * lib_s;
    return limit;
  }

  // Candidate i's prepare hook, then its tune hook (Variant::tune) on whatever inputs are loaded:
  // once per problem, outside any timed region.
  void prepare_and_tune(std::size_t i) {
    Candidate& c = cands[i];
    if (c.prepare) c.prepare();
    if (c.tune) {
      WatchdogScope watch(label(rows[i], "tune"), phase_limit(true));
      poison_all(ctx.timer.stream(), 0);
      c.tune(ws(), ctx.timer.stream());
      ctx.timer.synchronize();
    }
    prepared[i] = true;
  }

  // Before any validation, where a candidate has a tune hook: the random inputs the timing will
  // use (same seed, no reference yet), and each such candidate prepared and tuned on them. A
  // variant that picks its kernel by measuring it then picks it on the data it is timed on (the
  // exact inputs' small integers draw less power, and measured on them the H100 ranked DMMA tiles
  // in another order), and the kernel every check validates is the one that is timed.
  void tune_phase(std::uint64_t seed) {
    bool any = false;
    for (std::size_t i : order) any |= pending[i] && static_cast<bool>(cands[i].tune);
    if (!any) return;
    PhaseTimer pt("tune");
    try {
      problem.load_inputs_only(InputKind::random, seed);
    } catch (const std::exception&) {
      return;  // the phases' own loads report it; run_once tunes on their inputs then
    }
    for (std::size_t i : order) {
      if (!pending[i] || !cands[i].tune || prepared[i]) continue;
      if (stop()) break;
      guarded(i, [&] {
        ctx.say(label(rows[i], "tune"));
        prepare_and_tune(i);
      });
    }
  }

  // Poisons outputs and workspace, runs candidate i once, waits for it. `captured`: through the
  // stream check (Timer::run_captured), where the candidate asks for it.
  void run_once(std::size_t i, const char* phase, bool captured = false) {
    Candidate& c = cands[i];
    NvtxRange range(range_name(rows[i], phase));
    if (!prepared[i]) prepare_and_tune(i);
    const int pat = pattern++ & 1;
    const double limit = phase_limit(false);
    if (c.remote) {
      // Its sandbox captures the launch and replays the graph: always through the stream check.
      poison_all(ctx.timer.stream(), pat);
      ctx.timer.synchronize();
      c.remote->run(ws(), buffers(), limit);
      return;
    }
    WatchdogScope watch(label(rows[i], phase), limit);
    if (captured && c.check_stream) {
      ctx.timer.run_captured([&](cudaStream_t s) { c.launch(ws(), s); }, [&] { poison_all(ctx.timer.stream(), pat); });
      return;
    }
    poison_all(ctx.timer.stream(), pat);
    c.launch(ws(), ctx.timer.stream());
    ctx.timer.synchronize();
  }

  // The checks after a validation run of candidate i: the output against the reference, then the
  // guard bands; `phase` prefixes a failure's detail.
  Check validated(std::size_t i, const std::string& phase = {}) {
    Check c = problem.validate(cands[i]);
    const std::string damage = guard_damage();
    if (!damage.empty()) {
      c.pass = false;
      c.detail = damage + (c.detail.empty() ? "" : "; " + c.detail);
    }
    if (!c.pass && !phase.empty()) c.detail = phase + ": " + c.detail;
    return c;
  }

  // Loads an input set; a failure (the reference, an upload) fails every pending row.
  bool load(InputKind kind, std::uint64_t seed, bool fresh = false) {
    PhaseTimer pt(fresh ? "load_fresh" : kind == InputKind::exact ? "load_exact" : "load_random");
    library = -1;
    try {
      if (fresh) problem.load_fresh(seed);
      else problem.load_inputs(kind, seed);
      return true;
    } catch (const std::exception& e) {
      const std::string why = std::string("could not build the problem's ") +
                              (fresh ? "fresh" : kind == InputKind::exact ? "exact" : "random") +
                              " inputs or reference: " + e.what();
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (pending[i] || timed_ok[i]) rows[i].status = RowStatus::error, rows[i].note = why, pending[i] = false, timed_ok[i] = false;
      if (ctx.timer.context_is_dead()) ctx.fatal = why;
      return false;
    }
  }

  void keep_or_cross_check(std::size_t i, Check& into, bool& had) {
    const Candidate& c = cands[i];
    const bool exact_ok = !rows[i].exact_check.ran || rows[i].exact_check.pass;
    if (c.info.source == Source::library && library < 0 && rows[i].check.pass && exact_ok) {
      problem.keep_as_library(c);
      library = static_cast<std::ptrdiff_t>(i);
    } else if (problem.has_library_output() && library != static_cast<std::ptrdiff_t>(i)) {
      into = problem.cross_check(c);
      had = true;
    }
  }

  void exact_phase(std::uint64_t seed) {
    if (!load(InputKind::exact, exact_seed(seed))) return;
    PhaseTimer pt("exact");
    for (std::size_t i : order) {
      if (!pending[i]) continue;
      if (stop()) break;
      Row& r = rows[i];
      guarded(i, [&] {
        ctx.say(label(r, "exact check"));
        run_once(i, "exact", true);
        r.exact_check = validated(i);
        explain_stream_escape(i, r.exact_check);
        if (cands[i].info.source == Source::library && library < 0 && r.exact_check.pass) {
          problem.keep_as_library(cands[i]);
          library = static_cast<std::ptrdiff_t>(i);
        }
      });
    }
  }

  // When the captured run fails but a plain run passes, the work is not all on its stream.
  void explain_stream_escape(std::size_t i, Check& check) {
    if (check.pass || !cands[i].check_stream || cands[i].remote) return;
    run_once(i, "validate (plain run)");
    KL_CUDA_CHECK(cudaDeviceSynchronize());  // whatever it started on other streams, finished
    const Check plain = validated(i);
    if (plain.pass)
      check.detail = "its work does not all go on the stream it is given: a replay of what the launch enqueued on "
                     "that stream leaves the output wrong (" + check.detail + "), a plain run does not (work on another "
                     "stream, or a copy from host memory that no longer holds its value when the work is replayed)";
  }

  void random_phase(std::uint64_t seed) {
    if (!load(InputKind::random, seed)) return;
    for (std::size_t i : order) {
      if (!pending[i]) continue;
      if (stop()) break;
      Row& r = rows[i];
      Candidate& c = cands[i];
      guarded(i, [&] {
        {
          PhaseTimer pt("validate");
          ctx.say(label(r, "validate"));
          run_once(i, "validate", true);
          r.check = validated(i);
          explain_stream_escape(i, r.check);
          keep_or_cross_check(i, r.library_check, r.had_library_output);
          if (c.remote && r.check.pass) judge_precision(r.check);
        }
        if (!ctx.opt.time_variants || g_interrupted.load()) return;
        // A submission that already failed is not timed: its time would say nothing, and a slow
        // wrong kernel would spend the sampling budget of a whole folder.
        if (c.remote && (!r.check.pass || (r.exact_check.ran && !r.exact_check.pass))) return;
        ctx.say(label(r, "time"));
        auto op = [&](cudaStream_t st) {
          if (ctx.opt.end_to_end) problem.copy_inputs_to_device(st);
          c.launch(ws(), st);
          if (ctx.opt.end_to_end) problem.copy_outputs_to_host(st);
        };
        // Every timed run starts from poisoned outputs and workspace (outside the timed window),
        // so no run can find the previous one's answer in place; the last one's output is checked.
        auto before = [&](cudaStream_t st, int run) { poison_all(st, run & 1); };
        Timing tm;
        if (c.remote) {
          PhaseTimer pt("time");
          tm = remote_timing(i);
        } else {
          PhaseTimer pt("time");
          NvtxRange range(range_name(r, "time"));
          WatchdogScope watch(label(r, "time"), phase_limit(true));
          tm = ctx.timer.measure(op, ctx.opt.stop, ctx.opt.warmup, before);
        }
        ctx.timer.synchronize();
        if (c.ops_per_launch > 1) {
          for (double& x : tm.samples_ms) x /= c.ops_per_launch;
          tm.stats = summarize(tm.samples_ms);
        }
        r.has_timing = true;
        r.time_ms = tm.stats;
        r.samples_ms = tm.samples_ms;
        r.converged = tm.converged;
        // Library baselines are the yardstick, timed as a user sees them: their last run is not
        // re-validated (each was validated before timing and is re-checked below).
        if (c.info.source == Source::handwritten) {
          PhaseTimer pt("last_run");
          const Check last = validated(i, "wrong in its last timed run");
          if (r.check.pass && !last.pass) r.check = last;
        }
      });
      if (pending[i]) {
        pending[i] = false;
        timed_ok[i] = true;
      }
    }
  }

  // After timing: fresh random inputs (a new seed) in freshly allocated buffers, every variant
  // once more from poisoned outputs, against the reference and the library. A result cached by
  // pointer, or kept in state an earlier run left, fails here.
  void fresh_phase(std::uint64_t seed) {
    bool any = false;
    for (std::size_t i : order) any |= timed_ok[i] && cands[i].info.source == Source::handwritten;
    if (!any || stop()) return;
    if (!load(InputKind::random, fresh_seed_of(seed), true)) return;
    PhaseTimer pt("recheck");
    for (std::size_t i : order) {
      if (!timed_ok[i]) continue;
      if (stop()) break;
      Row& r = rows[i];
      guarded(i, [&] {
        ctx.say(label(r, "recheck"));
        run_once(i, "recheck");
        const Check again = validated(i, "wrong on fresh inputs in fresh buffers");
        if (r.check.pass && !again.pass) r.check = again;
        Check lib_again;
        bool had = false;
        keep_or_cross_check(i, lib_again, had);
        if (had && r.library_check.pass && !lib_again.pass) {
          r.library_check = lib_again;
          r.library_check.detail = "on fresh inputs in fresh buffers: " + lib_again.detail;
        }
      });
      if (rows[i].status == RowStatus::error || rows[i].status == RowStatus::fail) timed_ok[i] = false;
    }
  }

  // ---- a submission's variant (its code in its sandbox: compare/sandbox/) ----

  // On the same random inputs, an error many times the library's is not the family's product in
  // the family's type: TF32 or bf16 operands in a float product sit orders of magnitude above
  // cuBLAS's pure FP32 (docs/method.md), an honest reordering, split-K included, within a few
  // times it. The floor of half a unit roundoff keeps a library that happens to be exact from
  // making the bar zero.
  void judge_precision(Check& check) {
    const double got = problem.error_rms(), lib = problem.library_error_rms(), u = problem.unit_roundoff_of_type();
    if (!(got >= 0) || !(lib >= 0) || !(u > 0)) return;
    const double bar = kPrecisionFactor * std::max(lib, 0.5 * u);
    if (got <= bar) return;
    char b[400];
    std::snprintf(b, sizeof b,
                  "its error on random inputs is %.3g (rms, as a share of the terms' magnitude), %.0f times the "
                  "library's %.3g on the same inputs (more than %.0fx: a lower precision than the type's, such as "
                  "TF32 or bf16 operands, is not the same computation)",
                  got, got / std::max(lib, 0.5 * u), lib, kPrecisionFactor);
    check.pass = false;
    check.detail = b;
  }

  // How the sandbox may change a problem's inputs between timed samples with a result known
  // exactly: scale input 0 by a signed power of two, which scales the output by that factor to
  // the `degree` (a product of two inputs scales linearly in one of them; A·Aᵀ and a sum of
  // squares quadratically). A maximum or minimum keeps its meaning only for positive factors;
  // integers take the sign alone (their sums wrap modulo 2^32, where only negation is exact).
  struct ScaleRule {
    bool any = false;
    int degree = 1;
    bool sign = true;
  };
  ScaleRule scale_rule() const {
    const Row& r = rows.front();
    ScaleRule s;
    if (r.family == "table" || problem.input_regions().empty()) return s;
    s.any = true;
    if (r.family == "aat") s.degree = 2;
    for (const auto& [name, value] : r.axes)
      if (name == "op") {
        if (value == "row_sumsq") s.degree = 2;
        if (value == "row_max" || value == "row_min") s.sign = false;
      }
    return s;
  }

  // The factors the inputs are scaled by for each sample, and which samples are "new": the states
  // are drawn from a main pool, and from sample kFreshFrom on a few samples take states never used
  // before, so a kernel that keeps results between launches is fast on the pool's repeats and
  // slow on those (a difference no honest kernel shows, since every sample starts from a cold L2).
  struct SamplePlan {
    std::vector<double> factors;
    std::vector<bool> fresh;
  };
  SamplePlan sample_plan(const ScaleRule& rule, bool is_int, std::size_t count, std::mt19937_64& g) const {
    std::vector<double> states;
    if (rule.any) {
      const int lo = is_int ? 0 : -3, hi = is_int ? 0 : 3;
      for (int e = lo; e <= hi; ++e) {
        states.push_back(std::ldexp(1.0, e));
        if (rule.sign) states.push_back(-std::ldexp(1.0, e));
      }
      std::shuffle(states.begin() + 1, states.end(), g);  // states[0] = 1: the loaded inputs
    } else {
      states.push_back(1.0);
    }
    const std::size_t pool = std::max<std::size_t>(1, (states.size() + 1) / 2);
    std::vector<double> reserve(states.begin() + static_cast<std::ptrdiff_t>(pool), states.end());
    SamplePlan p;
    p.factors.resize(count);
    p.fresh.assign(count, false);
    std::vector<std::size_t> slots;
    for (std::size_t j = kFreshFrom; j < std::min(count, kFreshTo); ++j) slots.push_back(j);
    std::shuffle(slots.begin(), slots.end(), g);
    slots.resize(std::min(slots.size(), reserve.size()));
    std::uniform_int_distribution<std::size_t> pick(0, pool - 1);
    for (std::size_t j = 0; j < count; ++j) p.factors[j] = states[pick(g)];
    for (std::size_t k = 0; k < slots.size(); ++k) {
      p.factors[slots[k]] = reserve[k];
      p.fresh[slots[k]] = true;
    }
    return p;
  }

  // Times candidate i in its sandbox, then checks what it reported: against the wall clock of
  // the phase and the GPU's own timer, for a speed-up on inputs it has seen before, and the
  // outputs of samples chosen before it ran (and of the last one, left in the output for the
  // caller's last-run check), each brought back to the loaded inputs' scale and validated.
  Timing remote_timing(std::size_t i) {
    Row& r = rows[i];
    Candidate& c = cands[i];
    const ScaleRule rule = scale_rule();
    const Problem::Region out = problem.output_region();
    const bool is_int = problem.unit_roundoff_of_type() == 0;
    const std::size_t elem = r.dtype == "double" ? 8 : 4;
    RemoteTimeRequest rq;
    rq.warmup = ctx.opt.warmup;
    rq.rule = ctx.opt.stop;
    rq.rule.min_samples = std::max<std::size_t>(rq.rule.min_samples, kRemoteMinSamples);
    rq.rule.max_samples = std::max(rq.rule.max_samples, rq.rule.min_samples);
    std::mt19937_64 g(std::random_device{}());
    const SamplePlan plan = sample_plan(rule, is_int, rq.rule.max_samples, g);
    rq.factors = plan.factors;
    if (rule.any) rq.scale = {problem.input_regions().front()};
    rq.elem_bytes = static_cast<int>(elem);
    rq.is_int = is_int;
    // Chosen among the first kFreshFrom samples: a slow kernel's timed phase may stop on the wall
    // cap long before kRemoteMinSamples.
    std::vector<std::size_t> picks;
    for (std::size_t j = 0; j < kFreshFrom; ++j) picks.push_back(j);
    std::shuffle(picks.begin(), picks.end(), g);
    rq.snap_at.assign(picks.begin(), picks.begin() + kSnapshots);
    std::vector<DeviceArray<unsigned char>> snaps;
    for (std::size_t k = 0; k <= kSnapshots; ++k) {
      snaps.emplace_back(std::max<std::size_t>(out.bytes, 1));
      rq.snaps.push_back({snaps.back().get(), out.bytes});
    }
    DeviceArray<unsigned long long> clock(2 * rq.rule.max_samples);
    KL_CUDA_CHECK(cudaMemset(clock.get(), 0, 2 * rq.rule.max_samples * sizeof(unsigned long long)));
    rq.output = out;
    rq.clock = {clock.get(), 2 * rq.rule.max_samples * sizeof(unsigned long long)};
    rq.poison = {out, {ws(), ws_bytes}};
    rq.buffers = buffers();
    rq.limit_seconds = phase_limit(true);
    ctx.timer.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    const RemoteTimeResult res = c.remote->time(ws(), rq);
    const double wall_ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;

    Timing tm;
    tm.samples_ms = res.samples_ms;
    tm.converged = res.converged;
    if (tm.samples_ms.empty()) throw std::runtime_error("its sandbox reported no timed sample");
    tm.stats = summarize(tm.samples_ms);
    const std::size_t n = tm.samples_ms.size();
    std::string wrong = timing_disagrees(tm, wall_ms, clock, n, ctx.timer.mark_overhead_ms());
    if (wrong.empty()) wrong = faster_on_repeats(tm.samples_ms, plan.fresh);
    if (wrong.empty()) wrong = snapshots_wrong(i, res, rq, snaps, rule);
    if (!wrong.empty() && r.check.pass) {
      r.check.pass = false;
      r.check.detail = wrong;
    }
    return tm;
  }

  // The reported samples against clocks this process reads: the phase's wall time (the samples
  // cannot add up to more), and the GPU's global timer written around each sample into this
  // process's buffer (the reported median cannot be far below the span it saw).
  static std::string timing_disagrees(const Timing& tm, double wall_ms, const DeviceArray<unsigned long long>& clock,
                                      std::size_t n, double mark_overhead_ms) {
    double sum = 0;
    for (double x : tm.samples_ms) sum += x;
    char b[300];
    if (sum > wall_ms * 1.01 + 1.0) {
      std::snprintf(b, sizeof b, "its sandbox reported %.3f ms of samples in a phase that took %.3f ms of wall time", sum,
                    wall_ms);
      return b;
    }
    std::vector<unsigned long long> c(2 * n);
    KL_CUDA_CHECK(cudaMemcpy(c.data(), clock.get(), c.size() * sizeof c[0], cudaMemcpyDeviceToHost));
    std::vector<double> spans;
    for (std::size_t j = 0; j < n; ++j)
      if (c[2 * j] && c[2 * j + 1] >= c[2 * j]) spans.push_back(static_cast<double>(c[2 * j + 1] - c[2 * j]) * 1e-6);
    if (spans.size() < n / 2 + 1) return "its sandbox did not record the GPU clock around its samples";
    // The marks' own launches are in the span too: what they cost around an empty graph, measured
    // by this process, comes off before the span is held against the reported time.
    const double span = summarize(spans).median, spent = span - mark_overhead_ms;
    if (tm.stats.median < kClockShare * spent - kClockSlackMs) {
      std::snprintf(b, sizeof b,
                    "its sandbox reported a median of %.4f ms per sample while the GPU's clock saw %.4f ms between the "
                    "marks around each sample (%.4f ms of them the marks' own)",
                    tm.stats.median, span, mark_overhead_ms);
      return b;
    }
    return {};
  }

  // A kernel that keeps results between launches is fast where the inputs repeat an earlier
  // sample's and slow on inputs it has not seen.
  static std::string faster_on_repeats(const std::vector<double>& samples, const std::vector<bool>& fresh) {
    std::vector<double> seen, unseen;
    for (std::size_t j = kFreshFrom; j < samples.size(); ++j) (fresh[j] ? unseen : seen).push_back(samples[j]);
    if (unseen.size() < 3 || seen.size() < 8) return {};
    const double a = summarize(seen).median, b = summarize(unseen).median;
    if (b <= kRepeatRatio * a + kRepeatSlackMs) return {};
    char m[300];
    std::snprintf(m, sizeof m,
                  "ran faster on inputs it had already seen (median %.4f ms) than on inputs new to it (%.4f ms): it "
                  "keeps results between launches",
                  a, b);
    return m;
  }

  // The outputs of the chosen samples, each scaled back and validated; the last sample's is left
  // in the output, scaled back, for the last-run check that follows.
  std::string snapshots_wrong(std::size_t i, const RemoteTimeResult& res, const RemoteTimeRequest& rq,
                              const std::vector<DeviceArray<unsigned char>>& snaps, const ScaleRule& rule) {
    const Problem::Region out = problem.output_region();
    auto restore = [&](std::size_t k) {
      const long long j = res.held.at(k);
      KL_CUDA_CHECK(cudaMemcpy(out.ptr, snaps[k].get(), out.bytes, cudaMemcpyDeviceToDevice));
      const double f = rq.factors.at(static_cast<std::size_t>(j));
      if (f != 1.0) problem.scale_output(1.0 / std::pow(f, rule.degree));
      return j;
    };
    for (std::size_t k = 0; k + 1 < snaps.size() && k < res.held.size(); ++k) {
      if (res.held[k] < 0) continue;
      const long long j = restore(k);
      const Check c = problem.validate(cands[i]);
      if (!c.pass) {
        char b[160];
        std::snprintf(b, sizeof b, "wrong in timed sample %lld (its inputs scaled by %g): ", j,
                      rq.factors.at(static_cast<std::size_t>(j)));
        return b + c.detail;
      }
    }
    if (res.held.empty() || res.held.back() < 0) return "its sandbox kept no output of its last timed sample";
    restore(snaps.size() - 1);
    return {};
  }

  static std::uint64_t fresh_seed_of(std::uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15ull; }

  // A rate beyond what this GPU can do is not a speed-up: "" when the rate is possible.
  std::string impossible_rate(const Row& r) const {
    if (r.source != Source::handwritten || !r.has_timing || r.throughput <= 0) return {};
    const Metric& m = r.metric;
    if (m.unit == "GB/s") {
      const double copy = ctx.copy_gbps;
      if (!(copy > 0)) return {};
      const double margin = m.work <= static_cast<double>(ctx.dev.l2_bytes) ? kBandwidthMarginInL2 : kBandwidthMargin;
      if (r.throughput <= margin * copy) return {};
      char b[240];
      std::snprintf(b, sizeof b,
                    "faster than this GPU can move the bytes: %.0f GB/s over the %.0f bytes it must move, against the "
                    "copy's %.0f GB/s measured in this run (more than %.2fx)",
                    r.throughput, m.work, copy, margin);
      return b;
    }
    const double peak = m.limit > 0 ? m.limit : m.ceiling;
    if (m.unit == "TFLOP/s" && peak > 0 && r.throughput > kComputeMargin * peak) {
      char b[300];
      std::snprintf(b, sizeof b, "faster than this GPU can do the FLOPs: %.1f TFLOP/s against a peak of %.1f (%s)",
                    r.throughput, peak, (m.limit > 0 ? m.limit_label : m.ceiling_label).c_str());
      return b;
    }
    return {};
  }

  void finish_row(std::size_t i) {
    Row& r = rows[i];
    timed_ok[i] = false;
    const bool exact_ok = !r.exact_check.ran || r.exact_check.pass;
    const bool lib_ok = !r.library_check.ran || r.library_check.pass;
    r.status = r.check.pass && exact_ok && lib_ok ? RowStatus::ok : RowStatus::fail;
    if (!r.exact_check.pass && r.exact_check.ran) r.note = "exact inputs: " + r.exact_check.detail;
    else if (!r.check.pass) r.note = r.check.detail;
    else if (!lib_ok) r.note = "disagrees with the library: " + r.library_check.detail;
    else if (r.source == Source::handwritten && !r.had_library_output)
      r.note = "no library output to cross-check against (no library baseline passed)";
    if (!cands[i].remark.empty()) {
      r.note = r.note.empty() ? cands[i].remark : r.note + "; " + cands[i].remark;
      r.slow_path = true;
    }
    if (r.has_timing && r.time_ms.median > 0) {
      r.throughput = r.metric.rate(r.work, r.time_ms.median * 1e-3);
      r.vs_ceiling = r.metric.ceiling > 0 ? r.throughput / r.metric.ceiling : 0;
    }
    const std::string impossible = impossible_rate(r);
    if (!impossible.empty() && r.status == RowStatus::ok) {
      r.status = RowStatus::fail;
      r.note = impossible;
      r.slow_path = false;  // the note no longer says it
    }
  }
};

}  // namespace

std::vector<Row> execute(const Row& proto, Problem& problem, std::vector<Candidate>& candidates, RunContext& ctx,
                         std::uint64_t seed) {
  std::vector<Row> rows(candidates.size(), proto);
  Pipeline p{problem, candidates, ctx, rows};
  p.pending.assign(candidates.size(), true);
  p.prepared.assign(candidates.size(), false);
  p.timed_ok.assign(candidates.size(), false);
  Metric metric;
  try {
    metric = problem.metric();
  } catch (const std::exception&) {
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    Row& r = rows[i];
    r.variant = c.info.name;
    r.origin = c.info.origin;
    r.lesson = c.info.lesson;
    r.source = c.info.source;
    r.seed = seed;
    r.metric = metric;
    r.work = c.work > 0 ? c.work : metric.work;
    if (!c.unsupported.empty()) {
      r.status = RowStatus::skipped;
      r.note = c.unsupported;
      p.pending[i] = false;
    } else if (!c.setup_error.empty()) {
      r.status = RowStatus::error;
      r.note = c.setup_error;
      p.pending[i] = false;
    } else {
      p.ws_bytes = std::max(p.ws_bytes, c.workspace_bytes);
    }
    p.order.push_back(i);
  }
  std::stable_partition(p.order.begin(), p.order.end(),
                        [&](std::size_t i) { return candidates[i].info.source == Source::library; });
  try {
    // The workspace with a guard band before and after it (problem.hpp: kGuardBytes).
    p.workspace = ctx.timer.allocate(p.ws_bytes ? kGuardBytes + p.ws_bytes + kGuardBytes : 0);
    p.arm_workspace_guard();
  } catch (const std::exception& e) {
    p.abandon(std::string("could not allocate the workspace: ") + e.what(), RowStatus::error);
    return rows;
  }

  p.tune_phase(seed);
  if (ctx.opt.exact_check && problem.has_exact_inputs()) p.exact_phase(seed);
  if (!p.stop()) p.random_phase(seed);
  if (ctx.opt.recheck && !p.stop()) p.fresh_phase(seed);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (p.timed_ok[i]) p.finish_row(i);
  if (!ctx.fatal.empty()) p.abandon("not run: an earlier variant left the CUDA context unusable", RowStatus::skipped, true);
  if (g_interrupted.load()) p.abandon("not run: interrupted", RowStatus::skipped, true);

  apply_vs_library(rows);
  return rows;
}

void apply_vs_library(std::vector<Row>& rows) {
  double best = 0;
  std::string best_name;
  for (const Row& r : rows)
    if (r.source == Source::library && r.status == RowStatus::ok && r.has_timing && (best == 0 || r.time_ms.median < best))
      best = r.time_ms.median, best_name = r.variant;
  for (Row& r : rows) {
    r.library_name = best_name;
    r.vs_library = best > 0 && r.has_timing && r.time_ms.median > 0 ? best / r.time_ms.median : 0;
  }
}

}  // namespace kl
