#include "compare/cli/runner.hpp"

#include "common/cuda_check.hpp"
#include "compare/core/device_state.hpp"
#include "compare/core/family.hpp"
#include "compare/core/host_memory.hpp"
#include "compare/cli/isolate.hpp"
#include "compare/report/passes.hpp"
#include "compare/report/summary.hpp"
#include "compare/core/timing.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <iterator>
#include <numeric>
#include <random>
#include <unistd.h>

#include "kl_git_commit.h"  // generated at every build: KL_GIT_COMMIT (cmake/git_commit.cmake)

namespace kl {

std::atomic<bool> g_interrupted{false};

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / 1073741824.0);
  return b;
}

// One progress line on stderr: rewritten in place on a terminal, one line per problem otherwise.
struct Progress {
  bool enabled = true;
  bool tty = false;
  std::string prefix;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  static void callback(void* self, const std::string& what) { static_cast<Progress*>(self)->variant(what); }
  void problem(std::size_t i, std::size_t n, const std::string& what) {
    if (!enabled) return;
    char b[48];
    std::snprintf(b, sizeof b, "[%zu/%zu %.0fs] ", i, n,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    prefix = b;
    if (!tty) std::fprintf(stderr, "%s%s\n", prefix.c_str(), what.c_str());
  }
  void variant(const std::string& what) {
    if (enabled && tty) std::fprintf(stderr, "\r\033[K%s%s", prefix.c_str(), what.c_str());
  }
  void done() {
    if (enabled && tty) std::fprintf(stderr, "\r\033[K");
  }
};

std::string bank_mode_name() {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  cudaSharedMemConfig cfg{};
  if (cudaDeviceGetSharedMemConfig(&cfg) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
#pragma GCC diagnostic pop
  switch (cfg) {
    case cudaSharedMemBankSizeFourByte: return "4-byte";
    case cudaSharedMemBankSizeEightByte: return "8-byte";
    default: return "default";
  }
}

std::vector<std::size_t> in_order(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

std::vector<Row> flatten(std::vector<std::vector<Row>>& by_problem) {
  std::vector<Row> rows;
  for (auto& r : by_problem) rows.insert(rows.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  return rows;
}

// One pass over the problems in `order` (indices into plan.problems); each problem's rows go to
// by_problem[index], so the report keeps the plan's order whatever order they ran in. Marks `m`
// incomplete where the run must stop (Ctrl-C, a fault without recovery).
void run_pass(const Plan& plan, const std::vector<std::size_t>& order, RunContext& ctx, RunMeta& m, Progress& progress,
              bool& context_lost, std::vector<std::vector<Row>>& by_problem, const std::string& label) {
  const std::size_t n = order.size();
  for (std::size_t k = 0; k < n; ++k) {
    if (g_interrupted.load()) {
      m.incomplete = true;
      m.incomplete_reason = "interrupted (SIGINT) after " + std::to_string(k) + " of " + std::to_string(n) + " problems" + label;
      return;
    }
    const std::size_t i = order[k];
    const auto& p = plan.problems[i];
    progress.problem(k + 1, n,
                     label + std::string(p.family->name()) + " " + std::string(dtype_name(p.key.dtype)) + " " + p.family->shape_label(p.key));
    // After a fault left this process's CUDA context unusable, every problem left (the faulting
    // one first, resumed without its culprit) runs in a child process, as --isolate does from the
    // start: a fault costs its own row, not the rest of the run.
    const bool isolated = plan.isolate || context_lost;
    auto rows = isolated ? run_isolated(plan, i, m.copy_gbps) : p.family->run(p.key, ctx);
    if (!isolated && !ctx.fatal.empty()) {
      context_lost = true;
      if (plan.recover_from_faults) {
        progress.problem(k + 1, n, "a fault left the CUDA context unusable (" + ctx.fatal +
                                       "); this problem and the rest go on in child processes");
        rows = run_isolated(plan, i, m.copy_gbps);
      }
    }
    by_problem[i] = std::move(rows);
    if (context_lost && !plan.recover_from_faults) {
      m.incomplete = true;
      m.incomplete_reason = "stopped after " + std::to_string(k + 1) + " of " + std::to_string(n) + " problems" + label +
                            ": " + ctx.fatal;
      return;
    }
  }
}

// --repeat R: R passes, each in a fresh random order (so no variant always runs after the same
// neighbour, or at the same point of the GPU's warming), merged row by row with one median per
// pass (compare/report/passes.hpp). The order's seed is --seed's where given, so a run with a
// fixed seed repeats its order too.
std::vector<Row> run_passes(const Plan& plan, RunContext& ctx, RunMeta& m, Progress& progress, bool& context_lost) {
  std::mt19937_64 rng(plan.run.seed ? *plan.run.seed : std::random_device{}());
  std::vector<Report> passes;
  for (int r = 0; r < plan.repeat && !m.incomplete; ++r) {
    std::vector<std::size_t> order = in_order(plan.problems.size());
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::vector<Row>> by_problem(plan.problems.size());
    const std::string label = " in pass " + std::to_string(r + 1) + " of " + std::to_string(plan.repeat);
    run_pass(plan, order, ctx, m, progress, context_lost, by_problem, label);
    Report pass;
    pass.meta = m;
    pass.meta.passes = pass.meta.processes = 1;
    pass.rows = flatten(by_problem);
    passes.push_back(std::move(pass));
  }
  m.passes = static_cast<int>(passes.size());
  m.processes = 1;
  return merge_passes(passes).rows;
}

void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }

int exit_code_for(const Report& r) {
  if (r.meta.incomplete) return g_interrupted.load() ? kExitInterrupted : kExitCuda;
  for (const Row& row : r.rows)
    if (row.status == RowStatus::fail || row.status == RowStatus::error) return kExitFailures;
  return kExitOk;
}

int exit_code_for(const Plan& plan, const Report& r) {
  const int code = exit_code_for(r);
  if (code != kExitOk) return code;
  for (const SubmissionStatus& st : plan.submissions)
    if (st.failed) return kExitFailures;
  return kExitOk;
}

void print_ungraded(const Plan& plan, std::ostream& out) {
  std::vector<SubmissionStatus> ungraded;
  for (const SubmissionStatus& st : plan.submissions)
    if (!st.graded) ungraded.push_back(st);
  if (!ungraded.empty()) out << "\n  submissions this run names but did not grade:\n" << status_lines(ungraded);
}

Report run_plan(const Plan& plan, const std::string& command_line, std::ostream& out) {
  Report rep;
  RunMeta& m = rep.meta;
  m.command_line = command_line;
  m.git_commit = KL_GIT_COMMIT;
  m.timestamp_utc = utc_now();
  m.mode = plan.run.end_to_end ? "end-to-end (adds host->device input copies from pinned memory and the device->host output copy)"
                               : "kernel (device time of the whole operation, every pass; no host copies)";

  m.device = query_device(plan.device);
  m.has_device = true;
  if (plan.smem_bank_mode) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    KL_CUDA_CHECK(cudaDeviceSetSharedMemConfig(plan.smem_bank_mode == 8 ? cudaSharedMemBankSizeEightByte
                                                                         : cudaSharedMemBankSizeFourByte));
#pragma GCC diagnostic pop
  }
  m.smem_bank_mode = bank_mode_name();

  // Every problem must fit before anything runs.
  std::size_t free_b = 0, total_b = 0;
  KL_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t flush_bytes = 2 * m.device.l2_bytes;
  for (const auto& p : plan.problems) {
    const std::size_t need = p.family->device_bytes(p.key, plan.run) + flush_bytes + (std::size_t{64} << 20);
    if (need > free_b)
      throw UsageError(std::string(p.family->name()) + " " + std::string(dtype_name(p.key.dtype)) + " " +
                       p.family->shape_label(p.key) + " needs " + gib(static_cast<double>(need)) +
                       " of device memory; " + gib(static_cast<double>(free_b)) + " free of " +
                       gib(static_cast<double>(total_b)));
  }
  // And its host arrays must fit in what the host has available (one problem at a time).
  if (const auto avail = host_available_bytes()) {
    for (const auto& p : plan.problems) {
      const std::size_t need = p.family->host_bytes(p.key, plan.run);
      if (need > *avail)
        throw UsageError(std::string(p.family->name()) + " " + std::string(dtype_name(p.key.dtype)) + " " +
                         p.family->shape_label(p.key) + " needs " + gib(static_cast<double>(need)) +
                         " of host memory (inputs, fp64 reference and bounds, downloaded outputs); " +
                         gib(static_cast<double>(*avail)) + " available");
    }
  }

  GpuTimer timer(m.device.l2_bytes, plan.l2_flush);
  m.l2_flush = plan.l2_flush == L2Flush::read ? "read of a 2xL2 buffer (leaves L2 clean)" : "memset of a 2xL2 buffer (leaves dirty lines)";
  const char* inputs = plan.run.end_to_end
                           ? "each sample copies the loaded inputs from the host"
                           : "each sample on inputs of its own (drawn on the device from its own seed, up to 4 sets "
                             "at different addresses; the last sample, on the loaded inputs, validated and not counted)";
  char method[600];
  std::snprintf(method, sizeof method,
                "CUDA events on one stream around the whole operation; %d warm-up runs; %s; persisting L2 reset and "
                "L2 emptied before each sample (%s, %zu MiB); samples until relative std. dev. <= %.1f%% after >= "
                "%zu samples and >= %.2f s, capped at %zu samples or %.1f s; median reported",
                plan.run.warmup, inputs, plan.l2_flush == L2Flush::read ? "read" : "memset", timer.flush_bytes() >> 20,
                plan.run.stop.max_noise * 100, plan.run.stop.min_samples, plan.run.stop.min_seconds,
                plan.run.stop.max_samples, plan.run.stop.max_seconds);
  m.timing_method = method;
  if (plan.repeat > 1)
    m.timing_method += "; per pass of " + std::to_string(plan.repeat) + " (--repeat), each pass in a new random order of "
                       "the problems, one median per pass kept";

  Progress progress;
  progress.enabled = !plan.quiet;
  progress.tty = isatty(STDERR_FILENO);
  progress.problem(0, plan.problems.size(), "measuring the device-to-device copy ceiling");
  // 1 GiB each way, or less when memory is short: large enough that launch overhead vanishes.
  const std::size_t copy_bytes = std::min<std::size_t>(std::size_t{1} << 30, free_b / 8);
  if (plan.run.time_variants) m.copy_gbps = measure_copy_bandwidth_gbps(timer, copy_bytes, plan.run.stop);
  m.state_start = read_device_state(plan.device);  // after the copy: the GPU has left its idle clocks

  RunContext ctx{plan.run, m.device, m.copy_gbps, timer, &Progress::callback, &progress};
  bool context_lost = false;
  if (plan.repeat <= 1) {
    std::vector<std::vector<Row>> by_problem(plan.problems.size());
    run_pass(plan, in_order(plan.problems.size()), ctx, m, progress, context_lost, by_problem, "");
    rep.rows = flatten(by_problem);
  } else {
    rep.rows = run_passes(plan, ctx, m, progress, context_lost);
  }
  if (g_interrupted.load() && !m.incomplete) {
    m.incomplete = true;
    m.incomplete_reason = "interrupted (SIGINT) during the last problem";
  }
  progress.done();
  m.state_end = read_device_state(plan.device);  // NVML: works after the context is lost too

  print_table(out, rep);
  if (!plan.summary) print_ungraded(plan, out);
  if (m.incomplete) out << "\n  INCOMPLETE: " << m.incomplete_reason << "\n";
  if (plan.write_files) {
    const std::string base = plan.out_dir + "/" + plan.basename;
    write_reports(base, rep);
    out << "  wrote " << base << ".json, .csv, .md" << (m.incomplete ? " (marked incomplete)" : "") << "\n";
  }
  if (plan.summary) write_summary(plan, rep, out);
  return rep;
}

void write_summary(const Plan& plan, const Report& rep, std::ostream& out) {
  if (!plan.summary) {
    print_ungraded(plan, out);
    return;
  }
  std::vector<std::pair<std::string, std::string>> ungraded;
  for (const SubmissionStatus& st : plan.submissions)
    if (!st.graded) ungraded.emplace_back(st.name, st.text);
  const auto lines = summarize(rep, ungraded);
  out << "\n" << summary_markdown(lines);
  if (plan.write_files) {
    const std::string base = plan.out_dir + "/" + plan.basename;
    write_file_atomic(base + ".summary.md", summary_markdown(lines));
    write_file_atomic(base + ".summary.csv", summary_csv(lines));
    out << "  wrote " << base << ".summary.md, .summary.csv\n";
  }
}

}  // namespace kl
