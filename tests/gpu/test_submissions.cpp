// The red team of outside submissions (tests/redteam/), graded as any outside folder is: one
// `compare --submissions` call over the whole folder. Every planted submission must get its honest
// verdict with its reason, a kernel that never ends must cost its own ERROR row and nothing more,
// and the honest submissions beside them must pass at the speed they have graded alone.
#include "gpu_test_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <sys/wait.h>

namespace {

using nlohmann::json;

std::string exe() {
  const char* env = std::getenv("KL_COMPARE_EXE");
  return std::string(env && *env ? env : KL_COMPARE_EXE) + " --submissions " + KL_REDTEAM_MANIFEST;
}

std::filesystem::path scratch() { return kl::test::scratch_dir("kl_redteam"); }

int run(const std::string& args) {
  const int status = std::system((exe() + " " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json load(const std::filesystem::path& p) {
  std::ifstream f(p);
  REQUIRE(f.good());
  return json::parse(f);
}

// (shape, variant) -> row
std::map<std::pair<std::string, std::string>, json> rows_of(const json& j) {
  std::map<std::pair<std::string, std::string>, json> m;
  for (const json& r : j.at("results")) m[{r.at("shape").get<std::string>(), r.at("variant").get<std::string>()}] = r;
  return m;
}

constexpr const char* kBig = "n=16777217";
constexpr const char* kSmall = "n=1000";

}  // namespace

TEST_CASE("the red team graded as an outside folder: every case its honest verdict, the honest ones unchanged") {
  const auto dir = scratch();
  const std::string common = " -t float --phase-timeout 5 --max-time 0.3 --out " + dir.string();
  // The honest sum, product and matrix-vector product graded alone: the speed each must keep
  // beside the planted submissions.
  REQUIRE(run("-f reduce -s 16777217 -v 'honest_sum/*'" + common + " --name alone") == 0);
  REQUIRE(run("-f gemm -s 255x257x4099 -v 'honest_gemm/*'" + common + " --name alone_gemm") == 0);
  REQUIRE(run("-f gemv -s 4097x1023 -v 'honest_gemv/*'" + common + " --name alone_gemv") == 0);
  const auto alone = rows_of(load(dir / "alone.json"));
  const auto alone_gemm = rows_of(load(dir / "alone_gemm.json"));
  const auto alone_gemv = rows_of(load(dir / "alone_gemv.json"));
  // Everything at once (exit 1: planted submissions fail).
  const int code = run("-f reduce -s 1000,16777217 -v '*/*'" + common + " --summary --name reduce");
  CHECK(code == 1);
  const auto rows = rows_of(load(dir / "reduce.json"));
  REQUIRE(run("-f gemm -s 255x257x4099 -v '*/*'" + common + " --name gemm") == 1);
  const auto gemm = rows_of(load(dir / "gemm.json"));
  run("-f gemv -s 4097x1023 -v '*/*'" + common + " --name gemv");
  const auto gemv = rows_of(load(dir / "gemv.json"));

  auto row = [&](const std::map<std::pair<std::string, std::string>, json>& m, const std::string& shape,
                 const std::string& v) -> json {
    const auto it = m.find({shape, v});
    if (it == m.end()) {
      FAIL_CHECK("no row for " << v << " at " << shape);
      return json::object();
    }
    return it->second;
  };
  auto expect_in = [&](const std::map<std::pair<std::string, std::string>, json>& m, const std::string& shape,
                       const std::string& v, const std::string& status, const std::string& why) {
    const json r = row(m, shape, v);
    CAPTURE(shape);
    CAPTURE(v);
    CAPTURE(r.dump());
    CHECK(r.value("status", "") == status);
    if (!why.empty()) CHECK(r.value("note", "").find(why) != std::string::npos);
  };
  auto expect = [&](const std::string& shape, const std::string& v, const std::string& status, const std::string& why) {
    expect_in(rows, shape, v, status, why);
  };
  auto median = [&](const std::map<std::pair<std::string, std::string>, json>& m, const std::string& shape,
                    const std::string& v) { return row(m, shape, v).at("timing_ms").at("median").get<double>(); };
  for (const char* shape : {kSmall, kBig}) {
    for (const char* honest : {"honest_sum/sum", "clash_a/sum", "clash_b/sum", "noisy_init/sum", "capture_aware/sum",
                               "cache_hints/sum"})
      expect(shape, honest, "ok", "");
    expect(shape, "guard_memo/sum", "FAIL", "wrote past the end of its input 0");
    expect(shape, "write_before/sum", "FAIL", "wrote before the start of its output");
    expect(shape, "host_graph/sum", "FAIL", "did work on the host");
    expect(shape, "input_mutation/sum", "FAIL", "wrote to its input 0");
    expect(shape, "spin/sum", "ERROR", "timed out after 5 s");
    expect(shape, "counter_cache/sum", "FAIL", "");
    expect(shape, "registry_tamper/sum", "FAIL", "");
    expect(shape, "persist_window/sum", "FAIL", "access-policy window");
    expect(shape, "stream_window/sum", "FAIL", "access-policy window");
    expect(shape, "priority_node/sum", "FAIL", "priority");
    expect(shape, "left_running/sum", "FAIL", "left a kernel running after .prepare");
    expect(shape, "inf_late/sum", "FAIL", "got inf");
    expect(shape, "thread_start/sum", "FAIL", "started a thread of its own");
    expect(shape, "escaped_child/sum", "FAIL", "started a process of its own");
    expect(shape, "limit_in_launch/sum", "FAIL", "other than enqueue work");
    for (const auto& [key, r] : rows)
      if (key.first == shape && r.value("source", "") == "library") {
        CAPTURE(key.second);
        CHECK(r.value("status", "") == "ok");
      }
  }
  // Fast only on inputs it has seen (the probes): caught where the sum costs more than a lookup.
  expect(kBig, "content_cache/sum", "FAIL", "ran faster on inputs it had already seen");
  expect(kBig, "transform_cache_sum/sum", "FAIL", "ran faster on inputs it had already seen");
  expect_in(gemm, "255x257x4099", "transform_cache_gemm/cached", "FAIL", "ran faster on inputs it had already seen");
  // The capture-aware one is timed on what was captured: no faster than the honest sum; the cache
  // hints carry nothing across the flush: no faster either.
  const double honest = median(rows, kBig, "honest_sum/sum");
  CHECK(median(rows, kBig, "capture_aware/sum") > 0.85 * honest);
  CHECK(median(rows, kBig, "cache_hints/sum") > 0.9 * honest);
  // The honest sum, product and matrix-vector product beside the red team run at the speed they
  // ran alone.
  const double solo = median(alone, kBig, "honest_sum/sum");
  CHECK(honest < 1.10 * solo);
  CHECK(honest > solo / 1.10);
  const double gemm_beside = median(gemm, "255x257x4099", "honest_gemm/tiled16");
  const double gemm_solo = median(alone_gemm, "255x257x4099", "honest_gemm/tiled16");
  CHECK(gemm_beside < 1.10 * gemm_solo);
  CHECK(gemm_beside > gemm_solo / 1.10);
  expect_in(gemv, "4097x1023", "honest_gemv/warp_per_row", "ok", "");
  const double gemv_beside = median(gemv, "4097x1023", "honest_gemv/warp_per_row");
  const double gemv_solo = median(alone_gemv, "4097x1023", "honest_gemv/warp_per_row");
  CHECK(gemv_beside < 1.10 * gemv_solo);
  CHECK(gemv_beside > gemv_solo / 1.10);
  // TF32 with the exact inputs recognised: its error against the library's on the same inputs.
  const json tf32 = row(gemm, "255x257x4099", "tf32_exact_detect/tf32");
  CAPTURE(tf32.dump());
  CHECK(tf32.value("status", "") == "FAIL");
  CHECK(tf32.value("note", "").find("times the library's") != std::string::npos);
  CHECK(row(gemm, "255x257x4099", "honest_gemm/tiled16").value("status", "") == "ok");
  // The summary names every submission left out, with its reason.
  std::ifstream md(dir / "reduce.summary.md");
  REQUIRE(md.good());
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  CHECK(text.find("debug_only") != std::string::npos);
  CHECK(text.find("does not compile: debug_only/sum.cu") != std::string::npos);
  CHECK(text.find("unknown family 'reduc'") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a kernel left running costs its row within seconds, not a watchdog's stall per problem") {
  const auto dir = scratch();
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(run("-f reduce -t float -s 1000,16777217,1000003 -v 'left_running/*' --phase-timeout 20 --max-time 0.3 --out " +
            dir.string() + " --name left") == 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(seconds < 15.0);  // three problems: a sandbox start and a one-second check each
  for (const auto& [key, r] : rows_of(load(dir / "left.json")))
    if (key.second == "left_running/sum") {
      CAPTURE(key.first);
      CHECK(r.value("status", "") == "FAIL");
      CHECK(r.value("note", "").find("left a kernel running after .prepare") != std::string::npos);
    }
  std::filesystem::remove_all(dir);
}
