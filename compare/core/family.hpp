// A family is one job (sum of an array, matrix product, ...) with its inputs, its fp64
// reference, its error bound and its metric. compare/core/family_core.hpp turns a family's traits into
// this interface (element-type dispatch, variant lists, listings, sizes, axes); the runner core
// (execute.hpp) runs every problem the same way: poison, run once, validate, time, metrics, rows.
#pragma once

#include "common/variant.hpp"
#include "compare/core/device.hpp"
#include "compare/core/dtype.hpp"
#include "compare/core/sizes.hpp"
#include "compare/core/stats.hpp"
#include "compare/report/row.hpp"

#include <atomic>
#include <functional>
#include <map>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kl {

class Timer;
struct Candidate;       // compare/core/problem.hpp
class RemoteVariants;  // compare/core/remote_variants.hpp

// Bad input from the user: the CLI prints what() as one line and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CUDA fault that left the context unusable (e.g. an illegal address): the run stops.
struct FatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A numeric setting a family reads from the command line as --NAME VALUE (allreduce: --gpus N).
// The runner keeps it in RunOptions::settings without knowing what it means.
struct FamilySetting {
  std::string name;  // the option is --name
  std::string help;  // one line for --help
  long long min = 1, max = 1;
  // Why `value` cannot run with `device_count` visible GPUs ("" when it can); nullptr: always can.
  std::string (*refuse)(long long value, int device_count) = nullptr;
};

struct VariantListing {
  std::string name, origin, lesson;
  Source source = Source::handwritten;
  Requirements needs = {};  // what it needs of the GPU (common/variant.hpp); --list shows it
};

// A string axis (nvbench's): a family parameter that is not a size, e.g. rows' operation.
struct StringAxis {
  std::string name;                   // "op"
  std::vector<std::string> values;    // every value, in listing order (free-form axes: examples)
  std::vector<std::string> defaults;  // the default comparison's values
  std::string help;                   // one line for --list
  // Free-form axes (a number, say): why `value` is refused, or "" when it is accepted. nullptr:
  // only `values` are accepted.
  std::string (*refuse)(const std::string& value) = nullptr;
};

// One problem: a family at one element type, one size and one value of each of its axes.
struct ProblemKey {
  DType dtype = DType::f32;
  Dims dims;
  AxisValues axes;  // one (name, value) per axis of the family, in the family's order
  // The value of axis `name` (the family's own axes are always present).
  const std::string& axis(std::string_view name) const;
};

struct RunOptions {
  std::vector<std::string> variant_patterns;  // globs; empty = every variant
  bool end_to_end = false;                    // add host->device input and device->host output copies
  StopRule stop;
  int warmup = 2;
  std::optional<std::uint64_t> seed;          // fixed seed (reproducible); default: fresh per problem
  bool time_variants = true;                  // false: validate only (the GPU test suite)
  bool exact_check = true;                    // the second validation on integer-valued inputs
  bool recheck = true;                        // the last validation: fresh inputs in fresh buffers
  bool skip_library = false;                  // profiling: library baselines only if the patterns name them
  // Numeric settings a family declares for itself (Family::settings(): allreduce's --gpus), by
  // name; a setting not given on the command line is absent.
  std::map<std::string, long long, std::less<>> settings;
  long long setting(std::string_view name, long long fallback) const {
    const auto it = settings.find(name);
    return it == settings.end() ? fallback : it->second;
  }
  // Rewrites each problem's candidates before they run, or empty. compare/testing/ sets it to
  // test the runner itself (a variant that faults, a variant that is slow on purpose); nothing
  // in the runner knows what it adds.
  std::function<void(std::vector<Candidate>&)> wrap_candidates;
  // The watchdog's floor (README, "Method"): seconds one phase of a variant (a validation run; a
  // timed phase adds its sampling budget) may take at least before it is judged never to end.
  double phase_timeout = 20.0;
  // The variants that run in processes of their own (outside submissions), owned by whoever made
  // the plan; each family adds those of its name and type to its own. nullptr: none.
  RemoteVariants* remote = nullptr;
};

// True when `name` matches one of the globs (or there are none).
bool matches_any(const std::string& name, const std::vector<std::string>& patterns);

// Whether a listed variant runs under `opt`: a hand-written one where the patterns name it (or
// there are none); a library baseline always, as the yardstick, unless profiling asked for the
// named variants only. The one rule the runner, its isolated children and the dry run apply.
bool runs_under(std::string_view name, Source source, const RunOptions& opt);

// Set by SIGINT (runner.cpp): sampling stops, the rest of the plan is skipped, the reports are
// written with what was measured.
extern std::atomic<bool> g_interrupted;

struct RunContext {
  const RunOptions& opt;
  const DeviceInfo& dev;
  double copy_gbps;  // measured ceiling for GB/s families
  Timer& timer;
  // Progress: called with a short label before each variant's phase.
  void (*progress)(void* self, const std::string& what) = nullptr;
  void* progress_self = nullptr;
  void say(const std::string& what) const {
    if (progress) progress(progress_self, what);
  }
  // Set when a fault left the CUDA context unusable: the run stops after this problem.
  std::string fatal = {};
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual std::string_view unit() const = 0;  // for --list: "GB/s", "TFLOP/s"
  virtual std::vector<DType> dtypes() const = 0;
  virtual std::vector<DType> default_dtypes() const = 0;
  // Its variants of type t in listing order: the ladder, the library baselines, then those of
  // `remote` for this family and type (nullptr: none).
  virtual std::vector<VariantListing> variants(DType t, const RemoteVariants* remote) const = 0;
  // The name of its launch-argument struct (common/args_kind.hpp): what a submission's launcher
  // must take to join it.
  virtual std::string_view args_kind() const { return {}; }
  virtual const SizeSpec& sizes() const = 0;
  virtual std::vector<StringAxis> axes() const = 0;
  // Problems the default comparison runs besides its default sizes × default axis values, at
  // each default type (rows: the pitched layout at one size, next to the packed default); each
  // names every axis of the family, in order. Empty for most families.
  virtual std::vector<std::pair<Dims, AxisValues>> extra_defaults() const = 0;
  // "2048x2048x2048", "1000x1000 op=row_max"
  std::string shape_label(const ProblemKey& k) const;
  // Device memory one problem needs on each GPU it uses (inputs, outputs, reference scratch,
  // largest workspace). `opt`: a multi-GPU family's buffers depend on how many GPUs it drives.
  virtual std::size_t device_bytes(const ProblemKey& k, const RunOptions& opt) const = 0;
  // Host memory one problem holds at most: its inputs, the reference with its per-element bounds
  // and the outputs it downloads to check (0: a family that does not say).
  virtual std::size_t host_bytes(const ProblemKey& k, const RunOptions& opt) const = 0;
  // Runs every selected variant on the problem. Never throws for a CUDA error: a failure to
  // build the problem (reference, inputs) becomes error rows; a dead context sets ctx.fatal.
  virtual std::vector<Row> run(const ProblemKey& k, RunContext& ctx) const = 0;
  // Whether problems of type t have the second, exact input set (floating-point sums do; a
  // transpose, whose random check is already an equality, and the table, which has no inputs,
  // do not).
  virtual bool has_exact_inputs(DType t) const = 0;
  // The command-line settings this family reads (FamilySetting); none for most.
  virtual std::vector<FamilySetting> settings() const = 0;
  // Whether the default comparison (no --family) runs it: every family whose variants have run on
  // a GPU; `--family all` or its name runs any.
  virtual bool in_default_run() const { return true; }
  // Why none of its problems can run with these options wherever it runs ("" when they can), known
  // without a GPU: --dry-run skips them so (allreduce with --gpus 1).
  virtual std::string planned_skip(const RunOptions&) const { return {}; }
};

// Families register themselves (compare/families/<name>.cpp: KL_REGISTER_FAMILY), each with an
// order key: all_families() lists them by it, the order of --list and of the default run.
void register_family(const Family* f, int order);
#define KL_REGISTER_FAMILY(Traits, order)                                                     \
  namespace {                                                                                 \
  [[maybe_unused]] const bool kl_registered_family = (::kl::register_family(&::kl::family<Traits>(), order), true); \
  }
// Families this build left out register why (KL_WITH_NCCL off, NCCL not found).
void register_unbuilt_family(std::string name, std::string why);

const std::vector<const Family*>& all_families();
const Family* find_family(std::string_view name);

// Families this build left out (a library it needs was not found), each with a one-line reason:
// --list shows it, and asking for the family is a usage error that says it.
struct UnbuiltFamily {
  std::string name, why;
};
const std::vector<UnbuiltFamily>& unbuilt_families();

}  // namespace kl
