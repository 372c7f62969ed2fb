// The writers: JSON parses back with every field, CSV has one line per row and escapes,
// markdown has the table, files are written whole.
#include "compare/report/report.hpp"
#include "compare/report/schema.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace kl;

namespace {

Report sample_report() {
  Report r;
  r.meta.command_line = "compare --family reduce";
  r.meta.git_commit = "abc123";
  r.meta.timestamp_utc = "2026-11-22T00:00:00Z";
  r.meta.mode = "kernel";
  r.meta.timing_method = "events";
  r.meta.has_device = true;
  r.meta.device.name = "Test GPU";
  r.meta.device.sm_count = 132;
  r.meta.device.l2_bytes = 50u << 20;
  r.meta.copy_gbps = 3000;
  Row a;
  a.family = "reduce";
  a.dtype = "float";
  a.shape = "n=1024";
  a.dims = {1024};
  a.variant = "reduce3_sequential_addressing";
  a.origin = "000, 001: reduce3";
  a.source = Source::handwritten;
  a.check.ran = true;
  a.check.pass = true;
  a.check.worst_ratio = 0.01;
  a.check.bound_at_worst = 1e-3;
  a.has_timing = true;
  a.time_ms = {20, 0.010, 0.009, 0.012, 0.0101, 0.01};
  a.samples_ms = {0.010, 0.009, 0.012};
  a.metric = Metric::bandwidth(4100, 3000);
  a.throughput = 410;
  a.vs_library = 0.8;
  a.library_name = "cub_device_reduce_sum";
  a.vs_ceiling = 0.14;
  Row b = a;
  b.variant = "broken, \"quoted\"";
  b.status = RowStatus::fail;
  b.note = "1 of 1 elements out of bound";
  b.check.pass = false;
  r.rows = {a, b};
  return r;
}

}  // namespace

TEST_CASE("JSON carries the metadata and every row") {
  const auto j = nlohmann::json::parse(to_json(sample_report()));
  CHECK(j["git_commit"] == "abc123");
  CHECK(j["device"]["name"] == "Test GPU");
  CHECK(j["device"]["sm_count"] == 132);
  CHECK(j["ceilings"]["d2d_copy_gbps_measured"] == 3000.0);
  REQUIRE(j["results"].size() == 2);
  CHECK(j["results"][0]["timing_ms"]["median"] == 0.010);
  CHECK(j["results"][0]["timing_ms"]["count"] == 20);
  CHECK(j["results"][0]["timing_ms"]["samples"].size() == 3);  // every sample, not only their count
  CHECK(j["results"][0]["metric"]["unit"] == "GB/s");
  CHECK(j["results"][0]["metric"]["work_unit"] == "bytes");
  CHECK(j["complete"] == true);
  CHECK(j["results"][0]["validation"]["pass"] == true);
  CHECK(j["results"][1]["status"] == "FAIL");
  CHECK(j["results"][1]["variant"] == "broken, \"quoted\"");
}

TEST_CASE("the schema: named and versioned, and every struct reads back what it wrote") {
  Report r = sample_report();
  r.meta.smem_bank_mode = "4-byte";
  r.meta.l2_flush = "read";
  r.meta.device.cc_major = 9;
  r.meta.device.driver_version = 13000;
  r.meta.device.cublas_version = "13.1.0";
  r.meta.state_start.available = true;
  r.meta.state_start.sm_clock_mhz = 1980;
  r.meta.state_start.reasons = {"sw_power_cap"};
  r.meta.state_end.why_unavailable = "no NVML";
  r.meta.incomplete = true;
  r.meta.incomplete_reason = "interrupted";
  r.rows[0].axes = {{"op", "row_max"}};
  r.rows[0].dim_names = {"n"};
  r.rows[0].seed = 18446744073709551615ull;
  r.rows[1].check.max_abs_err = std::numeric_limits<double>::infinity();
  r.rows[1].check.detail = "NaN at 3";
  const nlohmann::json j = nlohmann::json::parse(to_json(r));
  CHECK(j["schema"] == "kernel-ladder/compare/2");
  CHECK(j["schema_version"] == kReportSchemaVersion);
  CHECK(j["results"][1]["validation"]["max_abs_err"] == "inf");
  const Report back = parse_report(to_json(r));
  CHECK(back.schema_version == 2);
  CHECK(to_json(back) == to_json(r));  // every field survives
  CHECK(back.meta.device.cc_major == 9);
  CHECK(back.meta.state_start.reasons == std::vector<std::string>{"sw_power_cap"});
  CHECK_FALSE(back.meta.state_end.available);
  CHECK(back.rows[0].axes == r.rows[0].axes);
  CHECK(back.rows[0].samples_ms == r.rows[0].samples_ms);
  CHECK(std::isinf(back.rows[1].check.max_abs_err));
  // Each struct alone.
  CHECK(nlohmann::json(r.rows[0]).get<Row>().time_ms.samples == 20);
  CHECK(nlohmann::json(r.rows[0].metric).get<Metric>().unit == "GB/s");
  CHECK(nlohmann::json(r.meta.device).get<DeviceInfo>().sm_count == 132);
}

TEST_CASE("the schema reads the older forms and refuses what is not a report") {
  // Version 2 before "schema_version" existed: the version is in the name only.
  nlohmann::json j = nlohmann::json::parse(to_json(sample_report()));
  j.erase("schema_version");
  CHECK(parse_report(j.dump()).schema_version == 2);
  // Version 1: samples only counted, no validation of exact inputs, a shorter metric.
  const nlohmann::json v1 = {
      {"schema", "kernel-ladder/compare/1"},
      {"results",
       {{{"family", "gemm"}, {"dtype", "float"}, {"shape", "256x256x256"}, {"variant", "g"}, {"status", "ok"},
         {"timing_ms", {{"median", 0.02}, {"samples", 10}, {"noise", 0.01}}},
         {"metric", {{"work", 3.0e7}, {"unit", "TFLOP/s"}, {"throughput", 1.4}}}}}}};
  const Report old = parse_report(v1.dump());
  CHECK(old.schema_version == 1);
  REQUIRE(old.rows.size() == 1);
  CHECK(old.rows[0].has_timing);
  CHECK(old.rows[0].time_ms.samples == 10);
  CHECK(old.rows[0].samples_ms.empty());
  CHECK(old.rows[0].metric.work == 3.0e7);
  CHECK_FALSE(old.meta.incomplete);
  auto refused = [](const std::string& text, const std::string& needle) {
    try {
      parse_report(text);
    } catch (const ReportReadError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
      return;
    }
    FAIL("accepted: " << text);
  };
  refused("{", "not JSON");
  refused(R"({"schema": "kernel-ladder/compare/x", "results": []})", "unknown schema");
  refused(R"({"schema": "kernel-ladder/compare/2", "schema_version": 3, "results": []})", "does not match");
  refused(R"({"schema": "kernel-ladder/compare/2", "results": [{"family": "f", "dtype": "float", "shape": "n=1", "variant": "v"}]})",
          "no \"status\"");
  refused(R"({"schema": "kernel-ladder/compare/2", "results": [{"family": "f", "dtype": "float", "shape": "n=1", "variant": "v",
              "status": "ok", "timing_ms": {"median": "fast"}}]})",
          "a number is expected");
}

TEST_CASE("CSV: a header and one line per row, fields escaped") {
  const std::string csv = to_csv(sample_report());
  std::istringstream is(csv);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(is, line)) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("family,dtype,shape,variant", 0) == 0);
  CHECK(lines[2].find("\"broken, \"\"quoted\"\"\"") != std::string::npos);
  CHECK(lines[2].find(",FAIL,") != std::string::npos);
}

TEST_CASE("markdown and the terminal table show the rows") {
  const Report r = sample_report();
  const std::string md = to_markdown(r);
  CHECK(md.find("| `reduce3_sequential_addressing` |") != std::string::npos);
  CHECK(md.find("Test GPU") != std::string::npos);
  std::ostringstream os;
  print_table(os, r);
  CHECK(os.str().find("reduce3_sequential_addressing") != std::string::npos);
  CHECK(os.str().find("80.0%") != std::string::npos);
}

TEST_CASE("a slow path is the row's flag: the reports show its note on a passing row, the JSON carries it") {
  Report r = sample_report();
  r.rows[0].note = "slow here: no FP64 tensor cores";
  auto shown = [](const Report& rep) {
    std::ostringstream os;
    print_table(os, rep);
    const bool table = os.str().find("slow here") != std::string::npos;
    const bool md = to_markdown(rep).find("slow here") != std::string::npos;
    CHECK(table == md);
    return table;
  };
  CHECK_FALSE(shown(r));  // a passing row's note alone is not shown: the text is not read
  r.rows[0].slow_path = true;
  CHECK(shown(r));
  const auto j = nlohmann::json::parse(to_json(r));
  CHECK(j["results"][0]["slow_path"] == true);
  CHECK_FALSE(j["results"][1].contains("slow_path"));  // written only where set
  const Report back = parse_report(to_json(r));
  CHECK(back.rows[0].slow_path);
  CHECK_FALSE(back.rows[1].slow_path);  // absent: false (reports written before the field)
}

TEST_CASE("a row the runner never started is the row's flag, carried by the JSON (a worker's rows reach its parent so)") {
  Report r = sample_report();
  r.rows[0].status = RowStatus::skipped;
  r.rows[0].note = "not run: interrupted";
  r.rows[0].not_run = true;
  r.rows[1].status = RowStatus::skipped;
  r.rows[1].note = "not run: the text alone";  // a note that reads the same is not the flag
  const auto j = nlohmann::json::parse(to_json(r));
  CHECK(j["results"][0]["not_run"] == true);
  CHECK_FALSE(j["results"][1].contains("not_run"));  // written only where set
  const Report back = parse_report(to_json(r));
  CHECK(back.rows[0].not_run);
  CHECK_FALSE(back.rows[1].not_run);
}

TEST_CASE("an incomplete run says so in every file") {
  Report r = sample_report();
  r.meta.incomplete = true;
  r.meta.incomplete_reason = "interrupted (SIGINT) after 1 of 3 problems";
  const auto j = nlohmann::json::parse(to_json(r));
  CHECK(j["complete"] == false);
  CHECK(j["incomplete_reason"] == "interrupted (SIGINT) after 1 of 3 problems");
  CHECK(to_markdown(r).find("Incomplete") != std::string::npos);
  CHECK(to_csv(r).find("# incomplete") != std::string::npos);
}

TEST_CASE("the three report files are written together, whole, with no temporary left behind") {
  const auto dir = std::filesystem::temp_directory_path() / "kl_reports_test";
  std::filesystem::remove_all(dir);
  const auto written = write_reports((dir / "run").string(), sample_report());
  CHECK(written.size() == 3);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    CHECK(e.path().extension() != ".tmp");
    CHECK(e.path().filename().string().find(".XXXXXX") == std::string::npos);
  }
  CHECK(files == 3);
  CHECK(nlohmann::json::parse(std::ifstream(dir / "run.json"))["results"].size() == 2);
  // A directory where a file should go: the write fails and leaves nothing behind.
  std::filesystem::create_directories(dir / "blocked.json");
  CHECK_THROWS(write_file_atomic((dir / "blocked.json").string(), "x"));
  for (const auto& e : std::filesystem::directory_iterator(dir))
    CHECK(e.path().filename().string().rfind("blocked.json.", 0) != 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("files are written whole, with no temporary left behind") {
  const auto dir = std::filesystem::temp_directory_path() / "kl_report_test";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "sub" / "out.json").string();
  write_file_atomic(path, "{\"a\": 1}\n");
  std::ifstream f(path);
  std::string content((std::istreambuf_iterator<char>(f)), {});
  CHECK(content == "{\"a\": 1}\n");
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  CHECK_THROWS(write_file_atomic("/proc/nonexistent/dir/x.json", "x"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a report file gets the permissions of any file its user writes, not the temporary file's 0600") {
  const auto dir = std::filesystem::temp_directory_path() / "kl_report_mode_test";
  std::filesystem::remove_all(dir);
  const mode_t mask = umask(022);
  umask(mask);
  const std::string path = (dir / "out.json").string();
  write_file_atomic(path, "{}\n");
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == (0666 & ~mask));
  CHECK((st.st_mode & 0044) != 0);  // readable by others under the usual umasks (022, 002)
  std::filesystem::remove_all(dir);
}

TEST_CASE("human-readable formats") {
  CHECK(format_time_ms(0.0005) == "500 ns");
  CHECK(format_time_ms(0.0123) == "12.3 us");
  CHECK(format_time_ms(1.25) == "1.250 ms");
  CHECK(format_time_ms(2500) == "2.50 s");
  CHECK(format_percent(0.973) == "97.3%");
  CHECK(format_percent(0) == "-");
}
