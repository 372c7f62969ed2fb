#include "compare/execute.hpp"

#include "common/cuda_check.hpp"
#include "compare/device_memory.hpp"

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

// After an exception inside a variant: is the context still usable? Faults such as an
// illegal address are sticky and poison every later call, so the run must stop there.
bool context_is_dead() {
  const cudaError_t e = cudaDeviceSynchronize();
  cudaGetLastError();
  return e != cudaSuccess;
}

}  // namespace

std::vector<Row> execute(const Family& fam, DType t, const Dims& d, Problem& problem,
                         std::vector<Candidate>& candidates, RunContext& ctx, std::uint64_t seed) {
  std::size_t ws_bytes = 0;
  for (const auto& c : candidates)
    if (!c.unsupported) ws_bytes = std::max(ws_bytes, c.workspace_bytes);
  DeviceArray<unsigned char> workspace(ws_bytes);
  cudaStream_t s = ctx.timer.stream();

  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return candidates[i].info.source == Source::library; });

  std::vector<Row> rows(candidates.size());
  for (std::size_t i : order) {
    Candidate& c = candidates[i];
    Row& r = rows[i];
    r.family = std::string(fam.name());
    r.dtype = std::string(dtype_name(t));
    r.shape = fam.shape_label(d);
    r.dims = d;
    r.variant = c.info.name;
    r.origin = c.info.origin;
    r.lesson = c.info.lesson;
    r.source = c.info.source == Source::library ? "library" : "handwritten";
    r.unit = std::string(fam.unit());
    r.work = problem.work();
    r.seed = seed;
    r.ceiling_name = problem.ceiling_name();
    if (c.unsupported) {
      r.status = RowStatus::skipped;
      r.note = c.unsupported;
      continue;
    }
    const std::string label = r.family + " " + r.dtype + " " + r.shape + ": " + r.variant;
    try {
      if (c.prepare) c.prepare();
      // Validation run: outputs and workspace poisoned, so nothing unwritten or uninitialised passes.
      ctx.say(label + " (validate)");
      problem.poison(s);
      if (ws_bytes) KL_CUDA_CHECK(cudaMemsetAsync(workspace.get(), 0xff, ws_bytes, s));
      c.launch(workspace.get(), s);
      KL_CUDA_CHECK(cudaStreamSynchronize(s));
      r.check = problem.validate(c);
      if (c.info.source == Source::library && !problem.has_library_output() && r.check.pass)
        problem.keep_as_library(c);
      else if (problem.has_library_output())
        r.library_check = problem.cross_check(c);
      if (ctx.opt.time_variants) {
        ctx.say(label + " (time)");
        auto op = [&](cudaStream_t st) {
          if (ctx.opt.end_to_end) problem.copy_inputs_to_device(st);
          c.launch(workspace.get(), st);
          if (ctx.opt.end_to_end) problem.copy_outputs_to_host(st);
        };
        const Timing tm = ctx.timer.measure(op, ctx.opt.stop, ctx.opt.warmup);
        r.has_timing = true;
        r.time_ms = tm.stats;
        r.converged = tm.converged;
        r.throughput = problem.work() / (tm.stats.median * 1e-3) / (r.unit == "TFLOP/s" ? 1e12 : 1e9);
        r.vs_ceiling = problem.ceiling() > 0 ? r.throughput / problem.ceiling() : 0;
        // The outputs of the last timed run must still be right: a result that changes under
        // repetition is a race or a dependence on state left by an earlier run.
        KL_CUDA_CHECK(cudaStreamSynchronize(s));
        const Check again = problem.validate(c);
        if (r.check.pass && !again.pass) {
          r.check = again;
          r.check.detail = "result changed after repeated runs: " + again.detail;
        }
      }
      const bool ok = r.check.pass && (!r.library_check.ran || r.library_check.pass);
      r.status = ok ? RowStatus::ok : RowStatus::fail;
      if (!r.check.pass) r.note = r.check.detail;
      else if (r.library_check.ran && !r.library_check.pass) r.note = "disagrees with the library: " + r.library_check.detail;
    } catch (const std::exception& e) {
      r.status = RowStatus::error;
      r.note = e.what();
      r.has_timing = false;
      if (context_is_dead()) {
        throw FatalError(r.variant + " left the CUDA context unusable: " + e.what());
      }
    }
  }

  // vs library: fastest library baseline that ran and passed.
  double best = 0;
  std::string best_name;
  for (const Row& r : rows)
    if (r.source == "library" && r.status == RowStatus::ok && r.has_timing && (best == 0 || r.time_ms.median < best))
      best = r.time_ms.median, best_name = r.variant;
  for (Row& r : rows) {
    r.library_name = best_name;
    if (best > 0 && r.has_timing && r.time_ms.median > 0) r.vs_library = best / r.time_ms.median;
  }
  return rows;
}

}  // namespace kl
