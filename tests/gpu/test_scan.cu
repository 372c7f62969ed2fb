// Every scan variant × type × form against the fp64 reference in every element, the exact-input
// check and CUB, at sizes that break every tile and window assumption (1, 31, 33, primes, one past
// a tile, enough tiles for look-back walks of several windows, 2^31 + 7 for 64-bit indices where
// memory allows); every variant from bases that are and are not 16-byte aligned (the vector path
// and the element path), exactly and without a write outside its output; mutants of every
// variant (an element dropped, the prefix shifted by one element, the last element dropped, the
// output never written) that must fail; a float scan off by more than its bound must fail too;
// and an outside submission's scan graded through compare.
#include "compare/core/device_memory.hpp"
#include "compare/core/host_memory.hpp"
#include "compare/families/family_scan.hpp"
#include "gpu_test_support.hpp"

#include <cub/device/device_scan.cuh>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <vector>

using namespace kl;
using namespace kl::test;

namespace {

using Scan = TypedFamily<ScanFamily>;

const std::vector<std::string> kForms = {"inclusive", "exclusive"};

std::vector<long long> sizes() {
  // 300007: 37 tiles of 8192 (scan7, scan8) and 98 of 3072 (scan9's 128x96B, cub_block_scan), so a
  // look-back may walk past a window.
  // Under the sanitizers (quick 2): still 1, odd sizes, one past a tile, and the look-back's windows.
  if (quick() >= 2) return {1, 31, 33, 1025, 8193, 300007};
  std::vector<long long> s = {1, 2, 31, 32, 33, 1023, 1024, 1025, 3073, 8191, 8193, 100003, 300007, 999983};
  s.push_back(1050627);  // 1025 · 1025 + 2: three levels of 1024-element tiles in scan2 to scan5
  if (quick() < 1) s.push_back((1LL << 24) + 3);
  return s;
}

// scan1 is one block: it declares every n above 1024 unsupported.
bool declared_unsupported(const Row& r) { return r.variant == "scan1_hillis_steele" && r.dims.at(0) > 1024; }

long long mutant_size() { return quick() < 2 ? (1LL << 20) + 7 : 100003; }

// Whether problem k fits this GPU and this host by the runner's own accounting (device_bytes, and
// host_bytes against MemAvailable: the runner refuses what does not fit), with an eighth and the
// L2 flush's buffer to spare.
bool fits(const ProblemKey& k) {
  const Family& f = family<ScanFamily>();
  const RunOptions o;
  std::size_t free_dev = 0, total_dev = 0;
  if (cudaMemGetInfo(&free_dev, &total_dev) != cudaSuccess) return false;
  const auto host = host_available_bytes();
  const auto spare = [](std::size_t b) { return b + b / 8 + (std::size_t{512} << 20); };
  return spare(f.device_bytes(k, o)) < free_dev && (!host || spare(f.host_bytes(k, o)) < *host);
}

}  // namespace

TEST_CASE_TEMPLATE("every scan variant passes at every size, in both forms", T, int, float, double) {
  for (long long n : sizes())
    for (const std::string& form : kForms) {
      CAPTURE(n);
      CAPTURE(form);
      expect_all_pass(run_family("scan", dtype_of<T>(), {n}, {{"form", form}}), declared_unsupported);
    }
}

TEST_CASE("scan past 2^31 elements: 64-bit indices everywhere (float inclusive, int exclusive)") {
  if (quick() > 0) return;  // the full suite only: minutes, tens of GB of host memory
  const long long n = (1LL << 31) + 7;
  if (!fits(make_key(family<ScanFamily>(), DType::f32, {n}, {{"form", "inclusive"}})) ||
      !fits(make_key(family<ScanFamily>(), DType::i32, {n}, {{"form", "exclusive"}}))) {
    MESSAGE("scan at 2^31 + 7 skipped: not enough free device or host memory here");
    return;
  }
  expect_all_pass(run_family("scan", DType::f32, {n}, {{"form", "inclusive"}}), declared_unsupported);
  expect_all_pass(run_family("scan", DType::i32, {n}, {{"form", "exclusive"}}), declared_unsupported);
}

TEST_CASE_TEMPLATE("mutants: every scan variant with an element dropped or its prefix shifted fails", T, int, float,
                   double) {
  for (const std::string& form : kForms) {
    CAPTURE(form);
    const ProblemKey key = make_key(family<ScanFamily>(), dtype_of<T>(), {mutant_size()}, {{"form", form}});
    const std::size_t n = static_cast<std::size_t>(mutant_size());
    // An interior element read as 0 (every later prefix off by it; ints and the exact set have no zeros
    // at this size), at an index no tile boundary of any step falls on.
    WithElementZeroed<T> zeroed(n);
    expect_mutants_fail<ScanFamily, T>(key, [&](const ScanArgs<T>& a, cudaStream_t s) {
      auto b = a;
      b.in = zeroed(a.in, n / 2 + 5, s);
      return b;
    }, "an interior element dropped");
    // The other form: every element's prefix shifted by one element.
    expect_mutants_fail<ScanFamily, T>(key, [](const ScanArgs<T>& a, cudaStream_t) {
      auto b = a;
      b.form = a.form == ScanForm::inclusive ? ScanForm::exclusive : ScanForm::inclusive;
      return b;
    }, "prefix shifted by one element (the other form)");
    expect_mutants_fail<ScanFamily, T>(key, [](const ScanArgs<T>& a, cudaStream_t) {
      auto b = a;
      b.n -= 1;  // the last element neither read nor written
      return b;
    }, "last element dropped");
  }
}

TEST_CASE_TEMPLATE("mutants: every scan variant writing elsewhere leaves its poisoned output and fails", T, int, double) {
  const std::size_t n = 4099;
  DeviceArray<T> elsewhere(n);
  expect_mutants_fail<ScanFamily, T>(make_key(family<ScanFamily>(), dtype_of<T>(), {static_cast<long long>(n)}),
                                     [&](const ScanArgs<T>& a, cudaStream_t) {
                                       auto b = a;
                                       b.out = elsewhere.get();
                                       return b;
                                     },
                                     "output never written");
}

TEST_CASE("a float scan off by more than its bound fails the random check") {
  const std::size_t n = 1000;
  RunContext ctx = Gpu::get().ctx();
  const ProblemKey key = make_key(family<ScanFamily>(), DType::f32, {static_cast<long long>(n)}, {{"form", "inclusive"}});
  Scan::P<float> p(key, ctx);
  Candidate off;
  off.info = {"exclusive_for_inclusive", "test", "", Source::handwritten};
  off.rounding_depth = 10;  // a tree of height 10: bound ~6e-7·sum|x_0..x_i|, far below |x_i| ~ 0.5
  std::size_t ws_bytes = 0;
  KL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, ws_bytes, static_cast<const float*>(nullptr),
                                              static_cast<float*>(nullptr), static_cast<int>(n)));
  off.workspace_bytes = ws_bytes;
  off.launch = [&](void* ws, cudaStream_t s) {  // every element one term short
    const auto a = p.args(ws);
    KL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws, ws_bytes, a.in, a.out, static_cast<int>(n), s));
  };
  std::vector<Candidate> cands = {off};
  const auto rows = execute(Scan{}.proto_row(key), p, cands, ctx, fresh_seed());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == RowStatus::fail);
  CHECK_FALSE(rows[0].check.pass);
  CHECK_FALSE(rows[0].exact_check.pass);
}

// Every variant's output from bases shifted by 0 to 3 elements (in and out independently: the
// 16-byte path only where both are aligned), on integer-valued inputs whose prefixes are exact in
// any order: equal to the host's prefix in every element, and the elements around the output
// untouched.
TEST_CASE_TEMPLATE("scan variants agree exactly at every base alignment and write nothing outside their output", T, int,
                   float, double) {
  const std::vector<std::size_t> ns = quick() >= 2 ? std::vector<std::size_t>{1, 33, 3073, 100003}
                                                   : std::vector<std::size_t>{1, 33, 1025, 3073, 8193, 100003, 300007};
  constexpr std::size_t kPad = 8;
  const T guard = static_cast<T>(-7777);  // no prefix of the inputs below can reach it
  for (std::size_t n : ns) {
    std::vector<T> x(n);
    fill_exact(x.data(), n, fresh_seed(), ExactValues{3, 1});
    DeviceArray<T> in(n + kPad), out(n + 2 * kPad);
    std::vector<T> got(n + 2 * kPad);
    for (const std::string& form_name : kForms) {
      const ScanForm form = parse_scan_form(form_name);
      std::vector<double> want(n);
      double run = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (form == ScanForm::inclusive) run += static_cast<double>(x[i]);
        want[i] = run;
        if (form == ScanForm::exclusive) run += static_cast<double>(x[i]);
      }
      for (std::size_t sin : {0u, 1u, 3u})
        for (std::size_t sout : {0u, 2u}) {
          KL_CUDA_CHECK(cudaMemcpy(in.get() + sin, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
          auto all = scan_handwritten<T>();
          for (const auto& l : scan_library<T>()) all.push_back(l);
          for (const ScanVariant<T>& v : all) {
            const ScanShape sh{n, form};
            if (v.unsupported && v.unsupported(sh)) continue;
            CAPTURE(v.info.name);
            CAPTURE(n);
            CAPTURE(form_name);
            CAPTURE(sin);
            CAPTURE(sout);
            std::vector<T> fill(n + 2 * kPad, guard);
            KL_CUDA_CHECK(cudaMemcpy(out.get(), fill.data(), fill.size() * sizeof(T), cudaMemcpyHostToDevice));
            DeviceArray<unsigned char> ws(v.workspace_bytes ? v.workspace_bytes(sh) : 0);
            if (ws.get()) KL_CUDA_CHECK(cudaMemset(ws.get(), 0xff, v.workspace_bytes(sh)));  // undefined on entry
            if (v.prepare) v.prepare();
            v.launch({in.get() + sin, out.get() + kPad - sout, n, form, ws.get()}, nullptr);
            KL_CUDA_CHECK(cudaDeviceSynchronize());
            KL_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
            std::size_t wrong = 0, outside = 0;
            const std::size_t first = kPad - sout;
            for (std::size_t i = 0; i < got.size(); ++i) {
              if (i >= first && i < first + n) wrong += !(static_cast<double>(got[i]) == want[i - first]);
              else outside += !(got[i] == guard);
            }
            CHECK(wrong == 0);
            CHECK(outside == 0);
          }
        }
    }
  }
}

TEST_CASE("an outside submission's scan: dave's kernels graded through compare, the right one passes, the wrong one fails") {
  const auto dir = scratch_dir("kl_scan_user");
  const char* env = std::getenv("KL_COMPARE_EXE");
  const std::string exe = std::string(env && *env ? env : KL_COMPARE_EXE) + " --submissions " + KL_EXAMPLES_MANIFEST;
  const int code = std::system((exe + " -f scan -t float,int -s 1000,100003 -a form=inclusive,exclusive -v 'dave/*'"
                                      " --max-time 0.05 --min-samples 3 --out " + dir.string() + " --name scan >/dev/null 2>&1")
                                   .c_str());
  REQUIRE(WIFEXITED(code));
  CHECK(WEXITSTATUS(code) == 1);  // block_only is wrong past one tile
  std::ifstream f(dir / "scan.json");
  REQUIRE(f.good());
  const auto j = nlohmann::json::parse(f);
  int right = 0, wrong = 0;
  for (const auto& r : j["results"]) {
    const std::string v = r["variant"];
    CAPTURE(v);
    CAPTURE(r["shape"].get<std::string>());
    CAPTURE(r["dtype"].get<std::string>());
    if (v == "dave/two_pass") {
      CHECK(r["status"] == "ok");
      ++right;
    }
    if (v == "dave/block_only") {
      if (r["shape"].get<std::string>().rfind("n=1000 ", 0) == 0) CHECK(r["status"] == "ok");
      else CHECK(r["status"] == "FAIL");
      ++wrong;
    }
  }
  CHECK(right == 8);  // 2 types × 2 sizes × 2 forms
  CHECK(wrong == 8);
  std::filesystem::remove_all(dir);
}
