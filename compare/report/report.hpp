// One row per (problem, variant), and the writers: terminal table (table.cpp), JSON (json.cpp,
// through the schema in schema.hpp), CSV (csv.cpp), markdown (markdown.cpp). Files are written
// whole or not at all (a temporary file renamed into place: file.cpp), and read back, .json or
// .json.gz (load.cpp). Plain C++: the kl_report target needs no CUDA header or library.
#pragma once

#include "common/variant.hpp"
#include "compare/core/device.hpp"
#include "compare/core/device_state.hpp"
#include "compare/core/metric.hpp"
#include "compare/core/sizes.hpp"
#include "compare/core/stats.hpp"
#include "compare/core/tolerance.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

enum class RowStatus { ok, fail, skipped, error };
std::string_view status_name(RowStatus s);

std::string_view source_name(Source s);  // "handwritten" | "library"

// A string axis value of a problem (nvbench's string axes), e.g. {"op", "row_max"}.
using AxisValues = std::vector<std::pair<std::string, std::string>>;

struct Row {
  std::string family, dtype, shape;      // shape: "n=268435456", "2048x2048x2048", "1000x1000 op=row_max"
  Dims dims;
  std::vector<std::string> dim_names;     // the family's names for dims ("M", "N", "K")
  AxisValues axes;
  std::string variant, origin, lesson;
  Source source = Source::handwritten;
  RowStatus status = RowStatus::ok;
  std::string note;                       // skip reason, error message or failure detail
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

struct RunMeta {
  std::string tool_version = "kernel-ladder compare 1";
  std::string command_line;
  std::string git_commit;
  std::string timestamp_utc;
  std::string mode;            // "kernel" | "end-to-end"
  std::string timing_method;
  bool has_device = false;
  DeviceInfo device;
  double copy_gbps = 0;        // measured this run
  std::string smem_bank_mode;  // what cudaDeviceGetSharedMemConfig reported
  std::string l2_flush;        // how L2 was emptied before each sample
  DeviceState state_start, state_end;  // clocks, temperature, power around the run
  // A run that stopped early (Ctrl-C, a fault that left the CUDA context unusable) still
  // writes what it measured, marked incomplete with the reason.
  bool incomplete = false;
  std::string incomplete_reason;
  // Passes over the problems this report holds, and how many separate processes they came from
  // (compare --repeat R: R passes, 1 process; scripts/ab.sh merges R processes of one pass
  // each). Only passes from separate processes sample what differs between processes.
  int passes = 1;
  int processes = 1;
};

// The report's JSON schema (schema.hpp says what each version holds).
inline constexpr std::string_view kReportSchemaName = "kernel-ladder/compare";
inline constexpr int kReportSchemaVersion = 2;

struct Report {
  RunMeta meta;
  std::vector<Row> rows;
  int schema_version = kReportSchemaVersion;  // of the file it was read from (written: always the current)
};

void print_table(std::ostream& os, const Report& r);
std::string to_json(const Report& r);  // the whole report, indented (schema.hpp's to_json, dumped)
// One row as compact JSON text and back: schema.hpp's Row pair around a string (the schema's
// nlohmann functions are what the runner uses; these stay for callers that want text).
std::string row_to_json(const Row& r);
Row row_from_json(const std::string& text);
std::string to_csv(const Report& r);
std::string to_markdown(const Report& r);

// Writes `content` to `path` atomically (a uniquely named temporary file beside it, then a
// rename); on failure nothing is left behind and std::runtime_error is thrown.
void write_file_atomic(const std::string& path, const std::string& content);

// Fails early, with one line (std::runtime_error), when `path` could not be written by
// write_file_atomic: it is a directory, or its nearest existing ancestor is not a writable
// directory. Creates nothing, so a command can check its output paths before any work.
void check_writable(const std::string& path);

// Writes BASE.json, BASE.csv and BASE.md: all three are rendered first, each written
// atomically; returns the paths written.
std::vector<std::string> write_reports(const std::string& base, const Report& r);

// Reads a report written by to_json (any schema version schema.hpp accepts), from a .json file
// or a gzip-compressed one (.json.gz, or any file that starts with gzip's magic bytes). Throws
// ReportReadError (schema.hpp) with one line that starts with the path.
Report load_report(const std::string& path);
// The file's bytes, decompressed when it is gzip; ReportReadError "PATH: cannot read the file".
std::string read_report_text(const std::string& path);

// Human-readable helpers shared by the writers (also tested).
std::string format_time_ms(double ms);      // "812 ns", "12.3 us", "1.234 ms", "2.01 s"
std::string format_percent(double fraction); // "97.3%"

}  // namespace kl
