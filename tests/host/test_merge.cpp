// compare merge: the shards of a graded folder joined into one report. A submission's rows come from
// one shard; the same submission graded in two reports is refused, never one grade kept silently;
// library and ladder rows every shard times again are kept once, and the merge says so; reports of
// different GPUs are said once and named as mixed; the exit status is documented and kept.
#include "compare/report/merge.hpp"
#include "compare/report/schema.hpp"

#include "compare_cli.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

using namespace kl;

namespace {

Row row_of(const std::string& variant, Source source, RowStatus status = RowStatus::ok) {
  Row r;
  r.family = "reduce";
  r.dtype = "float";
  r.shape = "n=1000";
  r.dims = {1000};
  r.variant = variant;
  r.source = source;
  r.status = status;
  return r;
}

Report report_on(const std::string& gpu, std::vector<Row> rows) {
  Report r;
  r.meta.has_device = true;
  r.meta.device.name = gpu;
  r.meta.device.sm_count = 132;
  r.meta.git_commit = "abc123";
  r.rows = std::move(rows);
  return r;
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace

TEST_CASE("merge: shards join; a library row every shard timed is kept once and counted") {
  const Report a = report_on("H100", {row_of("cub_device_reduce_sum", Source::library), row_of("alice/warp_atomic", Source::handwritten)});
  const Report b = report_on("H100", {row_of("cub_device_reduce_sum", Source::library), row_of("bob/shared_tree", Source::handwritten)});
  MergeNotes notes;
  const Report m = merge_reports({a, b}, {"a.json", "b.json"}, notes);
  REQUIRE(m.rows.size() == 3);
  CHECK(m.rows[1].variant == "alice/warp_atomic");
  CHECK(m.rows[2].variant == "bob/shared_tree");
  CHECK(notes.copies_dropped == 1);
  CHECK(notes.mixed_gpus.empty());
  REQUIRE(notes.lines().size() == 1);
  CHECK(notes.lines()[0].find("1 library or ladder rows were in more than one report") == 0);
  CHECK(m.meta.device.name == "H100");
}

TEST_CASE("merge: the same submission's row in two reports is refused, naming the row and both reports") {
  const Report a = report_on("H100", {row_of("alice/warp_atomic", Source::handwritten), row_of("alice/other", Source::handwritten)});
  MergeNotes notes;
  try {
    merge_reports({a, a}, {"first.json", "second.json"}, notes);
    FAIL("merging a report with itself must be refused");
  } catch (const MergeRefused& e) {
    const std::string what = e.what();
    CHECK(what.find("reduce float n=1000 alice/warp_atomic is in first.json and in second.json (and 1 more rows of submissions)") == 0);
  }
}

TEST_CASE("merge: reports of different GPUs are named as mixed, once; incomplete parts say why once each") {
  Report a = report_on("NVIDIA H100 80GB HBM3", {row_of("alice/warp_atomic", Source::handwritten)});
  Report b = report_on("NVIDIA H200", {row_of("bob/shared_tree", Source::handwritten)});
  a.meta.incomplete = true;
  a.meta.incomplete_reason = "interrupted";
  MergeNotes notes;
  const Report m = merge_reports({a, b}, {"a.json", "b.json"}, notes);
  CHECK(notes.mixed_gpus == "NVIDIA H100 80GB HBM3, NVIDIA H200");
  CHECK(m.meta.device.name == "mixed GPUs: NVIDIA H100 80GB HBM3, NVIDIA H200");
  CHECK(m.meta.device.sm_count == 0);  // nothing of one GPU is said of the others
  CHECK(m.meta.incomplete);
  CHECK(m.meta.incomplete_reason == "interrupted");
  CHECK(to_markdown(m).find("- device: mixed GPUs: NVIDIA H100 80GB HBM3, NVIDIA H200\n") != std::string::npos);
}

TEST_CASE("compare merge: a submission in two reports exits 2 with one line; mixed GPUs warn once; --help says the exit status") {
  const std::string dir = scratch("kl_merge_test");
  const Report a = report_on("NVIDIA H100 80GB HBM3", {row_of("cub_device_reduce_sum", Source::library), row_of("alice/warp_atomic", Source::handwritten)});
  const Report b = report_on("NVIDIA H200", {row_of("cub_device_reduce_sum", Source::library),
                                              row_of("bob/shared_tree", Source::handwritten, RowStatus::fail)});
  write_reports(dir + "/a", a);
  write_reports(dir + "/b", b);
  const std::string exe = test::compare_exe() + " merge ";
  const test::Run twice = test::run_shell(exe + dir + "/a.json " + dir + "/a.json --out " + dir + "/m2 2>&1 >/dev/null");
  CHECK(twice.code == 2);
  CHECK(test::count_lines(twice.output) == 1);
  CHECK(twice.output.find("compare merge: error: reduce float n=1000 alice/warp_atomic is in ") == 0);
  CHECK_FALSE(std::filesystem::exists(dir + "/m2/compare.json"));
  const test::Run mixed = test::run_shell(exe + dir + "/a.json " + dir + "/b.json --out " + dir + "/m 2>&1 >/dev/null");
  CHECK(mixed.code == 1);  // bob's row failed
  CHECK(test::count_lines(mixed.output) == 2);  // the library row kept once, the GPUs: one line each
  CHECK(mixed.output.find("different GPUs (NVIDIA H100 80GB HBM3, NVIDIA H200)") != std::string::npos);
  CHECK(load_report(dir + "/m/compare.json").meta.device.name == "mixed GPUs: NVIDIA H100 80GB HBM3, NVIDIA H200");
  const test::Run help = test::run_shell(exe + "--help");
  CHECK(help.code == 0);
  CHECK(help.output.find("Exit status: 0 every row of the merged report passed") != std::string::npos);
  std::filesystem::remove_all(dir);
}
