// A family is one job (sum of an array, matrix product, ...) with its inputs, its fp64
// reference, its error bound and its metric. compare/family_core.hpp turns a family's traits into
// this interface (element-type dispatch, variant lists, listings, sizes, axes); the runner core
// (execute.hpp) runs every problem the same way: poison, run once, validate, time, metrics, rows.
#pragma once

#include "common/variant.hpp"
#include "compare/device.hpp"
#include "compare/dtype.hpp"
#include "compare/report.hpp"
#include "compare/sizes.hpp"
#include "compare/stats.hpp"

#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kl {

class Timer;

// Bad input from the user: the CLI prints what() as one line and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CUDA fault that left the context unusable (e.g. an illegal address): the run stops.
struct FatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
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

enum class L2Flush { read, write };

struct RunOptions {
  std::vector<std::string> variant_patterns;  // globs; empty = every variant
  bool end_to_end = false;                    // add host->device input and device->host output copies
  StopRule stop;
  int warmup = 2;
  std::optional<std::uint64_t> seed;          // fixed seed (reproducible); default: fresh per problem
  bool time_variants = true;                  // false: validate only (the GPU test suite)
  bool exact_check = true;                    // the second validation on integer-valued inputs
  bool skip_library = false;                  // profiling: library baselines only if the patterns name them
  // Testing the runner itself: adds a variant that faults ("oob": an out-of-bounds write, "trap")
  // to every problem (compare --inject-fault). Empty: none.
  std::string inject_fault;
  // Testing `compare diff`: the variants named here wait this many microseconds on the GPU after
  // every launch (compare --inject-delay NAME=US), a slowdown the comparison must flag.
  std::vector<std::pair<std::string, double>> inject_delay;
  // GPUs a multi-GPU family drives (compare --gpus; only allreduce reads it): devices 0 .. gpus-1.
  // 0: every visible one.
  int gpus = 0;
};

// True when `name` matches one of the globs (or there are none).
bool matches_any(const std::string& name, const std::vector<std::string>& patterns);

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
  virtual std::vector<VariantListing> variants(DType t) const = 0;
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
  // Runs every selected variant on the problem. Never throws for a CUDA error: a failure to
  // build the problem (reference, inputs) becomes error rows; a dead context sets ctx.fatal.
  virtual std::vector<Row> run(const ProblemKey& k, RunContext& ctx) const = 0;
};

const std::vector<const Family*>& all_families();
const Family* find_family(std::string_view name);

// Families this build left out (a library it needs was not found), each with a one-line reason:
// --list shows it, and asking for the family is a usage error that says it.
struct UnbuiltFamily {
  std::string name, why;
};
const std::vector<UnbuiltFamily>& unbuilt_families();

}  // namespace kl
