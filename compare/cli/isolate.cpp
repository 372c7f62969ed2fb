#include "compare/cli/isolate.hpp"

#include "compare/core/execute.hpp"
#include "compare/core/family.hpp"
#include "compare/cli/runner.hpp"
#include "compare/core/timing.hpp"
#include "compare/core/watchdog.hpp"
#include "compare/report/schema.hpp"

#include <nlohmann/json.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

extern char** environ;

namespace kl {
namespace {

struct WorkerLog {
  std::FILE* f;
  static void say(void* self, const std::string& what) {
    auto* log = static_cast<WorkerLog*>(self);
    std::fprintf(log->f, "start %s\n", what.c_str());
    std::fflush(log->f);  // on disk before the launch, in case the process does not survive it
  }
};

// The variant a progress label ("family type shape: variant (phase)") names.
std::string variant_of(const std::string& label) {
  const auto colon = label.find(": ");
  const auto paren = label.rfind(" (");
  if (colon == std::string::npos || paren == std::string::npos || paren < colon) return {};
  return label.substr(colon + 2, paren - colon - 2);
}

struct Attempt {
  int status = 0;             // waitpid status
  std::string last_label;     // the last run that started
  std::string timed_out;      // the worker's watchdog line ("SECONDS LABEL"), if it fired
  std::vector<Row> rows;
};

Attempt spawn_worker(const Plan& plan, std::size_t index, double copy_gbps, const std::vector<std::string>& variants) {
  char path[] = "/tmp/kl-worker-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("--isolate: cannot create a temporary file");
  close(fd);
  std::vector<std::string> args = {"/proc/self/exe"};
  for (std::size_t i = 1; i < plan.argv.size(); ++i) args.push_back(plan.argv[i]);
  std::string names;
  for (const auto& v : variants) names += (names.empty() ? "" : ",") + v;
  char gbps[64];
  std::snprintf(gbps, sizeof gbps, "%.17g", copy_gbps);
  args.insert(args.end(), {"--worker", std::to_string(index), "--worker-out", path, "--worker-copy-gbps", gbps,
                           "--worker-variants", names, "--no-files", "-q"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    std::remove(path);
    throw std::runtime_error("--isolate: cannot start a worker process");
  }
  Attempt a;
  while (waitpid(pid, &a.status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("start ", 0) == 0) a.last_label = line.substr(6);
    else if (line.rfind("timeout ", 0) == 0) a.timed_out = line.substr(8);
    else if (line.rfind("row ", 0) == 0) a.rows.push_back(nlohmann::json::parse(line.substr(4)).get<Row>());
  }
  std::remove(path);
  return a;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

std::vector<Row> run_isolated(const Plan& plan, std::size_t index, double copy_gbps) {
  const PlannedProblem& p = plan.problems.at(index);
  // The variants this problem runs, in ladder order (the injected fault after the first).
  std::vector<std::string> order;
  for (const auto& v : p.family->variants(p.key.dtype, plan.run.remote))
    if (runs_under(v.name, v.source, plan.run)) order.push_back(v.name);
  if (!plan.testing.inject_fault.empty()) order.insert(order.begin() + (order.empty() ? 0 : 1), fault_variant_name(plan.testing.inject_fault));

  auto with_listing = [&](Row r, const std::string& name) {
    r.variant = name;
    for (const auto& v : p.family->variants(p.key.dtype, plan.run.remote))
      if (v.name == name) r.origin = v.origin, r.lesson = v.lesson, r.source = v.source;
    return r;
  };
  std::map<std::string, Row> done;
  Row proto;  // for rows the children could not produce
  proto.family = std::string(p.family->name());
  proto.dtype = std::string(dtype_name(p.key.dtype));
  proto.shape = p.family->shape_label(p.key);
  proto.dims = p.key.dims;
  proto.dim_names = p.family->sizes().dims;
  proto.axes = p.key.axes;
  for (int attempt = 0; attempt <= static_cast<int>(order.size()); ++attempt) {
    std::vector<std::string> todo;
    for (const auto& v : order)
      if (!done.count(v)) todo.push_back(v);
    if (todo.empty() || g_interrupted.load()) break;
    const Attempt a = spawn_worker(plan, index, copy_gbps, todo);
    std::size_t progress = 0;
    for (const Row& r : a.rows) {
      if (r.not_run || done.count(r.variant)) continue;
      done[r.variant] = r;
      ++progress;
    }
    const bool clean = WIFEXITED(a.status) && WEXITSTATUS(a.status) != kExitCuda && !a.rows.empty();
    if (clean && progress > 0) continue;
    // The child stopped early: the run that started last and has no row is what stopped it.
    const std::string culprit = variant_of(a.last_label);
    if (!culprit.empty() && !done.count(culprit)) {
      Row r = with_listing(proto, culprit);
      r.status = RowStatus::error;
      if (!a.timed_out.empty() && WIFEXITED(a.status) && WEXITSTATUS(a.status) == kExitTimedOut)
        r.note = "timed out after " + a.timed_out.substr(0, a.timed_out.find(' ')) + " s during: " + a.last_label +
                 " (its worker process was ended; a kernel that never ends?)";
      else
        r.note = "its worker process " + how_it_ended(a.status) + " during: " + a.last_label;
      done[culprit] = r;
      ++progress;
    }
    if (progress == 0) break;
  }
  std::vector<Row> rows;
  for (const auto& v : order) {
    if (done.count(v)) {
      rows.push_back(done[v]);
      continue;
    }
    Row r = with_listing(proto, v);
    r.status = g_interrupted.load() ? RowStatus::skipped : RowStatus::error;
    r.not_run = g_interrupted.load();
    r.note = g_interrupted.load() ? "not run: interrupted" : "no worker process produced a row for it";
    rows.push_back(r);
  }
  apply_vs_library(rows);
  return rows;
}

static std::FILE* g_worker_file = nullptr;

// The watchdog's last word in a worker: which phase outlived its limit, for the parent's row.
static void worker_timed_out(const std::string& what, double seconds) {
  if (!g_worker_file) return;
  std::fprintf(g_worker_file, "timeout %.0f %s\n", seconds, what.c_str());
  std::fflush(g_worker_file);
}

int run_worker(const Plan& plan) {
  std::FILE* f = std::fopen(plan.worker_out.c_str(), "w");
  if (!f) throw std::runtime_error("--worker-out: cannot write " + plan.worker_out);
  g_worker_file = f;
  set_watchdog_hook(&worker_timed_out);
  WorkerLog log{f};
  const DeviceInfo dev = query_device(plan.device);
  GpuTimer timer(dev.l2_bytes, plan.l2_flush);
  RunContext ctx{plan.run, dev, plan.worker_copy_gbps, timer, &WorkerLog::say, &log};
  const auto& p = plan.problems.at(static_cast<std::size_t>(plan.worker));
  const auto rows = p.family->run(p.key, ctx);
  for (const Row& r : rows) std::fprintf(f, "row %s\n", nlohmann::json(r).dump().c_str());
  std::fclose(f);
  if (!ctx.fatal.empty()) return kExitCuda;
  if (g_interrupted.load()) return kExitInterrupted;
  return kExitOk;
}

}  // namespace kl
