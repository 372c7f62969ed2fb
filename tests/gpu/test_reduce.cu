// Every reduce variant × type against the fp64 reference, the exact-input check and CUB, on
// fresh random inputs at sizes that break every block and tile assumption; mutants of every
// variant (an element dropped, the output never written) that must fail; a float result off by
// more than its bound must fail too.
#include "compare/families/family_reduce.hpp"
#include "gpu_test_support.hpp"

#include <cub/device/device_reduce.cuh>

using namespace kl;
using namespace kl::test;

namespace {

using Reduce = TypedFamily<ReduceFamily>;

std::vector<long long> sizes() {
  // 999983: the largest prime below 10^6. 100003 (prime) keeps reduce7/8 and the CUB kernels on
  // their multi-block paths under the sanitizers.
  std::vector<long long> s = {1, 2, 31, 32, 33, 1023, 1025, 100003};
  if (quick() < 2) s.push_back(999983);
  if (quick() < 1) s.push_back((1LL << 24) + 3);
  return s;
}

// Large enough for every kernel's multi-pass / multi-block path, small enough for the sanitizers.
long long mutant_size() { return quick() < 2 ? (1LL << 20) + 7 : 100003; }

}  // namespace

TEST_CASE_TEMPLATE("every reduce variant passes at every size", T, int, float, double) {
  for (long long n : sizes()) {
    CAPTURE(n);
    expect_all_pass(run_family("reduce", dtype_of<T>(), {n}));
  }
}

TEST_CASE_TEMPLATE("mutants: every reduce variant with an element dropped fails", T, int, float, double) {
  const ProblemKey key = make_key(family<ReduceFamily>(), dtype_of<T>(), {mutant_size()});
  expect_mutants_fail<ReduceFamily, T>(key, [](const ReduceArgs<T>& a, cudaStream_t) {
    auto b = a;
    b.n -= 1;  // the last element
    return b;
  }, "last element dropped");
  expect_mutants_fail<ReduceFamily, T>(key, [](const ReduceArgs<T>& a, cudaStream_t) {
    auto b = a;
    b.in += 1;  // the first element
    b.n -= 1;
    return b;
  }, "first element dropped");
}

TEST_CASE_TEMPLATE("mutants: every reduce variant writing elsewhere leaves its poisoned output and fails", T, int, double) {
  expect_unwritten_output_fails<ReduceFamily, T>(make_key(family<ReduceFamily>(), dtype_of<T>(), {4099}));
}

TEST_CASE("a float sum that is off by more than its bound fails the random check") {
  const std::size_t n = 1000;
  RunContext ctx = Gpu::get().ctx();
  const ProblemKey key = make_key(family<ReduceFamily>(), DType::f32, {static_cast<long long>(n)});
  Reduce::P<float> p(key, ctx);
  Candidate off;
  off.info = {"tight_depth_drop_first", "test", "", Source::handwritten};
  off.rounding_depth = 10;  // a tree of height 10 over 1000 values: bound ~6e-7·sum|x| ~ 3e-4
  std::size_t ws_bytes = 0;
  KL_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, ws_bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                                       static_cast<std::int64_t>(n)));
  off.workspace_bytes = ws_bytes;
  off.launch = [&](void* ws, cudaStream_t s) {  // skips element 0 (|x_0| ~ 0.5 >> bound)
    const auto a = p.args(ws);
    KL_CUDA_CHECK(cub::DeviceReduce::Sum(ws, ws_bytes, a.in + 1, a.out, static_cast<std::int64_t>(n - 1), s));
  };
  std::vector<Candidate> cands = {off};
  const auto rows = execute(Reduce{}.proto_row(key), p, cands, ctx, fresh_seed());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == RowStatus::fail);
  CHECK_FALSE(rows[0].check.pass);
  CHECK_FALSE(rows[0].exact_check.pass);
}
