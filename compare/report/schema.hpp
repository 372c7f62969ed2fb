// The report's JSON schema, said once: every struct a report holds has a to_json / from_json
// pair (nlohmann::json's ADL convention, so `json(row)` and `j.get<Row>()` work), used by the
// JSON writer, by `--isolate`'s worker rows and by `compare diff` alike.
//
// A report names its schema and version: "schema": "kernel-ladder/compare/2" (the name, a
// slash, the version) and "schema_version": 2. Versions the reader accepts:
//   1  the first reports (tests/fixtures/): "schema": "kernel-ladder/compare/1", no
//      "schema_version"; timing_ms.samples is a count, no sample values; no exact-input or
//      library-output validation fields, no complete/l2_flush/device_state.
//   2  every sample listed (timing_ms.samples an array, timing_ms.count the count), the metric's
//      scale/decimals/ceiling value, device_state, l2_flush, complete. Reports written before
//      "schema_version" was added say the version in "schema" only; both are read.
//      Later additions within version 2, which older readers ignore and this reader defaults:
//      "passes" and "processes" (the run's passes over the problems and the processes they came
//      from; 1 and 1 when absent), a row's timing_ms.pass_medians (one median per pass), and a
//      row's "slow_path": true where its note says the variant runs on a slow path on that GPU
//      (written only then; false when absent), and a row's "not_run": true where the runner
//      stopped before starting it (written only then; false when absent).
// The reader is lenient where the versions differ: a field a version does not have reads as the
// struct's default. Only a row's identity (family, dtype, shape, variant, status) is required.
// Numbers that were not finite are written as "inf" (validation errors) or null (nlohmann's
// NaN); both read back as non-finite doubles.
//
// Plain C++: no CUDA header, no CUDA library (the kl_report target).
#pragma once

#include "compare/report/report.hpp"

#include <nlohmann/json_fwd.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace kl {

// kReportSchemaName and kReportSchemaVersion: report.hpp.
std::string report_schema_id(int version);  // "kernel-ladder/compare/2"

// Input that does not read as a report: one line, without the file's name.
struct ReportReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void to_json(nlohmann::json& j, const Check& c);
void from_json(const nlohmann::json& j, Check& c);
void to_json(nlohmann::json& j, const SampleStats& s);  // timing_ms's statistics (no samples)
void from_json(const nlohmann::json& j, SampleStats& s);
void to_json(nlohmann::json& j, const Metric& m);       // the metric's own fields (a row adds its rates)
void from_json(const nlohmann::json& j, Metric& m);
void to_json(nlohmann::json& j, const DeviceState& s);
void from_json(const nlohmann::json& j, DeviceState& s);
// The report's "device" object; the versions (driver, runtime, cuBLAS, CCCL) are RunMeta's
// "versions" object, read and written by RunMeta's pair.
void to_json(nlohmann::json& j, const DeviceInfo& d);
void from_json(const nlohmann::json& j, DeviceInfo& d);
void to_json(nlohmann::json& j, const Row& r);
void from_json(const nlohmann::json& j, Row& r);  // throws ReportReadError without an identity field
// The report's top-level metadata fields (everything but "schema", "schema_version", "results").
void to_json(nlohmann::json& j, const RunMeta& m);
void from_json(const nlohmann::json& j, RunMeta& m);
// A whole report: the schema fields, the metadata, "results". Reading checks the schema (a
// ReportReadError for anything else) and sets Report::schema_version to the version read.
void to_json(nlohmann::json& j, const Report& r);
void from_json(const nlohmann::json& j, Report& r);

// Parses a report's text; ReportReadError on anything that is not JSON or not a report.
Report parse_report(std::string_view text);

}  // namespace kl
