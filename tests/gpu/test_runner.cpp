// The runner as a user meets it, through the real executable on the GPU: a variant that faults
// loses only its own row, under --isolate and by default alike (the report is complete, the exit
// status says a variant failed); with --stop-on-fault the run stops with a valid, incomplete report
// (exit 4); Ctrl-C leaves a valid, incomplete report (exit 130).
#include "gpu_test_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

std::string compare_exe() {
  const char* env = std::getenv("KL_COMPARE_EXE");
  return env && *env ? env : KL_COMPARE_EXE;
}

std::filesystem::path scratch(const char* name) { return kl::test::scratch_dir("kl_runner_" + std::string(name)); }

int run(const std::string& args) {
  const int status = std::system((compare_exe() + " " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

nlohmann::json load(const std::filesystem::path& p) {
  std::ifstream f(p);
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}

// The JSON row of (shape, variant).
const nlohmann::json* find(const nlohmann::json& j, const std::string& shape, const std::string& variant) {
  for (const auto& r : j["results"])
    if (r["shape"] == shape && r["variant"] == variant) return &r;
  return nullptr;
}

// Under compute-sanitizer the injected faults would be reported as the suite's own errors: these
// cases run in the plain suite only, the quick one included (keyed to KL_GPU_SUITE_QUICK=2 they
// once hid a bug there). Whoever runs the suite under the sanitizer says so with
// KL_GPU_SUITE_SANITIZER=1 (scripts/device.sh does; cuda-python's tests do the same).
bool under_sanitizer() {
  const char* s = std::getenv("KL_GPU_SUITE_SANITIZER");
  return s && std::string(s) == "1";
}

const char* kProblems = "-f reduce -t float -s 4096,100003 -v 'reduce3*,reduce7*' --max-time 0.05 --min-samples 3";

}  // namespace

// A run in which the injected fault lost only its own row: complete, exit 1, every other row ok.
void expect_one_row_lost(const char* kind, const std::string& mode) {
  CAPTURE(kind);
  CAPTURE(mode);
  const auto dir = scratch(kind);
  const int code = run(std::string(kProblems) + " " + mode + " --inject-fault " + kind + " --out " + dir.string() + " --name iso");
  CHECK(code == 1);  // a variant failed; nothing else
  const auto j = load(dir / "iso.json");
  CHECK(j["complete"] == true);
  for (const char* shape : {"n=4096", "n=100003"}) {
    CAPTURE(shape);
    const auto* fault = find(j, shape, std::string("test_fault_") + kind);
    REQUIRE(fault != nullptr);
    CHECK((*fault)["status"] == "ERROR");
    for (const char* v : {"reduce3_sequential_addressing", "reduce7_vectorized_shuffle", "cub_device_reduce_sum"}) {
      CAPTURE(v);
      const auto* r = find(j, shape, v);
      REQUIRE(r != nullptr);
      CHECK((*r)["status"] == "ok");
      CHECK((*r).contains("timing_ms"));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("--isolate: a variant that faults loses only its own row") {
  if (under_sanitizer()) return;
  for (const char* kind : {"oob", "trap"}) expect_one_row_lost(kind, "--isolate");
}

TEST_CASE("the watchdog: under --isolate a kernel that never ends costs its own row; without, one line and exit 5") {
  if (under_sanitizer()) return;
  const auto dir = scratch("hang");
  const int code = run(std::string(kProblems) + " --isolate --phase-timeout 3 --inject-fault hang --out " + dir.string() +
                       " --name iso");
  CHECK(code == 1);
  const auto j = load(dir / "iso.json");
  CHECK(j["complete"] == true);
  for (const char* shape : {"n=4096", "n=100003"}) {
    CAPTURE(shape);
    const auto* hang = find(j, shape, "test_fault_hang");
    REQUIRE(hang != nullptr);
    CHECK((*hang)["status"] == "ERROR");
    CHECK((*hang)["note"].get<std::string>().find("timed out after 3 s") != std::string::npos);
    const auto* r = find(j, shape, "reduce7_vectorized_shuffle");
    REQUIRE(r != nullptr);
    CHECK((*r)["status"] == "ok");
  }
  const std::string plain = compare_exe() + " " + kProblems + " --phase-timeout 3 --inject-fault hang --no-files 2>&1 >/dev/null";
  FILE* p = popen(plain.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string err;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) err += buf;
  const int status = pclose(p);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);
  CHECK(err.find("test_fault_hang") != std::string::npos);
  CHECK(err.find("did not finish within 3 s") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("by default a fault costs one row: the run goes on in child processes") {
  if (under_sanitizer()) return;
  for (const char* kind : {"oob", "trap"}) expect_one_row_lost(kind, "");
}

TEST_CASE("--stop-on-fault: a fault stops the run with a valid, incomplete report") {
  if (under_sanitizer()) return;
  const auto dir = scratch("fatal");
  const int code = run(std::string(kProblems) + " --stop-on-fault --inject-fault oob --out " + dir.string() + " --name fatal");
  CHECK(code == 4);
  const auto j = load(dir / "fatal.json");
  CHECK(j["complete"] == false);
  CHECK(j["incomplete_reason"].get<std::string>().find("unusable") != std::string::npos);
  // Every variant of a problem is validated (exact inputs) before any is timed, so the fault, in
  // the first phase, strands the others of its problem: each keeps its row, marked not run.
  const auto* stranded = find(j, "n=4096", "reduce3_sequential_addressing");
  REQUIRE(stranded != nullptr);
  CHECK((*stranded)["status"] == "skipped");
  CHECK((*stranded)["note"].get<std::string>().find("unusable") != std::string::npos);
  const auto* fault = find(j, "n=4096", "test_fault_oob");
  REQUIRE(fault != nullptr);
  CHECK((*fault)["status"] == "ERROR");
  CHECK(find(j, "n=100003", "reduce3_sequential_addressing") == nullptr);  // never reached
  for (const auto& e : std::filesystem::directory_iterator(dir)) CHECK(e.path().extension() != ".tmp");
  std::filesystem::remove_all(dir);
}

TEST_CASE("Ctrl-C leaves a valid, incomplete report and exit status 130") {
  if (under_sanitizer()) return;
  const auto dir = scratch("sigint");
  const std::string cmd = compare_exe() + " -f gemm -t float -s 1000,1001,1002,1003,1004,1005,1006,1007 --out " +
                          dir.string() + " --name int -q";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::seconds(4));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const auto j = load(dir / "int.json");
  CHECK(j["complete"] == false);
  CHECK(j["incomplete_reason"].get<std::string>().find("interrupted") != std::string::npos);
  CHECK(j["results"].size() > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("kernels from outside the tree: the examples' verdicts and the summary table") {
  const auto dir = scratch("user");
  const std::string exe = compare_exe() + " --submissions " + KL_EXAMPLES_MANIFEST;
  const std::string common = " -t float --max-time 0.05 --min-samples 3 --out " + dir.string();
  const int gemv = std::system((exe + " -f gemv -s 300x257 -v 'carol/*'" + common + " --name gemv >/dev/null 2>&1").c_str());
  CHECK(WIFEXITED(gemv));
  CHECK(WEXITSTATUS(gemv) == 0);
  const auto g = load(dir / "gemv.json");
  // The whole class named (docs/your-kernel.md, "A class folder"): carol has no sum, erin does not
  // compile, frank registers a name twice; none of them stops the grading of alice and bob.
  const int code = std::system((exe + " -f reduce -s 1000,100003 -v 'alice/*,bob/*,carol/*,erin/*,frank/*'" + common +
                                " --summary --name user >/dev/null 2>&1").c_str());
  CHECK(WIFEXITED(code));
  CHECK(WEXITSTATUS(code) == 1);  // bob's kernel is wrong, erin and frank are left out
  auto j = load(dir / "user.json");
  for (const auto& r : g["results"]) j["results"].push_back(r);
  int alice = 0, bob = 0, carol = 0;
  for (const auto& r : j["results"]) {
    const std::string v = r["variant"];
    CAPTURE(v);
    CAPTURE(r["shape"].get<std::string>());
    if (v == "alice/warp_atomic") {
      CHECK(r["status"] == "ok");
      ++alice;
    }
    if (v == "carol/warp_per_row") {
      CHECK(r["status"] == "ok");
      ++carol;
    }
    if (v == "bob/shared_tree") {
      CHECK(r["status"] == "FAIL");
      CHECK(r["note"].get<std::string>().find("exact inputs") != std::string::npos);
      ++bob;
    }
  }
  CHECK(alice == 2);
  CHECK(bob == 2);
  CHECK(carol == 1);
  std::ifstream md(dir / "user.summary.md");
  REQUIRE(md.good());
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  CHECK(text.find("| alice | alice/warp_atomic | reduce | passed | 2/2") != std::string::npos);
  CHECK(text.find("| bob | bob/shared_tree | reduce | FAIL: reduce float n=1000: exact inputs") != std::string::npos);
  CHECK(text.find("| carol | carol/* |  | not graded: no variant in reduce (float); it registers gemv: warp_per_row (float, double) |") !=
        std::string::npos);
  CHECK(text.find("| erin | erin/* |  | left out: does not compile: erin/reduce_block_sum.cu(") != std::string::npos);
  CHECK(text.find("| frank | frank/* |  | left out: frank/reduce_two_grids.cu:") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "user.summary.csv"));
  std::filesystem::remove_all(dir);
}
