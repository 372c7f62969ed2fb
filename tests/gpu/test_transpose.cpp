// transpose: every variant × type against the host transpose (equality) and cuBLAS geam at
// degenerate, odd, prime and partial-tile shapes, and past gridDim.y's 65535 tile rows; the
// element-wise fallback of the 16-byte steps at a shape that would take the vector path; and
// mutants of every variant (B's last row never written, M and N swapped) that must fail.
#include "compare/core/device_memory.hpp"
#include "compare/families/family_transpose.hpp"
#include "gpu_test_support.hpp"

#include <cstring>
#include <type_traits>
#include <utility>

using namespace kl;
using namespace kl::test;

namespace {

struct Shape {
  int M, N;
};

// `loop_shape`: whether to include the cheapest shape past gridDim.y (under QUICK=2, one type is
// enough: the tile-row loop and its barriers do not depend on it, and each of its launches runs
// 65,535 blocks under the sanitizers).
std::vector<Shape> transpose_shapes(bool loop_shape) {
  // 64×132: both sides multiples of 4, so the 16-byte steps take their vector path.
  std::vector<Shape> s = {{1, 1}, {17, 33}, {33, 17}, {31, 1}, {1, 31}, {131, 257}, {64, 132}, {257, 66}};
  // 65,536 + 1 tile rows of 32 (131,073 of 16): past gridDim.y, so every kernel's tile-row loop
  // runs, with its barriers (one column keeps it cheap enough for the sanitizers, whose synccheck
  // is what checks those barriers).
  if (loop_shape || quick() < 2) s.push_back({2097153, 1});
  if (quick() < 2) {
    s.insert(s.end(), {{1, 100003}, {100003, 1}, {4097, 1023}, {1009, 997}, {1000, 1000}});
    // The tile-row loop with several columns, on the element path (3) and on the 16-byte path
    // (2,097,160 × 4: both sides multiples of 4, the last of 65,537 tile rows 8 rows high).
    s.insert(s.end(), {{2097153, 3}, {2097160, 4}});
  }
  if (quick() < 1) s.insert(s.end(), {{2048, 2048}, {16384, 4096}});
  return s;
}

}  // namespace

TEST_CASE_TEMPLATE("every transpose variant passes at every shape", T, float, double) {
  for (Shape s : transpose_shapes(std::is_same_v<T, float>)) {
    CAPTURE(s.M);
    CAPTURE(s.N);
    expect_all_pass(run_family("transpose", dtype_of<T>(), {s.M, s.N}));
  }
}

// The 16-byte steps fall back to element-wise accesses when a row of A or B is not 16-byte
// aligned. Run every variant from buffers shifted by one element, A and B together or either
// alone (each forces the fallback at a shape whose sides are multiples of the vector width; a
// misaligned 16-byte access faults), and require the exact transpose.
TEST_CASE_TEMPLATE("the element-wise fallbacks of the vector steps transpose exactly", T, float, double) {
  const int M = 68, N = 132;
  const std::size_t mn = static_cast<std::size_t>(M) * N;
  std::vector<T> A(mn), want(mn), got(mn);
  fill_random(A.data(), mn, fresh_seed());
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) want[static_cast<std::size_t>(j) * M + i] = A[static_cast<std::size_t>(i) * N + j];
  DeviceArray<T> dA(mn + 1), dB(mn + 1);
  for (const TransposeVariant<T>& v : transpose_handwritten<T>()) {
    CAPTURE(v.info.name);
    for (auto [shift_a, shift_b] : {std::pair{0, 0}, std::pair{1, 1}, std::pair{0, 1}, std::pair{1, 0}}) {
      CAPTURE(shift_a);
      CAPTURE(shift_b);
      KL_CUDA_CHECK(cudaMemcpy(dA.get() + shift_a, A.data(), mn * sizeof(T), cudaMemcpyHostToDevice));
      KL_CUDA_CHECK(cudaMemset(dB.get(), 0xff, (mn + 1) * sizeof(T)));
      if (v.prepare) v.prepare();
      v.launch({dA.get() + shift_a, dB.get() + shift_b, M, N}, nullptr);
      KL_CUDA_CHECK(cudaDeviceSynchronize());
      KL_CUDA_CHECK(cudaMemcpy(got.data(), dB.get() + shift_b, mn * sizeof(T), cudaMemcpyDeviceToHost));
      CHECK(std::memcmp(got.data(), want.data(), mn * sizeof(T)) == 0);
    }
  }
}

TEST_CASE_TEMPLATE("mutants: every transpose variant with B's last row unwritten or M and N swapped fails", T, float, double) {
  const int M = 67, N = quick() < 2 ? 1031 : 133;
  const ProblemKey key = make_key(family<TransposeFamily>(), dtype_of<T>(), {M, N});
  // B's last row is A's last column: transpose A's first N - 1 columns (repacked, so that every
  // variant reads them densely) into B's first N - 1 rows; row N - 1 keeps its poison.
  WithoutLastColumn<T> a_narrow(M, N);
  expect_mutants_fail<TransposeFamily, T>(key, [&](const TransposeArgs<T>& g, cudaStream_t s) {
    auto h = g;
    h.A = a_narrow(g.A, s);
    h.N = N - 1;
    return h;
  }, "B's last row unwritten");
  // A read as N×M: every element lands in the wrong place (M != N, neither 1).
  expect_mutants_fail<TransposeFamily, T>(key, [&](const TransposeArgs<T>& g, cudaStream_t) {
    auto h = g;
    h.M = g.N;
    h.N = g.M;
    return h;
  }, "M and N swapped");
}
