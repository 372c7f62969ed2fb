// gemv and gevm: every variant × type at odd, degenerate and vector-aligned shapes (each path
// of the launch plans: lanes or tile width fitted to N, split rows or slabs, every lane count of
// the second pass); the 16-byte-capable shapes from unaligned pointers (the element fallback);
// bitwise-repeatable results from the split steps; mutants of every variant, on the element and
// on the 16-byte path (the sum one term short, the first or the last element of x dropped, the
// last output never written) that must fail.
#include "compare/families/family_matvec.hpp"
#include "gpu_test_support.hpp"

#include <cstring>
#include <utility>

using namespace kl;
using namespace kl::test;

namespace {

struct Shape {
  int M, N;
};

// The shapes and the paths they reach (floats; doubles have half the items per 16 bytes):
//   1×1, 1×100003, 100003×1   degenerate; gemv6 splits 1×100003 into 391 segments (32-lane
//                             second pass), gevm 100003×1 into 49 slabs of one-column tiles
//   31×33, 33×31, 1009×997    no block, tile or vector width divides them (element path)
//   3×4, 67×132, 1000×500     16-byte path, partial tiles and rounds
//   130×2, 300×12, 300×7, 300×20   1, 2, 4, 8, 16 lanes per row / column items per tile
//   5×40000, 64×65536         gemv: few long rows, split (gemv6: a 4- or 8-lane second pass);
//                             gemv7 a block per row and split
//   1009×997, 33×1999, 200×3201   gemv7: 2, 4 and 8 warps per row
//   200×3201, 2000×97         gevm: 3 and 21 slabs (a 1- and a 4-lane second pass)
//   1009×997, 4097×1023       gevm: 16 and 43 slabs (a 2- and an 8-lane second pass)
//   2500×2000                 document 003's largest
std::vector<Shape> shapes() {
  std::vector<Shape> s = {{1, 1},   {1, 100003}, {100003, 1}, {31, 33}, {33, 31},   {3, 4},      {67, 132},  {300, 7},
                          {300, 12}, {300, 20},  {130, 2},    {5, 40000}, {33, 1999}, {200, 3201}, {2000, 97}};
  if (quick() < 2) s.insert(s.end(), {{1009, 997}, {4097, 1023}, {1000, 500}, {64, 65536}});
  if (quick() < 1) s.push_back({2500, 2000});
  return s;
}

template <class F>
const TypedFamily<F>& typed() {
  return static_cast<const TypedFamily<F>&>(family<F>());
}

// Runs every variant of F on problem `key` with its arguments rewritten by `hook`; all must pass.
template <class F, class T>
void expect_all_pass_with(const ProblemKey& key, typename TypedFamily<F>::template ArgsHook<T> hook) {
  RunContext ctx = Gpu::get().ctx();
  const auto rows = typed<F>().template run_typed<T>(key, ctx, hook);
  REQUIRE(ctx.fatal.empty());
  expect_all_pass(rows);
}

// Length of x for a family: N for gemv (y = A·x), M for gevm (y = x·A).
template <class F>
int x_length(int M, int N) {
  return std::is_same_v<F, GemvFamily> ? N : M;
}

}  // namespace

TEST_CASE_TEMPLATE("every gemv and gevm variant passes at every shape", T, float, double) {
  for (const char* fam : {"gemv", "gevm"}) {
    for (Shape s : shapes()) {
      CAPTURE(fam);
      CAPTURE(s.M);
      CAPTURE(s.N);
      expect_all_pass(run_family(fam, dtype_of<T>(), {s.M, s.N}));
    }
  }
}

// N a multiple of the vector width but A, x or both one element past a 16-byte boundary: the
// launchers must take the element path wherever a 16-byte load would be misaligned (gemv reads
// x as 16-byte items too, so an unaligned x alone must force it; gevm reads x by element) and
// still be right. A misaligned 16-byte load faults, so a missing condition cannot pass.
TEST_CASE_TEMPLATE("shapes the 16-byte path could take pass from unaligned pointers", T, float, double) {
  auto run = [](auto tag, Shape s, int shift_a, int shift_x) {
    using F = typename decltype(tag)::type;
    CAPTURE(F::name);
    CAPTURE(s.M);
    CAPTURE(s.N);
    CAPTURE(shift_a);
    CAPTURE(shift_x);
    const std::size_t mn = static_cast<std::size_t>(s.M) * s.N, xn = x_length<F>(s.M, s.N);
    DeviceArray<T> a(mn + 1), x(xn + 1);
    expect_all_pass_with<F, T>(make_key(family<F>(), dtype_of<T>(), {s.M, s.N}),
                               [&](const MatVecArgs<T>& g, cudaStream_t st) {
                                 KL_CUDA_CHECK(cudaMemcpyAsync(a.get() + shift_a, g.A, mn * sizeof(T),
                                                               cudaMemcpyDeviceToDevice, st));
                                 KL_CUDA_CHECK(cudaMemcpyAsync(x.get() + shift_x, g.x, xn * sizeof(T),
                                                               cudaMemcpyDeviceToDevice, st));
                                 auto h = g;
                                 h.A = a.get() + shift_a;
                                 h.x = x.get() + shift_x;
                                 return h;
                               });
  };
  for (Shape s : std::vector<Shape>{{67, 132}, {5, 40000}, {2000, 96}}) {
    for (auto [shift_a, shift_x] : {std::pair{1, 1}, std::pair{0, 1}, std::pair{1, 0}}) {
      run(TypeTag<GemvFamily>{}, s, shift_a, shift_x);
      run(TypeTag<GevmFamily>{}, s, shift_a, shift_x);
    }
  }
}

// The split steps add their partials in a fixed order: the same inputs give the same bits,
// whatever the workspace held before and however the blocks were scheduled. Every output starts
// as NaN and must come out finite.
TEST_CASE_TEMPLATE("every variant gives the same bits twice", T, float, double) {
  auto run = [](auto tag, Shape s) {
    using F = typename decltype(tag)::type;
    const std::size_t mn = static_cast<std::size_t>(s.M) * s.N, xn = x_length<F>(s.M, s.N);
    const std::size_t yn = std::is_same_v<F, GemvFamily> ? s.M : s.N;
    std::vector<T> A(mn), x(xn);
    fill_random(A.data(), mn, fresh_seed());
    fill_random(x.data(), xn, fresh_seed());
    DeviceArray<T> dA(mn), dx(xn), dy(yn);
    KL_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), mn * sizeof(T), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemcpy(dx.get(), x.data(), xn * sizeof(T), cudaMemcpyHostToDevice));
    for (const auto& v : F::template handwritten<T>()) {
      CAPTURE(F::name);
      CAPTURE(v.info.name);
      CAPTURE(s.M);
      CAPTURE(s.N);
      const std::size_t ws_bytes = v.workspace_bytes ? v.workspace_bytes({s.M, s.N}) : 0;
      DeviceArray<unsigned char> ws(ws_bytes);
      std::vector<T> first(yn), second(yn);
      for (int pass : {0, 1}) {
        if (ws_bytes) KL_CUDA_CHECK(cudaMemset(ws.get(), pass ? 0x00 : 0xff, ws_bytes));
        KL_CUDA_CHECK(cudaMemset(dy.get(), 0xff, yn * sizeof(T)));
        if (v.prepare) v.prepare();
        v.launch({dA.get(), dx.get(), dy.get(), s.M, s.N, ws.get()}, nullptr);
        KL_CUDA_CHECK(cudaDeviceSynchronize());
        KL_CUDA_CHECK(cudaMemcpy((pass ? second : first).data(), dy.get(), yn * sizeof(T), cudaMemcpyDeviceToHost));
      }
      std::size_t nonfinite = 0, differ = 0;
      for (std::size_t i = 0; i < yn; ++i) {
        nonfinite += !std::isfinite(first[i]) || !std::isfinite(second[i]);
        differ += std::memcmp(&first[i], &second[i], sizeof(T)) != 0;
      }
      CHECK(nonfinite == 0);
      CHECK(differ == 0);
    }
  };
  for (Shape s : std::vector<Shape>{{1, 100003}, {5, 40000}, {100003, 1}, {2000, 97}, {1009, 997}}) {
    run(TypeTag<GemvFamily>{}, s);
    run(TypeTag<GevmFamily>{}, s);
  }
}

// Mutants of every variant (the library's too), each caught by the exact-input check. 131×1031:
// the element path everywhere; gemv6 splits its rows into 3 segments, gemv7 gives a row 4 warps
// and gevm its rows 2 slabs, so those paths are among the ones that must fail. 131×1032: the
// same mutants on the 16-byte path (N a multiple of 4 floats and of 2 doubles; gevm still 2
// slabs), with the last element of x dropped too, the 16-byte path's last item.
std::vector<Shape> mutant_shapes() { return {{131, 1031}, {131, 1032}}; }

TEST_CASE_TEMPLATE("mutants: every gemv variant with the sum one short, an end of x dropped or the last row unwritten fails",
                   T, float, double) {
  for (Shape sh : mutant_shapes()) {
    const int M = sh.M, N = sh.N;
    CAPTURE(M);
    CAPTURE(N);
    const ProblemKey key = make_key(family<GemvFamily>(), dtype_of<T>(), {M, N});
    // N one short with A's first N - 1 columns repacked densely: y_i misses A[i][N-1]·x[N-1].
    WithoutLastColumn<T> a_short(M, N);
    WithElementZeroed<T> x_dropped(N);
    expect_mutants_fail<GemvFamily, T>(key, [&](const MatVecArgs<T>& g, cudaStream_t s) {
      auto h = g;
      h.A = a_short(g.A, s);
      h.N = N - 1;
      return h;
    }, "sum one term short");
    // x[0] = 0, then x[N-1] = 0: every y_i misses A[i][0]·x[0] (A[i][N-1]·x[N-1]); x's edge
    // elements are never zero in exact inputs.
    for (int dropped : {0, N - 1}) {
      CAPTURE(dropped);
      expect_mutants_fail<GemvFamily, T>(key, [&](const MatVecArgs<T>& g, cudaStream_t s) {
        auto h = g;
        h.x = x_dropped(g.x, dropped, s);
        return h;
      }, "an end of x dropped");
    }
    // The last row never computed: y[M-1] keeps its poison.
    expect_mutants_fail<GemvFamily, T>(key, [&](const MatVecArgs<T>& g, cudaStream_t) {
      auto h = g;
      h.M = M - 1;
      return h;
    }, "last output unwritten");
  }
}

TEST_CASE_TEMPLATE("mutants: every gevm variant with the sum one short, an end of x dropped or the last column unwritten "
                   "fails",
                   T, float, double) {
  for (Shape sh : mutant_shapes()) {
    const int M = sh.M, N = sh.N;
    CAPTURE(M);
    CAPTURE(N);
    const ProblemKey key = make_key(family<GevmFamily>(), dtype_of<T>(), {M, N});
    WithoutLastColumn<T> a_narrow(M, N);
    WithElementZeroed<T> x_dropped(M);
    // M one short: A's first M - 1 rows keep their pitch; y_j misses x[M-1]·A[M-1][j].
    expect_mutants_fail<GevmFamily, T>(key, [&](const MatVecArgs<T>& g, cudaStream_t) {
      auto h = g;
      h.M = M - 1;
      return h;
    }, "sum one term short");
    for (int dropped : {0, M - 1}) {
      CAPTURE(dropped);
      expect_mutants_fail<GevmFamily, T>(key, [&](const MatVecArgs<T>& g, cudaStream_t s) {
        auto h = g;
        h.x = x_dropped(g.x, dropped, s);
        return h;
      }, "an end of x dropped");
    }
    // N one short with A's first N - 1 columns repacked: y[N-1] keeps its poison.
    expect_mutants_fail<GevmFamily, T>(key, [&](const MatVecArgs<T>& g, cudaStream_t s) {
      auto h = g;
      h.A = a_narrow(g.A, s);
      h.N = N - 1;
      return h;
    }, "last output unwritten");
  }
}
