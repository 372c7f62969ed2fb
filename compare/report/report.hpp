// A report: its rows (row.hpp: one per (problem, variant)) and the run's metadata, and the
// writers: terminal table (table.cpp), JSON (json.cpp, through the schema in schema.hpp), CSV
// (csv.cpp), markdown (markdown.cpp). Files are written whole or not at all (a temporary file
// renamed into place: file.cpp), and read back, .json or .json.gz (load.cpp). Plain C++: the
// kl_report target needs no CUDA header or library.
#pragma once

#include "compare/report/row.hpp"

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

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
