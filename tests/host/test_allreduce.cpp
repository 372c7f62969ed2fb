// The allreduce family's host side, on any machine: nccl-tests' metrics (algbw, busbw) and how the
// reports show them; --gpus (parsing, the one-line error when it asks for more GPUs than exist);
// NCCL_NVLS_ENABLE kept at 0 unless the user set it; the family's sizes (elements per GPU, the
// 8 B .. 1 GiB sweep), its per-GPU memory, and its rows skipped with one line below two GPUs (here:
// none at all). Without NCCL, that the family says why it was not built.
// (Figures in this file's comments are unmeasured: the metrics computed for given inputs.)
#include "compare/cli/cli.hpp"
#include "compare/sandbox/submissions.hpp"
#include "compare/core/execute.hpp"
#include "compare/core/family_core.hpp"
#include "compare/families/multi_gpu.hpp"
#include "handwritten/allreduce/allreduce_plan.hpp"
#include "compare/report/report.hpp"
#include "compare_cli.hpp"
#if KL_HAVE_NCCL
#include "compare/families/family_allreduce.hpp"
#endif

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace kl;
using namespace kl::test;

namespace {

std::string usage_error(std::vector<const char*> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("allreduce metrics are nccl-tests': algbw = bytes/time, busbw = algbw·2(G-1)/G") {
  const double bytes = 256.0 * (1 << 20), t = 1e-3;
  CHECK(allreduce_algbw_gbps(bytes, t) == doctest::Approx(bytes / t / 1e9));
  CHECK(allreduce_bus_factor(2) == doctest::Approx(1.0));
  CHECK(allreduce_bus_factor(4) == doctest::Approx(1.5));
  CHECK(allreduce_bus_factor(8) == doctest::Approx(1.75));
  CHECK(allreduce_busbw_gbps(bytes, 2, t) == doctest::Approx(allreduce_algbw_gbps(bytes, t)));
  CHECK(allreduce_busbw_gbps(bytes, 8, t) == doctest::Approx(1.75 * bytes / t / 1e9));
  for (int g : {2, 3, 4, 8}) {
    CAPTURE(g);
    const Metric m = allreduce_metric(bytes, g, 400, "peer copy");
    // The runner's rate (work / time) is busbw, the second rate is algbw, vs ceiling is busbw / peer.
    const double rate = m.rate(m.work, t);
    CHECK(rate == doctest::Approx(allreduce_busbw_gbps(bytes, g, t)));
    CHECK(rate * m.also_factor == doctest::Approx(allreduce_algbw_gbps(bytes, t)));
    CHECK(m.rate_name == "busbw");
    CHECK(m.also_name == "algbw");
    CHECK(m.unit == "GB/s");
    CHECK(m.ceiling == 400);
  }
  // One GPU (every row skipped): a plain bandwidth metric, no division by 2(G-1)/G = 0.
  const Metric one = allreduce_metric(bytes, 1, 0, "");
  CHECK(one.also_name.empty());
  CHECK(one.work == bytes);
}

TEST_CASE("reports show busbw and algbw side by side, and keep them in JSON") {
  Report rep;
  Row r;
  r.family = "allreduce";
  r.dtype = "float";
  r.shape = "n=1024 gpus=4";
  r.dims = {1024};
  r.axes = {{"gpus", "4"}};
  r.variant = "allreduce6_two_shot_vec16";
  r.check.ran = r.check.pass = true;
  r.has_timing = true;
  r.time_ms = {10, 0.01, 0.01, 0.01, 0.01, 0.0};
  r.metric = allreduce_metric(4096, 4, 400, "peer copy 400 GB/s");
  r.throughput = r.metric.rate(r.metric.work, 1e-5);  // busbw 0.6144 GB/s, algbw 0.4096
  rep.rows = {r};
  std::ostringstream table;
  print_table(table, rep);
  INFO(table.str());
  CHECK(table.str().find("busbw and algbw in GB/s") != std::string::npos);
  CHECK(table.str().find(" busbw ") != std::string::npos);
  CHECK(table.str().find(" algbw ") != std::string::npos);
  CHECK(table.str().find("0.6") != std::string::npos);
  CHECK(table.str().find("0.4") != std::string::npos);
  const std::string md = to_markdown(rep);
  CHECK(md.find("busbw GB/s | algbw GB/s") != std::string::npos);
  const auto j = nlohmann::json::parse(row_to_json(r));
  CHECK(j["metric"]["rate_name"] == "busbw");
  CHECK(j["metric"]["also"].get<double>() == doctest::Approx(0.4096));
  const Row back = row_from_json(row_to_json(r));
  CHECK(back.metric.rate_name == "busbw");
  CHECK(back.metric.also_name == "algbw");
  CHECK(back.metric.also_factor == doctest::Approx(r.metric.also_factor));
}

TEST_CASE("NCCL_NVLS_ENABLE is set to 0 when unset, and a value the user set is kept") {
  const char* was = std::getenv("NCCL_NVLS_ENABLE");
  const std::string saved = was ? was : "";
  unsetenv("NCCL_NVLS_ENABLE");
  CHECK(keep_nvlink_multicast_off() == "0");
  REQUIRE(std::getenv("NCCL_NVLS_ENABLE") != nullptr);
  CHECK(std::string(std::getenv("NCCL_NVLS_ENABLE")) == "0");
  CHECK(keep_nvlink_multicast_off() == "0");  // idempotent
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  CHECK(keep_nvlink_multicast_off() == "1");
  if (was) setenv("NCCL_NVLS_ENABLE", saved.c_str(), 1);
  else setenv("NCCL_NVLS_ENABLE", "0", 1);  // as compare's main leaves it
}

TEST_CASE("--gpus: RunOptions, the range, and the one-line error when more are asked than exist") {
  CHECK(parse({"--family", "reduce", "--gpus", "2"}).run.setting("gpus", 0) == 2);
  CHECK(parse({"--family", "reduce"}).run.setting("gpus", 0) == 0);  // every visible one
  for (const char* bad : {"0", "9", "two", "-1"}) {
    const std::string e = usage_error({"--family", "reduce", "--gpus", bad});
    INFO("--gpus " << bad << ": " << e);
    CHECK(e.find("--gpus") != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);
  }
  Plan p = parse({"--family", "reduce", "--gpus", "3"});
  try {
    check_settings(p, 2);
    FAIL("--gpus 3 with 2 devices was accepted");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "--gpus 3: only 2 CUDA devices visible");
  }
  try {
    check_settings(p, 1);
    FAIL("--gpus 3 with 1 device was accepted");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "--gpus 3: only 1 CUDA device visible");
  }
  CHECK_NOTHROW(check_settings(p, 3));
  CHECK_NOTHROW(check_settings(parse({"--family", "reduce"}), 1));  // the default asks for what there is
  RunOptions o;
  CHECK(resolve_gpus(o, 2) == 2);
  CHECK(resolve_gpus(o, 12) == kMaxGpus);
  CHECK(resolve_gpus(o, 0) == 0);
  o.settings["gpus"] = 3;
  CHECK(resolve_gpus(o, 8) == 3);
}

TEST_CASE("--ops: 1 or an even count of at least 4, refused with one line otherwise") {
  CHECK(parse({"--family", "reduce", "--ops", "100"}).run.setting("ops", 1) == 100);
  CHECK(parse({"--family", "reduce"}).run.setting("ops", 1) == 1);
  for (const char* ok : {"1", "4", "100"}) CHECK_NOTHROW(check_settings(parse({"--family", "reduce", "--ops", ok}), 1));
  for (const char* bad : {"2", "3", "5", "99"}) {
    try {
      check_settings(parse({"--family", "reduce", "--ops", bad}), 2);
      FAIL("--ops " << bad << " was accepted");
    } catch (const UsageError& e) {
      const std::string what = e.what();
      CHECK(what.rfind(std::string("--ops ") + bad + ": must be 1, or even and at least 4", 0) == 0);
      CHECK(what.find('\n') == std::string::npos);
    }
  }
  for (const char* bad : {"0", "x", "-2"}) {
    const std::string e = usage_error({"--family", "reduce", "--ops", bad});
    INFO("--ops " << bad << ": " << e);
    CHECK(e.find("--ops") != std::string::npos);
  }
  const Run r = run_compare("--family allreduce --ops 0");
  CHECK(r.code == 2);
  CHECK(count_lines(r.output) == 1);
}

TEST_CASE("allreduce_auto's plan: the LL128 one-shot launched early, the LL128 two-shot on more than two GPUs, "
          "then on two GPUs the push one-shot up to 4 MiB, the 16-byte two-shot to 16 MiB and the push two-shot, "
          "on more GPUs the staggered two-shot; the copy-engine ring for the largest") {
  using namespace kl::allreduce_plan;
  for (int g : {2, 3, 4, 8}) {
    CAPTURE(g);
    CHECK(step_for(4, g, true) == Step::one_shot_ll128_pdl);
    CHECK(step_for(64 << 10, g, true) == Step::one_shot_ll128_pdl);
    CHECK(step_for(std::size_t{1} << 30, g, true) == Step::ring_copy_engines);
    CHECK(step_for(kLine128MaxBytes + 4, g, true) != Step::one_shot_ll128_pdl);  // never past the lines
    CHECK(!two_shot_ll128_fits(std::size_t(g) * kLine128MaxBytes / 2 + 4, g));
    CHECK(step_for(std::size_t(g) * kLine128MaxBytes / 2 + 4, g, true) != Step::two_shot_ll128_pdl);
  }
  // The crossings measured on two and on four H200s (docs/allreduce.md, "allreduce_auto").
  CHECK(step_for(512 << 10, 2, true) == Step::one_shot_ll128_pdl);
  CHECK(step_for(kLine128MaxBytes, 2, true) == Step::one_shot_ll128_pdl);  // every message its lines hold
  CHECK(step_for(kLine128MaxBytes + 4, 2, true) == Step::one_shot_push);     // never the LL128 two-shot on two
  CHECK(step_for(kPushMaxBytes, 2, true) == Step::one_shot_push);
  CHECK(step_for(kPushMaxBytes + 4, 2, true) == Step::two_shot_vec16);
  CHECK(step_for(8 << 20, 2, true) == Step::two_shot_vec16);
  CHECK(step_for(kVec16MaxBytes + 4, 2, true) == Step::two_shot_push);
  CHECK(step_for(std::size_t{32} << 20, 2, true) == Step::two_shot_push);
  CHECK(step_for(kRingMinBytes2 - 4, 2, true) == Step::two_shot_push);
  CHECK(step_for(kRingMinBytes2, 2, true) == Step::ring_copy_engines);  // 256 MiB
  CHECK(step_for(std::size_t{32} << 20, 4, true) == Step::two_shot_staggered);
  CHECK(step_for(kRingMinBytes, 4, true) == Step::two_shot_staggered);
  CHECK(step_for(kRingMinBytes + 4, 4, true) == Step::ring_copy_engines);
  CHECK(step_for(std::size_t{128} << 20, 4, true) == Step::ring_copy_engines);
  CHECK(step_for(256 << 10, 4, true) == Step::one_shot_ll128_pdl);
  CHECK(step_for(512 << 10, 4, true) == Step::two_shot_ll128_pdl);
  CHECK(step_for(kLine128MaxBytes * 2, 4, true) == Step::two_shot_ll128_pdl);  // 3.75 MiB: four chunks of half a slot
  CHECK(step_for(kLine128MaxBytes * 2 + 4, 4, true) == Step::two_shot_staggered);
  CHECK(step_for(64 << 10, 8, true) == Step::one_shot_ll128_pdl);
  CHECK(step_for(128 << 10, 8, true) == Step::two_shot_ll128_pdl);
  // Without NVLink the LL128 steps are never taken: the LL one-shot while 2(G-1)·bytes <= 1.5 MiB
  // (and within its lines), then the same bandwidth steps.
  for (int g : {2, 3, 4, 8}) {
    CAPTURE(g);
    for (std::size_t b : {std::size_t{4}, std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{1} << 30}) {
      CAPTURE(b);
      const Step s = step_for(b, g, false);
      CHECK(s != Step::one_shot_ll128_pdl);
      CHECK(s != Step::two_shot_ll128_pdl);
      if (2 * std::size_t(g - 1) * b <= kLineTrafficMax) CHECK(s == Step::one_shot_ll);
      else if (b > kRingMinBytes2) CHECK(s == Step::ring_copy_engines);
      else CHECK(s == (g == 2 ? Step::one_shot_push : Step::two_shot_staggered));
    }
  }
  CHECK(step_for(kLineMaxBytes + 4, 2, false) == Step::one_shot_push);  // never past the LL lines
}

TEST_CASE("the executable: a bad --gpus exits 2 with one line") {
  for (const char* args : {"--gpus 0", "--gpus 9", "--gpus x --family reduce"}) {
    const Run r = run_compare(args);
    INFO("compare " << args << " -> " << r.output);
    CHECK(r.code == 2);
    CHECK(count_lines(r.output) == 1);
    CHECK(r.output.rfind("compare: error: ", 0) == 0);
  }
}

#if KL_HAVE_NCCL

TEST_CASE("allreduce sizes: elements per GPU, defaults from latency to bandwidth, a sweep from 8 B to 1 GiB") {
  const Plan d = parse({"--family", "allreduce"});
  REQUIRE(d.problems.size() == 4);
  std::vector<long long> bytes;
  for (const auto& pr : d.problems) {
    CHECK(pr.key.dtype == DType::f32);
    bytes.push_back(pr.key.dims.at(0) * 4);
  }
  CHECK(bytes == std::vector<long long>{4 << 10, 256 << 10, 2 << 20, 256 << 20});
  const Plan s = parse({"--family", "allreduce", "--default-sweep"});
  REQUIRE(s.problems.size() == 28);
  CHECK(s.problems.front().key.dims.at(0) * 4 == 8);
  CHECK(s.problems.back().key.dims.at(0) * 4 == (1LL << 30));
  const Plan t = parse({"--family", "allreduce", "-t", "int,float,double", "-s", "1,3,1000003,2^20"});
  CHECK(t.problems.size() == 12);
  CHECK(t.problems[2].key.dims == Dims{1000003});
  for (const char* bad : {"0", "x", "1.5", "2x3"}) {
    const std::string e = usage_error({"--family", "allreduce", "--sizes", bad});
    INFO(bad << ": " << e);
    CHECK(e.find("allreduce size") != std::string::npos);
  }
  const Run r = run_compare("--family allreduce --sizes 0");
  CHECK(r.code == 2);
  CHECK(count_lines(r.output) == 1);
}

TEST_CASE("--list shows the allreduce ladder and NCCL") {
  const std::string text = list_text(SubmissionSet("", 0, 1, 0));
  CHECK(text.find("\nallreduce: ") != std::string::npos);
  for (const char* v : {"allreduce1_through_host", "allreduce2_peer_copy", "allreduce3_one_shot", "allreduce4_two_shot",
                        "allreduce5_one_shot_vec16", "allreduce6_two_shot_vec16", "allreduce7_one_shot_push",
                        "allreduce8_one_shot_ll", "allreduce9_two_shot_push", "allreduce10_one_shot_ll128",
                        "allreduce11_one_shot_ll128_pdl", "allreduce12_two_shot_ll128_pdl",
                        "allreduce13_ring_copy_engines", "allreduce14_two_shot_staggered", "allreduce_auto",
                        "nccl_allreduce [library]"})
    CHECK(text.find(v) != std::string::npos);
}

TEST_CASE("allreduce memory is per GPU and grows with the GPUs the run drives") {
  const Family& f = family<AllreduceFamily>();
  const ProblemKey k = make_key(f, DType::f32, {1024});
  RunOptions o;
  o.settings["gpus"] = 2;
  // in + out (1024 floats each) + the largest workspace: the push's 2 halves × 1 slot.
  CHECK(f.device_bytes(k, o) == 2 * 4096 + 2 * 4096);
  o.settings["gpus"] = 4;
  CHECK(f.device_bytes(k, o) == 2 * 4096 + 2 * 3 * 4096);  // 2 halves × 3 slots
  // A slot is padded to 16 bytes.
  o.settings["gpus"] = 2;
  CHECK(f.device_bytes(make_key(f, DType::f64, {3}), o) == 2 * 24 + 2 * 32);
}

TEST_CASE("allreduce_auto names steps of the ladder, and --ops N is an axis of the row") {
  std::vector<std::string> names;
  for (const auto& v : allreduce_handwritten<float>()) names.emplace_back(v.info.name);
  for (auto s : {allreduce_plan::Step::one_shot_ll, allreduce_plan::Step::one_shot_ll128_pdl, allreduce_plan::Step::two_shot_ll128_pdl,
                 allreduce_plan::Step::one_shot_push, allreduce_plan::Step::two_shot_vec16,
                 allreduce_plan::Step::two_shot_push, allreduce_plan::Step::two_shot_staggered,
                 allreduce_plan::Step::ring_copy_engines})
    CHECK(std::find(names.begin(), names.end(), allreduce_plan::step_name(s)) != names.end());
  const ProblemKey k = make_key(family<AllreduceFamily>(), DType::f32, {1024});
  RunOptions o;
  o.settings["gpus"] = 2;
  CHECK(AllreduceFamily::Problem<float>::run_axes(k, o) == AxisValues{{"gpus", "2"}});
  o.settings["ops"] = 100;
  CHECK(AllreduceFamily::Problem<float>::run_axes(k, o) == AxisValues{{"gpus", "2"}, {"ops", "100"}});
}

namespace {

// A device that runs nothing: enough for a problem whose every variant is skipped.
class NoDevice final : public Timer {
 public:
  cudaStream_t stream() const override { return nullptr; }
  void synchronize() override {}
  Timing sample(const SampleHooks&, const StopRule&, int) override {
    FAIL("nothing should be timed");
    return {};
  }
  std::shared_ptr<void> allocate(std::size_t bytes) override {
    CHECK(bytes == 0);
    return {};
  }
  void poison(void*, std::size_t, int) override {}
  void fill_bytes(void*, std::size_t, unsigned char) override {}
  std::size_t bytes_changed(const void*, std::size_t, unsigned char) override { return 0; }
  void run_captured(const std::function<void(cudaStream_t)>&, const std::function<void()>&) override {
    FAIL("nothing should run");
  }
  bool context_is_dead() override { return false; }
};

}  // namespace

TEST_CASE("below two GPUs every allreduce row is skipped with a one-line reason, the GPUs in its shape") {
  NoDevice timer;
  RunOptions o;
  o.settings["gpus"] = 1;
  DeviceInfo dev;
  RunContext ctx{o, dev, 0, timer};
  const Family& f = family<AllreduceFamily>();
  for (DType t : {DType::i32, DType::f32, DType::f64}) {
    const auto rows = f.run(make_key(f, t, {1000}), ctx);
    CHECK(ctx.fatal.empty());
    REQUIRE(rows.size() == 16);  // fourteen steps, allreduce_auto and NCCL
    for (const Row& r : rows) {
      INFO(r.variant << ": " << status_name(r.status) << " " << r.note);
      CHECK(r.status == RowStatus::skipped);
      CHECK(r.note.find("needs at least 2 GPUs") != std::string::npos);
      CHECK(r.note.find('\n') == std::string::npos);
      CHECK(r.shape == "n=1000 gpus=1");
      CHECK(r.axes == AxisValues{{"gpus", "1"}});
    }
  }
}

#else

TEST_CASE("without NCCL the allreduce family is not built, and says why") {
  const std::string text = list_text(SubmissionSet("", 0, 1, 0));
  CHECK(text.find("\nallreduce: not built: CMake found no NCCL") != std::string::npos);
  const std::string e = usage_error({"--family", "allreduce"});
  CHECK(e.find("family allreduce was not built: CMake found no NCCL") == 0);
  const Run r = run_compare("--family allreduce");
  CHECK(r.code == 2);
  CHECK(count_lines(r.output) == 1);
}

#endif
