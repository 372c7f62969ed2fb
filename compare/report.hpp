// One row per (problem, variant), and the writers: terminal table, JSON, CSV, markdown.
// Files are written whole or not at all (a temporary file renamed into place).
#pragma once

#include "compare/device.hpp"
#include "compare/stats.hpp"
#include "compare/tolerance.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace kl {

enum class RowStatus { ok, fail, skipped, error };
std::string_view status_name(RowStatus s);

struct Row {
  std::string family, dtype, shape;      // shape: "n=268435456", "2048x2048x2048"
  std::vector<long long> dims;
  std::string variant, origin, lesson, source;  // source: "handwritten" | "library"
  RowStatus status = RowStatus::ok;
  std::string note;                       // skip reason, error message or failure detail
  Check check;                            // against the fp64 reference
  Check library_check;                    // against the library baseline's output
  bool has_timing = false;
  SampleStats time_ms;
  bool converged = false;
  double work = 0;                        // bytes (GB/s families) or flops (TFLOP/s families)
  std::string unit;                       // "GB/s" | "TFLOP/s"
  double throughput = 0;                  // in `unit`
  double vs_library = 0;                  // t_fastest_library / t_variant (1.0 = as fast)
  std::string library_name;               // which library baseline that is
  double vs_ceiling = 0;                  // throughput / ceiling
  std::string ceiling_name;               // "d2d copy 2950 GB/s", "FP32 peak 66.9 TFLOP/s"
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
};

struct Report {
  RunMeta meta;
  std::vector<Row> rows;
};

void print_table(std::ostream& os, const Report& r);
std::string to_json(const Report& r);
std::string to_csv(const Report& r);
std::string to_markdown(const Report& r);

// Writes `content` to `path` atomically (temp file + rename); throws std::runtime_error.
void write_file_atomic(const std::string& path, const std::string& content);

// Human-readable helpers shared by the writers (also tested).
std::string format_time_ms(double ms);      // "812 ns", "12.3 us", "1.234 ms", "2.01 s"
std::string format_percent(double fraction); // "97.3%"

}  // namespace kl
