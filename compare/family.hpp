// A family is one job (sum of an array, matrix product, ...) with its inputs, its fp64
// reference, its validation and its metric. The runner core (execute.hpp) does the rest the
// same way for every family: poison, run once, validate, time, metrics, rows.
#pragma once

#include "common/variant.hpp"
#include "compare/device.hpp"
#include "compare/dtype.hpp"
#include "compare/report.hpp"
#include "compare/stats.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

class GpuTimer;

// Bad input from the user: the CLI prints what() as one line and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CUDA fault that left the context unusable (e.g. an illegal address): the run stops.
struct FatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Dims = std::vector<long long>;

struct VariantListing {
  std::string name, origin, lesson;
  Source source = Source::handwritten;
};

struct RunOptions {
  std::vector<std::string> variant_patterns;  // globs; empty = every variant
  bool end_to_end = false;                    // add host->device input and device->host output copies
  StopRule stop;
  int warmup = 2;
  std::optional<std::uint64_t> seed;          // fixed seed (reproducible); default: fresh per problem
  bool time_variants = true;                  // false: validate only (the GPU test suite)
};

// True when `name` matches one of the globs (or there are none).
bool matches_any(const std::string& name, const std::vector<std::string>& patterns);

struct RunContext {
  const RunOptions& opt;
  const DeviceInfo& dev;
  double copy_gbps;  // measured ceiling for GB/s families
  GpuTimer& timer;
  // Progress: called with a short label before each variant's phase.
  void (*progress)(void* self, const std::string& what) = nullptr;
  void* progress_self = nullptr;
  void say(const std::string& what) const {
    if (progress) progress(progress_self, what);
  }
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual std::string_view unit() const = 0;  // "GB/s" | "TFLOP/s"
  virtual std::vector<DType> dtypes() const = 0;
  virtual std::vector<DType> default_dtypes() const = 0;
  virtual std::vector<VariantListing> variants(DType t) const = 0;
  virtual std::vector<Dims> default_sizes() const = 0;
  // Power-of-two sweep 2^lo .. 2^hi; the family's default range when lo = hi = 0.
  virtual std::vector<Dims> sweep(int lo, int hi) const = 0;
  virtual std::pair<int, int> default_sweep() const = 0;
  virtual std::string size_syntax() const = 0;  // for --help and errors
  // Parses one --sizes entry; throws UsageError with a one-line reason.
  virtual Dims parse_size(std::string_view text) const = 0;
  virtual std::string shape_label(const Dims& d) const = 0;
  // Device memory one problem needs (inputs, outputs, references, largest workspace).
  virtual std::size_t device_bytes(DType t, const Dims& d) const = 0;
  virtual std::vector<Row> run(DType t, const Dims& d, RunContext& ctx) const = 0;
};

const std::vector<const Family*>& all_families();
const Family* find_family(std::string_view name);

// Parses a positive integer size: "1000", "1e6", "2^28", "1<<20"; throws UsageError.
long long parse_positive_count(std::string_view text, std::string_view what);

}  // namespace kl
