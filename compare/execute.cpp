#include "compare/execute.hpp"

#include "common/cuda_check.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <fnmatch.h>

namespace kl {

bool matches_any(const std::string& name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns)
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

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

struct Pipeline {
  Problem& problem;
  std::vector<Candidate>& cands;
  RunContext& ctx;
  std::vector<Row>& rows;
  std::vector<bool> pending = {};   // still to run (not skipped, not failed with an error)
  std::vector<bool> prepared = {};
  std::vector<std::size_t> order = {};  // library baselines first
  std::shared_ptr<void> workspace = {};
  std::size_t ws_bytes = 0;
  std::ptrdiff_t library = -1;  // the candidate whose output is kept for cross-checks

  void* ws() const { return workspace.get(); }

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
    } catch (const std::exception& e) {
      r.status = RowStatus::error;
      r.note = e.what();
      r.has_timing = false;
      pending[i] = false;
      if (ctx.timer.context_is_dead()) ctx.fatal = r.variant + " left the CUDA context unusable: " + e.what();
    }
  }

  bool stop() const { return !ctx.fatal.empty() || g_interrupted.load(); }

  // Marks every row still pending as not run, saying why.
  void abandon(const std::string& why) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (pending[i]) {
        rows[i].status = RowStatus::skipped;
        rows[i].note = why;
        rows[i].has_timing = false;
        pending[i] = false;
      }
  }

  // Poisons outputs and workspace, runs candidate i once, waits for it.
  void run_once(std::size_t i, const char* phase) {
    Candidate& c = cands[i];
    NvtxRange range(range_name(rows[i], phase));
    if (!prepared[i]) {
      if (c.prepare) c.prepare();
      prepared[i] = true;
    }
    problem.poison(ctx.timer.stream());
    ctx.timer.poison(ws(), ws_bytes);
    c.launch(ws(), ctx.timer.stream());
    ctx.timer.synchronize();
  }

  // Loads an input set; a failure (the reference, an upload) fails every pending row.
  bool load(InputKind kind, std::uint64_t seed) {
    library = -1;
    try {
      problem.load_inputs(kind, seed);
      return true;
    } catch (const std::exception& e) {
      const std::string why = std::string("could not build the problem's ") +
                              (kind == InputKind::exact ? "exact" : "random") + " inputs or reference: " + e.what();
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (pending[i]) rows[i].status = RowStatus::error, rows[i].note = why, pending[i] = false;
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
    for (std::size_t i : order) {
      if (!pending[i]) continue;
      if (stop()) break;
      Row& r = rows[i];
      guarded(i, [&] {
        ctx.say(label(r, "exact check"));
        run_once(i, "exact");
        r.exact_check = problem.validate(cands[i]);
        if (cands[i].info.source == Source::library && library < 0 && r.exact_check.pass) {
          problem.keep_as_library(cands[i]);
          library = static_cast<std::ptrdiff_t>(i);
        }
      });
    }
  }

  void random_phase(std::uint64_t seed) {
    if (!load(InputKind::random, seed)) return;
    for (std::size_t i : order) {
      if (!pending[i]) continue;
      if (stop()) break;
      Row& r = rows[i];
      Candidate& c = cands[i];
      guarded(i, [&] {
        ctx.say(label(r, "validate"));
        run_once(i, "validate");
        r.check = problem.validate(c);
        keep_or_cross_check(i, r.library_check, r.had_library_output);
        if (!ctx.opt.time_variants || g_interrupted.load()) return;
        ctx.say(label(r, "time"));
        auto op = [&](cudaStream_t st) {
          if (ctx.opt.end_to_end) problem.copy_inputs_to_device(st);
          c.launch(ws(), st);
          if (ctx.opt.end_to_end) problem.copy_outputs_to_host(st);
        };
        Timing tm;
        {
          NvtxRange range(range_name(r, "time"));
          tm = ctx.timer.measure(op, ctx.opt.stop, ctx.opt.warmup);
        }
        r.has_timing = true;
        r.time_ms = tm.stats;
        r.samples_ms = tm.samples_ms;
        r.converged = tm.converged;
        // After timing, one more run from poisoned outputs: a result that depends on state an
        // earlier run left (an accumulator not cleared, a race) fails here.
        run_once(i, "revalidate");
        const Check again = problem.validate(c);
        if (r.check.pass && !again.pass) {
          r.check = again;
          r.check.detail = "wrong after repeated runs: " + again.detail;
        }
        if (r.had_library_output) {
          const Check lib_again = problem.cross_check(c);
          if (r.library_check.pass && !lib_again.pass) {
            r.library_check = lib_again;
            r.library_check.detail = "wrong after repeated runs: " + lib_again.detail;
          }
        }
      });
      if (pending[i]) finish_row(i);
    }
  }

  void finish_row(std::size_t i) {
    Row& r = rows[i];
    pending[i] = false;
    const bool exact_ok = !r.exact_check.ran || r.exact_check.pass;
    const bool lib_ok = !r.library_check.ran || r.library_check.pass;
    r.status = r.check.pass && exact_ok && lib_ok ? RowStatus::ok : RowStatus::fail;
    if (!r.exact_check.pass && r.exact_check.ran) r.note = "exact inputs: " + r.exact_check.detail;
    else if (!r.check.pass) r.note = r.check.detail;
    else if (!lib_ok) r.note = "disagrees with the library: " + r.library_check.detail;
    else if (r.source == Source::handwritten && !r.had_library_output)
      r.note = "no library output to cross-check against (no library baseline passed)";
    if (!cands[i].remark.empty()) r.note = r.note.empty() ? cands[i].remark : r.note + "; " + cands[i].remark;
    if (r.has_timing && r.time_ms.median > 0) {
      r.throughput = r.metric.rate(r.work, r.time_ms.median * 1e-3);
      r.vs_ceiling = r.metric.ceiling > 0 ? r.throughput / r.metric.ceiling : 0;
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
    p.workspace = ctx.timer.allocate(p.ws_bytes);
  } catch (const std::exception& e) {
    p.abandon(std::string("could not allocate the workspace: ") + e.what());
    for (Row& r : rows)
      if (r.note.rfind("could not allocate", 0) == 0) r.status = RowStatus::error;
    return rows;
  }

  if (ctx.opt.exact_check && problem.has_exact_inputs()) p.exact_phase(seed);
  if (!p.stop()) p.random_phase(seed);
  if (!ctx.fatal.empty()) p.abandon("not run: an earlier variant left the CUDA context unusable");
  if (g_interrupted.load()) p.abandon("not run: interrupted");

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
