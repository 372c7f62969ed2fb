// Every dot variant × type against the fp64 reference, the exact-input check and the library, at
// sizes that break every block and tile assumption (document 004's 1024 and 1025 among them) and
// past 2^31 elements; document 004's own inputs; every variant at every relative alignment of x
// and y (the 16-byte path, its head peeling, and the element path when x and y cannot be read as
// vectors together); mutants (an element dropped at either end, the output never written) that
// must fail.
#include "compare/core/device_memory.hpp"
#include "compare/families/family_dot.hpp"
#include "gpu_test_support.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace kl;
using namespace kl::test;

namespace {

std::vector<long long> sizes() {
  // 63..65, 1023..1025: one block of 004's TPB = 64 or of 256-thread kernels, exactly and off by
  // one; 100003 (prime) keeps the multi-pass and multi-block paths under the sanitizers.
  std::vector<long long> s = {1, 2, 31, 32, 33, 63, 64, 65, 1000, 1023, 1024, 1025, 100003};
  if (quick() < 2) s.push_back(999983);
  if (quick() < 1) s.push_back((1LL << 24) + 3);
  return s;
}

long long mutant_size() { return quick() < 2 ? (1LL << 20) + 7 : 100003; }

// cuBLAS has no integer dot product, and documents no summation order: past 2^23 - 1 floats the
// bound for any order, a chain of n, means nothing (library_baselines/dot_library.cu). It says so.
bool declared_unsupported(const Row& r) {
  if (r.variant != "cublas_dot") return false;
  return r.dtype == "int" || (r.dtype == "float" && !r.dims.empty() && r.dims.at(0) + 1 >= (1LL << 23));
}

}  // namespace

TEST_CASE_TEMPLATE("every dot variant passes at every size", T, int, float, double) {
  for (long long n : sizes()) {
    CAPTURE(n);
    expect_all_pass(run_family("dot", dtype_of<T>(), {n}), declared_unsupported);
  }
}

TEST_CASE("every dot variant handles more than 2^31 elements (float)") {
  if (quick() >= 1) return;
  // 2^31 + 3: 64-bit indices and grids past 2^31 threads. Document 004's atomics fold one float
  // partial per 64 products serially, 33.5 million of them: no error bound holds (gamma >= 1),
  // so those two declare the size unsupported, and so does cuBLAS (no documented order, and the
  // any-order bound, n, means nothing here); everything else must pass.
  const auto rows = run_family("dot", DType::f32, {(1LL << 31) + 3});
  expect_all_pass(rows, [](const Row& r) {
    return r.variant == "dot_atomic_serial_block" || r.variant == "dot_atomic_tree" || declared_unsupported(r);
  });
}

TEST_CASE("document 004's inputs: a = 2, b = 1 at N = 1024 and 1025 give 2N in every variant") {
  for (std::size_t n : {std::size_t{1024}, std::size_t{1025}}) {
    CAPTURE(n);
    std::vector<int> a(n, 2), b(n, 1);
    DeviceArray<int> da(n), db(n), out(1);
    KL_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    for (const DotVariant<int>& v : dot_handwritten<int>()) {
      CAPTURE(v.info.name);
      DeviceArray<unsigned char> ws(v.workspace_bytes ? v.workspace_bytes(n) : 0);
      KL_CUDA_CHECK(cudaMemset(out.get(), 0x5e, sizeof(int)));
      if (v.prepare) v.prepare();
      v.launch({da.get(), db.get(), n, out.get(), ws.get()}, nullptr);
      KL_CUDA_CHECK(cudaDeviceSynchronize());
      int got = 0;
      KL_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof(int), cudaMemcpyDeviceToHost));
      CHECK(got == static_cast<int>(2 * n));
    }
  }
}

// The 16-byte path needs x and y at the same offset from a 16-byte boundary; it peels the
// elements before it. Every variant runs from x and y shifted by (0, 0), (1, 1), (3, 3) (peeled
// heads), (1, 0), (0, 3), (2, 1) (no common alignment: element loads) on integer-valued inputs
// whose sum is exact in any order: every result must equal the exact sum.
TEST_CASE_TEMPLATE("every dot variant at every relative alignment of x and y", T, int, float, double) {
  const std::size_t n = quick() < 2 ? 1000003 : 10007;
  std::vector<T> x(n), y(n);
  const ExactValues e = exact_values<T>(static_cast<double>(n), 2);
  fill_exact(x.data(), n, fresh_seed(), e);
  fill_exact(y.data(), n, fresh_seed(), e);
  long long exact = 0;
  for (std::size_t i = 0; i < n; ++i) exact += static_cast<long long>(x[i]) * static_cast<long long>(y[i]);
  DeviceArray<T> dx(n + 4), dy(n + 4), out(1);
  for (const auto& v : dot_handwritten<T>()) {
    CAPTURE(v.info.name);
    DeviceArray<unsigned char> ws(v.workspace_bytes ? v.workspace_bytes(n) : 0);
    for (auto [ox, oy] : std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {3, 3}, {1, 0}, {0, 3}, {2, 1}}) {
      CAPTURE(ox);
      CAPTURE(oy);
      KL_CUDA_CHECK(cudaMemcpy(dx.get() + ox, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      KL_CUDA_CHECK(cudaMemcpy(dy.get() + oy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      KL_CUDA_CHECK(cudaMemset(out.get(), 0xff, sizeof(T)));  // NaN, or -1 for int
      if (v.prepare) v.prepare();
      v.launch({dx.get() + ox, dy.get() + oy, n, out.get(), ws.get()}, nullptr);
      KL_CUDA_CHECK(cudaDeviceSynchronize());
      T got{};
      KL_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
      CHECK(static_cast<double>(got) == static_cast<double>(exact));
    }
  }
}

TEST_CASE_TEMPLATE("mutants: every dot variant with an element dropped fails", T, int, float, double) {
  const ProblemKey key = make_key(family<DotFamily>(), dtype_of<T>(), {mutant_size()});
  expect_mutants_fail<DotFamily, T>(key, [](const DotArgs<T>& a, cudaStream_t) {
    auto b = a;
    b.n -= 1;  // the last product
    return b;
  }, "last element dropped");
  expect_mutants_fail<DotFamily, T>(key, [](const DotArgs<T>& a, cudaStream_t) {
    auto b = a;
    b.x += 1;  // the first product (x and y stay co-aligned)
    b.y += 1;
    b.n -= 1;
    return b;
  }, "first element dropped");
  expect_mutants_fail<DotFamily, T>(key, [](const DotArgs<T>& a, cudaStream_t) {
    auto b = a;
    b.x += 1;  // x_{i+1}·y_i: every product misplaced, and x no longer co-aligned with y
    b.n -= 1;
    return b;
  }, "x shifted by one");
}

TEST_CASE_TEMPLATE("mutants: every dot variant writing elsewhere leaves its poisoned output and fails", T, int, double) {
  expect_unwritten_output_fails<DotFamily, T>(make_key(family<DotFamily>(), dtype_of<T>(), {4099}));
}
