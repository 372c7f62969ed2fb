// Every reduce variant × type against the fp64 reference and against CUB, on fresh random
// inputs at sizes that break every block and tile assumption; plus negative controls that
// prove the validation fails a wrong kernel.
#include "compare/problem_reduce.hpp"
#include "gpu_test_support.hpp"

#include <cub/device/device_reduce.cuh>

using namespace kl;
using namespace kl::test;

namespace {

std::vector<long long> sizes() {
  // 999983: the largest prime below 10^6.
  std::vector<long long> s = {1, 2, 31, 32, 33, 1023, 1025};
  if (quick() < 2) s.push_back(999983);
  if (quick() < 1) s.push_back((1LL << 24) + 3);
  return s;
}

template <class T>
std::vector<Row> run_custom(std::size_t n, std::vector<Candidate> cands, ReduceProblem<T>& p) {
  RunContext ctx = Gpu::get().ctx();
  return execute(*find_family("reduce"), dtype_of<T>(), {static_cast<long long>(n)}, p, cands, ctx, 0);
}

// A library candidate (CUB) so the cross-check has something to compare with.
template <class T>
Candidate cub_candidate() {
  Candidate c;
  c.info = listing_of(reduce_library<T>().at(1).info);
  return c;
}

}  // namespace

TEST_CASE_TEMPLATE("every reduce variant passes at every size", T, int, float, double) {
  for (long long n : sizes()) {
    CAPTURE(n);
    expect_all_pass(run_family("reduce", dtype_of<T>(), {n}));
  }
}

TEST_CASE_TEMPLATE("negative controls: a dropped element or an unwritten output fails", T, int, double) {
  // int is exact and double's bound at 2^20 is ~1e-10 of the sum's scale: one dropped
  // element (magnitude ~0.5 or ~500) must be caught.
  const std::size_t n = (1u << 20) + 7;
  ReduceProblem<T> p(n, fresh_seed(), false, 1.0);
  auto run_cub = [&p](std::size_t count, cudaStream_t s, void* ws, std::size_t ws_bytes) {
    KL_CUDA_CHECK(cub::DeviceReduce::Sum(ws, ws_bytes, p.in(), p.out(), static_cast<std::int64_t>(count), s));
  };
  std::size_t ws_bytes = 0;
  KL_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, ws_bytes, p.in(), p.out(), static_cast<std::int64_t>(n)));

  std::vector<Candidate> cands;
  Candidate good;
  good.info = {"cub_reference_run", "test", "", Source::library};
  good.workspace_bytes = ws_bytes;
  good.rounding_depth = 64;
  good.launch = [&](void* ws, cudaStream_t s) { run_cub(n, s, ws, ws_bytes); };
  cands.push_back(good);

  Candidate drop_last = good;
  drop_last.info = {"drops_the_last_element", "test", "", Source::handwritten};
  drop_last.launch = [&](void* ws, cudaStream_t s) { run_cub(n - 1, s, ws, ws_bytes); };
  cands.push_back(drop_last);

  Candidate no_write = good;
  no_write.info = {"never_writes", "test", "", Source::handwritten};
  no_write.launch = [](void*, cudaStream_t) {};
  cands.push_back(no_write);

  const auto rows = run_custom<T>(n, cands, p);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].status == RowStatus::ok);
  CHECK(rows[1].status == RowStatus::fail);
  CHECK(rows[2].status == RowStatus::fail);
  CHECK_FALSE(rows[2].check.pass);
}

TEST_CASE("negative control: a float sum that is off by more than its bound fails") {
  const std::size_t n = 1000;
  ReduceProblem<float> p(n, fresh_seed(), false, 1.0);
  std::vector<Candidate> cands;
  Candidate off;
  off.info = {"tight_depth_drop_first", "test", "", Source::handwritten};
  off.rounding_depth = 10;  // a tree of height 10 over 1000 values: bound ~6e-7·sum|x| ~ 3e-4
  std::size_t ws_bytes = 0;
  KL_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, ws_bytes, p.in(), p.out(), static_cast<std::int64_t>(n)));
  off.workspace_bytes = ws_bytes;
  off.launch = [&](void* ws, cudaStream_t s) {  // skips element 0 (|x_0| ~ 0.5 >> bound)
    KL_CUDA_CHECK(cub::DeviceReduce::Sum(ws, ws_bytes, p.in() + 1, p.out(), static_cast<std::int64_t>(n - 1), s));
  };
  cands.push_back(off);
  const auto rows = run_custom<float>(n, cands, p);
  CHECK(rows[0].status == RowStatus::fail);
}
