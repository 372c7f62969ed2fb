// table: the GPU fp64 reference against the host one; every variant at n = 1, 255, 257, 2^20 + 1,
// 1000003 and 2^24 + 3 (where the index no longer converts to float exactly) for several steps,
// within its error model's bound and the library's; a step so large that no bound means anything
// must fail, saying so; mutants of every variant (the last element never written, a step off by
// one part in 1024) that must fail.
#include "compare/core/device_memory.hpp"
#include "compare/families/family_table.hpp"
#include "gpu_test_support.hpp"

#include <cmath>

using namespace kl;
using namespace kl::test;

TEST_CASE("the GPU fp64 table reference agrees with the host one") {
  for (double step : {1e-5, 0.37, 1.0, 12345.0}) {
    const std::size_t n = 70001;
    CAPTURE(step);
    std::vector<double> href(n), hx(n), gref(n), gx(n);
    reference_table_host(step, n, href.data(), hx.data());
    DeviceArray<double> dref(n), dx(n);
    reference_table_device(step, n, dref.get(), dx.get());
    KL_CUDA_CHECK(cudaMemcpy(gref.data(), dref.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(gx.data(), dx.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(gx[i] == hx[i]);  // sqrt is correctly rounded on both
      REQUIRE(std::fabs(gref[i] - href[i]) <= 2 * table_reference_error(hx[i]));
    }
  }
}

TEST_CASE("every table variant passes at every size and step") {
  std::vector<long long> sizes = {1, 255, 257, 4099};
  if (quick() < 2) sizes.insert(sizes.end(), {(1LL << 20) + 1, 1000003});
  if (quick() < 1) sizes.push_back((1LL << 24) + 3);
  for (const char* step : {"1e-3", "0.37", "1", "1e-5"}) {
    for (long long n : sizes) {
      CAPTURE(step);
      CAPTURE(n);
      expect_all_pass(run_family("table", DType::f32, {n}, {{"step", step}}));
    }
  }
}

TEST_CASE("a table whose bound says nothing fails every variant, saying why") {
  // sqrt(1e12 · 9999) ≈ 1e8: the float argument alone is uncertain by several radians.
  const auto rows = run_family("table", DType::f32, {10000}, {{"step", "1e12"}});
  REQUIRE_FALSE(rows.empty());
  for (const Row& r : rows) {
    INFO(r.variant << ": " << status_name(r.status) << " " << r.note);
    CHECK(r.status == RowStatus::fail);
    CHECK(r.note.find("not meaningful") != std::string::npos);
  }
}

TEST_CASE("mutants: every table variant with its last element unwritten or a wrong step fails") {
  const long long n = quick() < 2 ? 100003 : 4099;
  const ProblemKey key = make_key(family<TableFamily>(), DType::f32, {n}, {{"step", "1e-3"}});
  expect_mutants_fail<TableFamily, float>(key, [](const TableArgs<float>& a, cudaStream_t) {
    auto h = a;
    h.n = a.n - 1;
    return h;
  }, "last element unwritten");
  // sqrt(step·i) off by one part in 2^11: at i = n - 1 (x ≈ 10, or 2 in quick mode) the sine
  // moves by up to 5e-3 (1e-3), hundreds of times any variant's bound there.
  expect_mutants_fail<TableFamily, float>(key, [](const TableArgs<float>& a, cudaStream_t) {
    auto h = a;
    h.step = a.step * (1.0f + 0x1p-10f);
    return h;
  }, "step off by 2^-10");
}
