// What a report records, as plain values: one row per (problem, variant) and what a row is made of
// (its validations, its timing's statistics, its metric), and the machine a run was on
// (DeviceInfo, DeviceState). The report layer's own types: the runner (compare/core/) fills them
// in, the writers, the reader and the diff read them, and nothing here includes a runner header,
// so the layers depend one way only (core -> report). Plain C++: no CUDA header (the kl_report
// target, which a -DKL_DIFF_ONLY build makes alone). The functions beside the types are in row.cpp.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kl {

// A problem's dimensions, in its family's order (compare/core/sizes.hpp parses and names them).
using Dims = std::vector<long long>;

// A string axis value of a problem (nvbench's string axes), e.g. {"op", "row_max"}.
using AxisValues = std::vector<std::pair<std::string, std::string>>;

// The outcome of comparing one output (a scalar, or the worst element of a matrix) with its
// reference within its error bound (compare/core/tolerance.hpp).
struct Check {
  bool ran = false;
  bool pass = false;
  double max_abs_err = 0;   // largest |got - ref|
  double worst_ratio = 0;   // largest |got - ref| / bound over elements (pass iff <= 1)
  double bound_at_worst = 0;
  std::size_t worst_index = 0;
  std::size_t bad_count = 0;  // elements over their bound (NaN included)
  std::string detail;         // human-readable reason when it fails
};

// Sample statistics (the timer's stopping rule: compare/core/stats.hpp).
struct SampleStats {
  std::size_t samples = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double noise = 0;  // relative standard deviation: stddev / mean (0 for fewer than 2 samples)
};

SampleStats summarize(std::vector<double> samples);

// What a family's rate means: a unit, the work one run of the operation does in that unit's
// base (bytes for GB/s, flops for TFLOP/s), and the ceiling it is measured against. A value
// type, so the writers never compare unit strings.
struct Metric {
  std::string unit;         // "GB/s", "TFLOP/s", "Gelem/s"
  std::string work_unit;    // "bytes", "flop", "elements"
  double scale = 1e9;       // work / seconds / scale = rate in `unit`
  int decimals = 1;         // digits after the point in tables
  double work = 0;          // per run of the operation
  double ceiling = 0;       // in `unit`; 0 = none
  std::string ceiling_label;
  // What the rate is called in tables ("busbw"); empty: "rate". A second rate derived from it may
  // be shown beside it: also = rate × also_factor (allreduce: the rate is nccl-tests' bus
  // bandwidth, the one comparable with a link's, and `also` its algorithm bandwidth, bytes/time).
  std::string rate_name;
  std::string also_name;    // empty: none
  double also_factor = 0;
  // The highest rate the hardware allows for this operation, in `unit`, where it is above the
  // ceiling (a double product may run on the FP64 tensor cores, past the FP64 FMA peak it is
  // reported against); 0: the ceiling. A hand-written rate above it fails (compare/core/execute.cpp).
  double limit = 0;
  std::string limit_label;

  double rate(double work_done, double seconds) const { return work_done / seconds / scale; }

  // GB/s over `bytes` that must move, against a measured copy bandwidth.
  static Metric bandwidth(double bytes, double copy_gbps);
  // TFLOP/s over `flops`, against a peak whose derivation is `peak_label`.
  static Metric flops(double flops, double peak_tflops, std::string peak_label);
};

// What the report says about the machine, and the hardware ceilings derived from it
// (compare/core/device.hpp reads it).
struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;      // peak (boost) clock the driver reports
  double mem_clock_mhz = 0;
  int mem_bus_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  std::size_t smem_per_sm = 0;
  int driver_version = 0, runtime_version = 0;
  std::string cublas_version, cccl_version;
  // Derived: theoretical DRAM bandwidth (double data rate) and FMA peaks from clocks × lanes.
  double dram_gbps_theoretical = 0;
  double fp32_tflops_peak = 0, fp64_tflops_peak = 0;
  int fp32_lanes_per_sm = 0, fp64_lanes_per_sm = 0;
};

// The GPU's state around a run (compare/core/device_state.hpp reads it through NVML).
struct DeviceState {
  bool available = false;
  std::string why_unavailable;       // when !available
  unsigned sm_clock_mhz = 0, mem_clock_mhz = 0;
  unsigned max_sm_clock_mhz = 0;
  unsigned app_sm_clock_mhz = 0, default_app_sm_clock_mhz = 0;
  unsigned temperature_c = 0;
  double power_w = 0;
  unsigned long long clock_event_reasons = 0;  // NVML clocks event (throttle) reason bits
  std::vector<std::string> reasons;            // decoded, e.g. "sw_power_cap"
  bool app_clocks_changed = false;             // application clocks differ from the default
};

enum class RowStatus { ok, fail, skipped, error };
std::string_view status_name(RowStatus s);

std::string_view source_name(Source s);  // "handwritten" | "library"

struct Row {
  std::string family, dtype, shape;      // shape: "n=268435456", "2048x2048x2048", "1000x1000 op=row_max"
  Dims dims;
  std::vector<std::string> dim_names;     // the family's names for dims ("M", "N", "K")
  AxisValues axes;
  std::string variant, origin, lesson;
  Source source = Source::handwritten;
  RowStatus status = RowStatus::ok;
  std::string note;                       // skip reason, error message or failure detail
  // The variant runs on this GPU but on a slow path (compare/core/requirements.hpp: slow_note), and
  // the note says so: the reports show the note on a passing row too. Set where that is written
  // into the note, never read back from its text.
  bool slow_path = false;
  // The runner never started this row's variant: it stopped first (an interrupt, or a fault that
  // left the CUDA context unusable); the note says which. Set by the runner, never read back
  // from the note (a worker's rows reach its parent as JSON: compare/cli/isolate.cpp).
  bool not_run = false;
  Check check;                            // random inputs against the fp64 reference, within the bound
  Check exact_check;                      // integer-valued inputs, compared for equality
  Check library_check;                    // against the library baseline's output
  bool had_library_output = false;        // a library baseline passed, so library_check could run
  bool has_timing = false;
  SampleStats time_ms;
  std::vector<double> samples_ms;         // every sample, in the order taken
  // One median per pass over the problems (compare --repeat, or reports merged by
  // merge_passes): the unit the diff tests when both runs have enough of them. Empty: one pass.
  std::vector<double> pass_medians_ms;
  bool converged = false;
  Metric metric;                          // the family's unit, work and ceiling
  double work = 0;                        // what this variant does (metric.work unless it differs)
  double throughput = 0;                  // in metric.unit
  double vs_library = 0;                  // t_fastest_library / t_variant (1.0 = as fast)
  std::string library_name;               // which library baseline that is
  double vs_ceiling = 0;                  // throughput / metric.ceiling
  std::uint64_t seed = 0;
};

}  // namespace kl
