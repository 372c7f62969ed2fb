// Every timed sample on inputs of its own (compare/core/sample_sets.hpp): the device draws a
// sample's set with exactly the host's values for its seed (a sample's reference follows from the
// seed), in every family's layout; consecutive samples never share an address, every slot is drawn
// again before it is used, the probes run on copies of the loaded inputs; and a write into a set's
// inputs during the phase is found afterwards.
#include "compare/core/device_memory.hpp"
#include "compare/core/sample_sets.hpp"
#include "compare/families/family_dot.hpp"
#include "compare/families/family_matvec.hpp"
#include "compare/families/family_product.hpp"
#include "compare/families/family_reduce.hpp"
#include "compare/families/family_rows.hpp"
#include "compare/families/family_transpose.hpp"
#include "gpu_test_support.hpp"

#include <set>
#include <string>
#include <vector>

using namespace kl;
using namespace kl::test;

namespace {

// Slot 1 drawn on the device from `seed` against slot 0 loaded by the host from the same seed:
// every input the same bits.
template <class F, class T>
void expect_device_draws_the_host_set(const ProblemKey& key) {
  RunContext ctx = Gpu::get().ctx();
  typename F::template Problem<T> p(key, ctx);
  const std::uint64_t seed = fresh_seed();
  p.load_inputs(InputKind::random, seed);
  REQUIRE(p.has_sets());
  REQUIRE(p.prepare_sets(1) == 1);
  p.fill_set(1, seed, nullptr);
  KL_CUDA_CHECK(cudaDeviceSynchronize());
  const auto host = p.input_regions();
  p.use_set(1);
  const auto drawn = p.input_regions();
  REQUIRE(host.size() == drawn.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    CAPTURE(i);
    CHECK(host[i].ptr != drawn[i].ptr);
    CHECK(count_differences(host[i].ptr, drawn[i].ptr, host[i].bytes) == 0);
  }
  CHECK(p.release_sets().empty());
}

}  // namespace

TEST_CASE("a timed sample's set drawn on the device holds the host's values for its seed, in every layout") {
  const Family& reduce = family<ReduceFamily>();
  for (long long n : {1LL, 31LL, 1000003LL}) {
    CAPTURE(n);
    expect_device_draws_the_host_set<ReduceFamily, int>(make_key(reduce, DType::i32, {n}));
    expect_device_draws_the_host_set<ReduceFamily, float>(make_key(reduce, DType::f32, {n}));
    expect_device_draws_the_host_set<ReduceFamily, double>(make_key(reduce, DType::f64, {n}));
  }
  expect_device_draws_the_host_set<DotFamily, float>(make_key(family<DotFamily>(), DType::f32, {100003}));
  expect_device_draws_the_host_set<DotFamily, int>(make_key(family<DotFamily>(), DType::i32, {33}));
  expect_device_draws_the_host_set<GemmFamily, float>(make_key(family<GemmFamily>(), DType::f32, {37, 41, 67}));
  expect_device_draws_the_host_set<GemmFamily, double>(make_key(family<GemmFamily>(), DType::f64, {37, 41, 67}));
  expect_device_draws_the_host_set<AatFamily, float>(make_key(family<AatFamily>(), DType::f32, {31, 33}));
  expect_device_draws_the_host_set<GemvFamily, double>(make_key(family<GemvFamily>(), DType::f64, {97, 33}));
  expect_device_draws_the_host_set<TransposeFamily, float>(make_key(family<TransposeFamily>(), DType::f32, {31, 1009}));
  for (const char* layout : {"packed", "pitched"})
    for (const char* op : {"row_sum", "row_max", "row_min"}) {
      CAPTURE(layout);
      CAPTURE(op);
      const ProblemKey key = make_key(family<RowsFamily>(), DType::f32, {37, 31}, {{"op", op}, {"layout", layout}});
      expect_device_draws_the_host_set<RowsFamily, float>(key);
    }
}

TEST_CASE("the samples' sets: no address twice in a row, a fresh draw before every use, probes on the loaded inputs") {
  RunContext ctx = Gpu::get().ctx();
  const ProblemKey key = make_key(family<ReduceFamily>(), DType::f32, {100003});
  ReduceFamily::Problem<float> p(key, ctx);
  p.load_inputs(InputKind::random, fresh_seed());
  const void* loaded = p.input_regions().front().ptr;
  std::vector<float> first(1);
  auto value0 = [&] {
    KL_CUDA_CHECK(cudaDeviceSynchronize());
    KL_CUDA_CHECK(cudaMemcpy(first.data(), p.input_regions().front().ptr, sizeof(float), cudaMemcpyDeviceToHost));
    return first[0];
  };
  const float loaded_value = value0();
  SampleSets::Options o;
  o.root = 12345;
  o.probes = 6;
  o.probe_window = 40;
  int poisoned = 0;
  o.poison = [&](cudaStream_t, int) { ++poisoned; };
  o.sync = [] { KL_CUDA_CHECK(cudaDeviceSynchronize()); };
  SampleSets sets(p, o);
  REQUIRE(sets.slots() == SampleSets::kSlots);
  const void* last = nullptr;
  std::set<float> values;
  int probes = 0;
  for (long long j = -2; j < 40; ++j) {
    sets.prepare(nullptr, j, false);
    const void* at = p.input_regions().front().ptr;
    CHECK(at != last);  // no two samples in a row on one address
    CHECK(at != loaded);
    last = at;
    if (sets.probe(j)) {
      ++probes;
      CHECK(value0() == loaded_value);
    } else {
      values.insert(value0());
    }
  }
  sets.prepare(nullptr, 40, true);
  CHECK(sets.probe(40));
  CHECK(p.input_regions().front().ptr != last);
  CHECK(value0() == loaded_value);
  CHECK(probes == 6);
  CHECK(poisoned == 43);
  CHECK(values.size() >= 34);  // a draw of its own for every fresh sample (a collision of first values is rare)
  CHECK(sets.finish(nullptr).empty());
  CHECK(p.input_regions().front().ptr == loaded);
}

TEST_CASE("a write into a sample's inputs during the phase is found after it") {
  RunContext ctx = Gpu::get().ctx();
  const ProblemKey key = make_key(family<ReduceFamily>(), DType::f32, {4099});
  ReduceFamily::Problem<float> p(key, ctx);
  p.load_inputs(InputKind::random, fresh_seed());
  SampleSets::Options o;
  o.root = 7;
  o.sync = [] { KL_CUDA_CHECK(cudaDeviceSynchronize()); };
  SampleSets sets(p, o);
  REQUIRE(sets.slots() > 0);
  sets.prepare(nullptr, 0, false);
  KL_CUDA_CHECK(cudaDeviceSynchronize());
  KL_CUDA_CHECK(cudaMemset(p.input_regions().front().ptr, 0, 16));
  const std::string damage = sets.finish(nullptr);
  INFO(damage);
  CHECK(damage.find("wrote to its input 0 (read-only) in a timed sample: 4 of its 4099 elements changed") != std::string::npos);
}
