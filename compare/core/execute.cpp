#include "compare/core/execute.hpp"

#include "common/cuda_check.hpp"
#include "compare/core/remote_launch.hpp"
#include "compare/core/sample_sets.hpp"
#include "compare/core/timing.hpp"
#include "compare/core/tune_measure.hpp"
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

bool runs_under(std::string_view name, Source source, const RunOptions& opt) {
  const bool named = matches_any(std::string(name), opt.variant_patterns);
  return source == Source::library ? !opt.skip_library || (!opt.variant_patterns.empty() && named) : named;
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
// the peak is clocks x lanes at the boost clock, already an upper bound, so the margin covers the
// timer alone.
constexpr double kBandwidthMargin = 1.25, kBandwidthMarginInL2 = 3.0, kComputeMargin = 1.05;

// A submission's timed phase (README, "Method"): at least kRemoteMinSamples samples, kProbes of
// them probes drawn among the first kRemoteMinSamples (compare/core/sample_sets.hpp), kFreshChecks
// fresh samples chosen after the phase validated against their own seed's reference. A median more
// than kRepeatRatio (plus kRepeatSlackMs) slower on fresh inputs than on the probes is a kept
// result; a reported median under kClockShare of the GPU clock's span (less the marks' own cost,
// measured by this process, and kClockSlackMs) is a time it did not spend. kPrecisionFactor: how
// many times the library's error on the same random inputs a submission may reach.
constexpr std::size_t kRemoteMinSamples = 40, kProbes = 6, kFreshChecks = 3;
constexpr double kRepeatRatio = 1.25, kRepeatSlackMs = 0.002, kClockShare = 0.8, kClockSlackMs = 0.008;
constexpr double kPrecisionFactor = 64;

// A fresh sample of a submission's timed phase, chosen after the phase: its output, kept until its
// reference is built (Pipeline::samples_phase).
struct KeptSample {
  long long sample = 0;
  std::uint64_t seed = 0;
  DeviceArray<unsigned char> output;
};

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
  std::uint64_t problem_seed = 0;  // the seed of the problem's inputs
  std::vector<std::vector<KeptSample>> kept = {};  // by candidate: fresh samples to validate

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
    } catch (const SampleStateError& e) {
      fail_contract(i, e.what());
    } catch (const StreamContractError& e) {
      fail_contract(i, e.what());
    } catch (const std::exception& e) {
      r.status = RowStatus::error;
      r.note = e.what();
      r.has_timing = false;
      pending[i] = false;
      if (ctx.timer.context_is_dead()) ctx.fatal = r.variant + " left the CUDA context unusable: " + e.what();
    }
  }

  // Not a CUDA error of the kernel's own: it broke the contract (the stream, the GPU state a
  // sample starts from). A failure, named.
  void fail_contract(std::size_t i, const std::string& why) {
    Row& r = rows[i];
    r.status = RowStatus::fail;
    r.check.ran = true;
    r.check.pass = false;
    r.check.detail = why;
    r.note = why;
    r.has_timing = false;
    pending[i] = false;
    timed_ok[i] = false;
    if (ctx.timer.context_is_dead()) ctx.fatal = r.variant + " left the CUDA context unusable: " + why;
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
      const TuneMeasure measure(ctx.timer, rows[i].family + " " + rows[i].dtype + " " + rows[i].shape);
      c.tune(ws(), ctx.timer.stream(), measure.view());
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
        Timing tm;
        {
          PhaseTimer pt("time");
          if (c.remote) {
            tm = remote_timing(i);
          } else {
            NvtxRange range(range_name(r, "time"));
            WatchdogScope watch(label(r, "time"), phase_limit(true));
            tm = local_timing(i);
          }
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

  // ---- timed samples: every one on inputs of its own (compare/core/sample_sets.hpp) ----

  SampleSets::Options sets_options(std::size_t i, bool submission) {
    SampleSets::Options o;
    const std::uint64_t salt = problem_seed ^ (0x9e3779b97f4a7c15ull * (i + 1));
    o.root = sample_root(ctx.opt.seed ? &*ctx.opt.seed : nullptr, salt);
    if (submission && problem.has_sets()) {
      o.probes = kProbes;
      o.probe_window = kRemoteMinSamples;
    }
    if (submission) o.ring = ctx.opt.stop.max_samples + 1;
    o.poison = [this](cudaStream_t s, int pat) { poison_all(s, pat); };
    o.sync = [this] { ctx.timer.synchronize(); };
    return o;
  }

  // The reported time: the fresh samples alone (never the probes).
  static Timing counted(const Timing& all, const SampleSets& sets) {
    Timing t = all;
    t.samples_ms = sets.fresh_samples(all.samples_ms);
    if (t.samples_ms.empty()) t.samples_ms = all.samples_ms;
    t.stats = summarize(t.samples_ms);
    return t;
  }

  // Candidate i of this process (the ladder, the libraries) through the sampling loop, each sample
  // on its own set; the last, a probe, leaves its output for the last-run check.
  Timing local_timing(std::size_t i) {
    Candidate& c = cands[i];
    SampleSets sets(problem, sets_options(i, false));
    SampleHooks h;
    h.before = [&](cudaStream_t s, long long j, bool last) { sets.prepare(s, j, last); };
    h.op = [&](cudaStream_t st, long long) {
      if (ctx.opt.end_to_end) problem.copy_inputs_to_device(st);
      c.launch(ws(), st);
      if (ctx.opt.end_to_end) problem.copy_outputs_to_host(st);
    };
    h.extra = 1;
    const Timing all = ctx.timer.sample(h, ctx.opt.stop, ctx.opt.warmup);
    const std::string damage = sets.finish(ctx.timer.stream());
    if (!damage.empty()) throw StreamContractError(damage);
    return counted(all, sets);
  }

  // Times candidate i in its sandbox, then checks what it reported: against the wall clock of the
  // phase and the GPU's own timer, for a speed-up on the probes (inputs it has seen), and the
  // outputs of the probes and of fresh samples chosen after the phase. The last sample's output is
  // left in the output for the caller's last-run check.
  Timing remote_timing(std::size_t i) {
    Row& r = rows[i];
    Candidate& c = cands[i];
    SampleSets sets(problem, sets_options(i, true));
    const cudaStream_t s = ctx.timer.stream();
    RemoteTimeRequest rq;
    rq.warmup = ctx.opt.warmup;
    rq.rule = ctx.opt.stop;
    rq.rule.min_samples = std::max<std::size_t>(rq.rule.min_samples, kRemoteMinSamples);
    rq.rule.max_samples = std::max(rq.rule.max_samples, rq.rule.min_samples);
    rq.flush = ctx.timer.flush_mode();
    rq.slots = sets.slots();
    rq.use_slot = [&](std::size_t k) { problem.use_set(k); };
    rq.buffers = [&] { return buffers(); };
    rq.next = [&](long long j, bool last) {
      if (j >= 1) sets.keep(s, j - 1);
      const std::size_t slot = sets.prepare(s, j, last);
      ctx.timer.synchronize();
      return slot;
    };
    rq.done = [&](long long j) {
      sets.keep(s, j);
      ctx.timer.synchronize();
    };
    const std::size_t marks = rq.rule.max_samples + 1;
    DeviceArray<unsigned long long> clock(2 * marks);
    KL_CUDA_CHECK(cudaMemset(clock.get(), 0, 2 * marks * sizeof(unsigned long long)));
    rq.clock = {clock.get(), 2 * marks * sizeof(unsigned long long)};
    rq.limit_seconds = phase_limit(true);
    ctx.timer.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    RemoteTimeResult res;
    try {
      res = c.remote->time(ws(), rq);
    } catch (...) {
      sets.finish(s);
      throw;
    }
    const double wall_ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
    const std::string damage = sets.finish(s);

    Timing all;
    all.samples_ms = res.samples_ms;
    all.converged = res.converged;
    if (all.samples_ms.empty()) throw std::runtime_error("its sandbox reported no timed sample");
    all.stats = summarize(all.samples_ms);
    const Timing tm = counted(all, sets);
    std::string wrong = damage;
    if (wrong.empty()) wrong = timing_disagrees(all, wall_ms, clock, all.samples_ms.size(), ctx.timer.mark_overhead_ms());
    if (wrong.empty()) wrong = faster_on_repeats(tm.samples_ms, sets.probe_samples(all.samples_ms));
    if (wrong.empty()) wrong = samples_wrong(i, sets, static_cast<long long>(all.samples_ms.size()) - 1);
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

  // A kernel that keeps results between launches is fast on the probes (inputs its validation run
  // saw) and slow on inputs it has not seen.
  static std::string faster_on_repeats(const std::vector<double>& fresh, const std::vector<double>& probes) {
    if (probes.size() < 3 || fresh.size() < 8) return {};
    const double a = summarize(probes).median, b = summarize(fresh).median;
    if (b <= kRepeatRatio * a + kRepeatSlackMs) return {};
    char m[300];
    std::snprintf(m, sizeof m,
                  "ran faster on inputs it had already seen (median %.4f ms) than on inputs new to it (%.4f ms): it "
                  "keeps results between launches",
                  a, b);
    return m;
  }

  // The probes' outputs the ring holds, against the loaded inputs' reference; then kFreshChecks
  // fresh samples chosen now (after the phase) are kept for samples_phase; the last sample's output
  // is put back in the output for the last-run check.
  std::string samples_wrong(std::size_t i, const SampleSets& sets, long long last) {
    const std::vector<long long> held = sets.held();
    std::string wrong;
    std::vector<long long> fresh;
    for (long long j : held) {
      if (!sets.probe(j)) {
        fresh.push_back(j);
        continue;
      }
      if (j == last || !wrong.empty()) continue;
      sets.restore_output(j);
      const Check c = problem.validate(cands[i]);
      if (!c.pass) wrong = "wrong in timed sample " + std::to_string(j) + " (on the inputs its validation run saw): " + c.detail;
    }
    std::mt19937_64 g(std::random_device{}());
    std::shuffle(fresh.begin(), fresh.end(), g);
    fresh.resize(std::min(fresh.size(), kFreshChecks));
    for (long long j : fresh) {
      KeptSample k{j, sets.seed(j), DeviceArray<unsigned char>(problem.output_region().bytes)};
      sets.restore_output(j);
      KL_CUDA_CHECK(cudaMemcpy(k.output.get(), problem.output_region().ptr, problem.output_region().bytes,
                               cudaMemcpyDeviceToDevice));
      kept[i].push_back(std::move(k));
    }
    if (std::find(held.begin(), held.end(), last) != held.end()) sets.restore_output(last);
    return wrong;
  }

  // After the random phase: each submission's chosen fresh samples against the reference of the
  // inputs their own seed draws (each a load of those inputs, host and reference).
  void samples_phase() {
    for (std::size_t i : order) {
      if (kept[i].empty()) continue;
      if (stop()) break;
      PhaseTimer pt("samples");
      guarded(i, [&] {
        for (KeptSample& k : kept[i]) {
          if (!rows[i].check.pass) break;
          problem.load_inputs(InputKind::random, k.seed);
          KL_CUDA_CHECK(cudaMemcpy(problem.output_region().ptr, k.output.get(), problem.output_region().bytes,
                                   cudaMemcpyDeviceToDevice));
          const Check c = problem.validate(cands[i]);
          if (!c.pass) {
            rows[i].check = c;
            rows[i].check.detail = "wrong in timed sample " + std::to_string(k.sample) +
                                   " (fresh inputs drawn from its own seed): " + c.detail;
          }
        }
      });
      kept[i].clear();
    }
    library = -1;  // the inputs loaded here are no one's
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
  p.problem_seed = seed;
  p.kept.resize(candidates.size());
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
    } else if (!c.refused.empty()) {
      r.status = RowStatus::fail;
      r.check.ran = true;
      r.check.pass = false;
      r.check.detail = c.refused;
      r.note = c.refused;
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
  if (!p.stop()) p.samples_phase();
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
