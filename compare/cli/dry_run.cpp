#include "compare/cli/dry_run.hpp"

#include "compare/core/family.hpp"
#include "compare/core/requirements.hpp"
#include "compare/report/report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#ifndef KL_SOURCE_DIR
#define KL_SOURCE_DIR ""
#endif

namespace kl {
namespace {

constexpr std::size_t KB = 1024;
constexpr double kSampleOverheadSeconds = 0.00015, kProblemSeconds = 1.75;
constexpr const char* kResultsFolder = "results";  // the committed measurements, one folder per GPU

// The GPUs CUDA 13 supports, by the limits the runner checks (the same table the host suite's
// requirements test holds); `results` names the committed folder of that GPU, if any.
struct KnownGpu {
  std::string name;
  int cc;
  std::size_t smem_optin;
  std::string results;
};
const std::vector<KnownGpu>& known_gpus() {
  static const std::vector<KnownGpu> g = {
      {"T4", 75, 64 * KB, ""},         {"RTX2080", 75, 64 * KB, ""},   {"A100", 80, 163 * KB, ""},
      {"A10", 86, 99 * KB, ""},        {"RTX3090", 86, 99 * KB, ""},   {"L4", 89, 99 * KB, ""},
      {"RTX4090", 89, 99 * KB, ""},    {"H100", 90, 227 * KB, "h100"}, {"H200", 90, 227 * KB, "h200"},
      {"B200", 100, 227 * KB, ""},     {"RTX5090", 120, 99 * KB, ""},
  };
  return g;
}

std::string squash(std::string s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '-' && c != '_') out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

const KnownGpu* find_gpu(const std::string& name) {
  for (const auto& g : known_gpus())
    if (squash(g.name) == squash(name)) return &g;
  return nullptr;
}

using RowKey = std::tuple<std::string, std::string, std::string, std::string>;

// Seconds a row took in a committed run, roughly: its samples with the flush and synchronisation
// around each, four more runs (the validations), and a little per variant for everything around
// them. With kProblemSeconds per problem (inputs, references, buffers) the sum comes to the
// default run's wall time on the H100 (docs/method.md, "Grading submissions") within a few percent.
std::map<RowKey, double> committed_seconds(const std::string& folder, std::string& from) {
  std::map<RowKey, double> out;
  const std::string src = KL_SOURCE_DIR;
  if (src.empty() || folder.empty()) return out;
  for (const char* name : {"default.json.gz", "default.json"}) {
    const std::string path = src + "/" + kResultsFolder + "/" + folder + "/" + name;
    if (!std::filesystem::exists(path)) continue;
    try {
      const Report r = load_report(path);
      for (const Row& row : r.rows) {
        double s = 0.02;
        for (double x : row.samples_ms) s += x * 1e-3 + kSampleOverheadSeconds;
        if (row.has_timing) s += 4 * row.time_ms.median * 1e-3;
        out[{row.family, row.dtype, row.shape, row.variant}] = s;
      }
      from = std::string(kResultsFolder) + "/" + folder + "/" + name;
    } catch (const std::exception&) {
    }
    break;
  }
  return out;
}

}  // namespace

std::string known_gpu_names() {
  std::string s;
  for (const auto& g : known_gpus()) s += (s.empty() ? "" : ", ") + g.name;
  return s;
}

std::string dry_run_text(const Plan& plan) {
  std::ostringstream os;
  const KnownGpu* gpu = nullptr;
  if (!plan.dry_run_gpu.empty()) {
    gpu = find_gpu(plan.dry_run_gpu);
    if (!gpu) throw UsageError("--gpu: unknown GPU '" + plan.dry_run_gpu + "' (known: " + known_gpu_names() + ")");
  }
  const DeviceLimits limits = gpu ? device_limits(gpu->name, gpu->cc, gpu->smem_optin) : DeviceLimits{};
  std::string from;
  const auto seconds = committed_seconds(gpu ? gpu->results : std::string(), from);
  os << "dry run: nothing is launched";
  if (gpu) os << "; requirements checked for " << gpu->name << " (compute capability " << cc_text(gpu->cc) << ", "
              << gpu->smem_optin / KB << " KB of shared memory per block)";
  else os << "; no --gpu, so no variant is judged against a GPU's limits (--gpu NAME: " << known_gpu_names() << ")";
  os << "\n";
  std::size_t runs = 0, skips = 0, estimated = 0;
  double total = 0;
  for (const PlannedProblem& p : plan.problems) {
    std::vector<std::pair<std::string, std::string>> skipped;
    std::size_t run_here = 0, found_here = 0;
    double problem_s = kProblemSeconds;
    bool all_known = true;
    // A reason the whole family cannot run with these options (allreduce with --gpus 1) skips
    // every variant, as the runner's problem would.
    const std::string family_skip = p.family->planned_skip(plan.run);
    for (const VariantListing& v : p.family->variants(p.key.dtype, plan.run.remote)) {
      if (!runs_under(v.name, v.source, plan.run)) continue;
      std::string why = family_skip;
      if (why.empty() && gpu) why = why_not_runnable(v.needs, limits, v.needs.kernel ? limits.compute_capability : 0);
      if (!why.empty()) {
        skipped.emplace_back(v.name, why);
        continue;
      }
      ++run_here;
      const auto it = seconds.find({std::string(p.family->name()), std::string(dtype_name(p.key.dtype)),
                                    p.family->shape_label(p.key), v.name});
      if (it != seconds.end()) problem_s += it->second, ++estimated, ++found_here;
      else all_known = false;
    }
    runs += run_here;
    skips += skipped.size();
    if (run_here) total += problem_s;
    os << "\n" << p.family->name() << " " << dtype_name(p.key.dtype) << " " << p.family->shape_label(p.key) << ": " << run_here
       << " variant" << (run_here == 1 ? "" : "s") << " to run";
    if (!skipped.empty()) os << ", " << skipped.size() << " skipped";
    if (found_here) {
      char b[64];
      std::snprintf(b, sizeof b, "%s~%.1f s", all_known ? "" : ">", problem_s);
      os << " (" << b << ")";
    }
    os << "\n";
    if (!family_skip.empty() && run_here == 0) os << "  skipped  every variant: " << family_skip << "\n";
    else for (const auto& [name, why] : skipped) os << "  skipped  " << name << ": " << why << "\n";
  }
  if (!plan.submissions.empty()) {
    os << "\nsubmissions:\n" << status_lines(plan.submissions);
    std::string failing;
    for (const SubmissionStatus& st : plan.submissions)
      if (st.failed) failing += (failing.empty() ? "" : ", ") + st.name;
    if (!failing.empty()) os << "  (a run of this command exits 1 whatever the grades: it names " << failing << ", who cannot be graded)\n";
  }
  os << "\n" << plan.problems.size() << " problems, " << runs << " variant runs, " << skips << " skipped";
  if (!seconds.empty() && estimated > 0) {
    char b[200];
    std::snprintf(b, sizeof b, "; about %.0f s on the GPU, from %s (%zu of the %zu runs found there; the rest not counted)",
                  total, from.c_str(), estimated, runs);
    os << b;
  } else if (!seconds.empty() && runs > 0) {
    os << "; no estimate: none of these runs is in " << from;
  } else if (gpu && seconds.empty()) {
    os << "; no committed run of " << gpu->name << " to estimate the time from";
  }
  os << "\n";
  return os.str();
}

}  // namespace kl
