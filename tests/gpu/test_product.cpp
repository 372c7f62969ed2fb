// gemm and aat: the GPU fp64 reference against the host one; every variant × type at shapes
// that no tile divides; mutants of every variant (k one short with A's leading dimension kept,
// one element of A dropped, the last row never written) that must fail.
#include "compare/core/tune_measure.hpp"
#include "compare/families/family_product.hpp"
#include "gpu_test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

using namespace kl;
using namespace kl::test;

namespace {

struct Shape {
  int M, N, K;
};

std::vector<Shape> gemm_shapes() {
  // 68×132×100: N and K multiples of 4 (the 16-byte copies) with k split in 2 by the split-K
  // variants and gemm_auto, at every QUICK level (the other small shapes take the element paths).
  // 67×133×3 and 64×128×2: gemm_auto's thin-K class (K <= 4), on the element and the 16-byte path.
  std::vector<Shape> s = {{1, 1, 1}, {17, 33, 9}, {31, 32, 33}, {1, 4096, 1}, {513, 257, 129}, {68, 132, 100},
                          {67, 133, 3}, {64, 128, 2}};
  if (quick() < 2) s.insert(s.end(), {{4096, 1, 4096}, {4097, 4095, 17}, {1000, 1000, 1000}});
  if (quick() < 1) s.push_back({8192, 8192, 8192});
  return s;
}

// Runs v once on args (prepare, launch, wait) and returns the first mn elements of its C.
template <class T>
std::vector<T> run_once(const GemmVariant<T>& v, const GemmArgs<T>& args, std::size_t mn) {
  if (v.prepare) v.prepare();
  v.launch(args, nullptr);
  KL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> out(mn);
  KL_CUDA_CHECK(cudaMemcpy(out.data(), args.C, mn * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

// Two outputs that must be equal bit for bit, both written everywhere (finite; they start as
// NaN poison): counts the elements where either is not finite, and where they differ.
template <class T>
void check_bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  std::size_t nonfinite = 0, differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    nonfinite += !std::isfinite(a[i]) || !std::isfinite(b[i]);
    differ += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
  }
  CHECK(nonfinite == 0);
  CHECK(differ == 0);
}

// A stream-K form is named as its unsplit tile plus "_streamk": that tile's name, or "" for
// any other variant.
std::string unsplit_name_of(const std::string& name) {
  const std::string suffix = "_streamk";
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return "";
  return name.substr(0, name.size() - suffix.size());
}

// The variant of `list` named `name`; the test fails where there is none (`why` says whose).
template <class T>
const GemmVariant<T>& variant_named(const std::vector<GemmVariant<T>>& list, const std::string& name, const std::string& why) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const GemmVariant<T>& v) { return v.info.name == name; });
  REQUIRE_MESSAGE(it != list.end(), why << ": no variant named " << name);
  return *it;
}

// Integer values in [-max, max], drawn fresh: a product of K such terms has every partial sum
// exact in float while K · max² stays within 2^24, in any order of the additions.
template <class T>
void fill_small_integers(std::vector<T>& x, int max) {
  std::mt19937_64 rng(fresh_seed());
  std::uniform_int_distribution<int> small(-max, max);
  for (T& v : x) v = static_cast<T>(small(rng));
}

// One product on the device, for the cases that run gemm_auto's steps themselves: fresh inputs
// (random, or integer-valued with every partial sum exact in float at K <= 1000), their fp64
// reference and magnitudes, the buffers one element long so that shift 1 loses 16-byte
// alignment, and the workspace gemm_auto asks for.
template <class T>
struct ProductCase {
  std::size_t mn;
  std::vector<double> ref, abs;
  DeviceArray<T> dA, dB, dC;
  std::size_t ws_bytes;
  DeviceArray<unsigned char> ws;
  GemmArgs<T> args;
  ProductCase(const GemmVariant<T>& v, Shape s, int shift, bool integers)
      : mn(std::size_t(s.M) * s.N), ref(mn), abs(mn), dA(std::size_t(s.M) * s.K + 1), dB(std::size_t(s.K) * s.N + 1),
        dC(mn + 1), ws_bytes(v.workspace_bytes ? v.workspace_bytes({s.M, s.N, s.K}) : 0), ws(ws_bytes),
        args{dA.get() + shift, dB.get() + shift, dC.get() + shift, s.M, s.N, s.K, ws.get()} {
    const std::size_t mk = std::size_t(s.M) * s.K, kn = std::size_t(s.K) * s.N;
    std::vector<T> A(mk), B(kn);
    if (integers) {
      fill_small_integers(A, 4);
      fill_small_integers(B, 4);
    } else {
      fill_random(A.data(), mk, fresh_seed());
      fill_random(B.data(), kn, fresh_seed());
    }
    reference_product_host(A.data(), s.K, 1, B.data(), s.N, 1, s.M, s.N, s.K, ref.data(), abs.data());
    KL_CUDA_CHECK(cudaMemcpy(dA.get() + shift, A.data(), mk * sizeof(T), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemcpy(dB.get() + shift, B.data(), kn * sizeof(T), cudaMemcpyHostToDevice));
  }
  // Runs op(stream) on a poisoned C and workspace; the outputs not finite or outside
  // bound·|terms| of the reference (bound 0: not equal to it).
  template <class Op>
  std::size_t wrong_after(const Op& op, double bound) {
    KL_CUDA_CHECK(cudaMemset(dC.get(), 0xff, (mn + 1) * sizeof(T)));
    if (ws_bytes) KL_CUDA_CHECK(cudaMemset(ws.get(), 0xff, ws_bytes));
    op(cudaStream_t{});
    KL_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> c(mn);
    KL_CUDA_CHECK(cudaMemcpy(c.data(), args.C, mn * sizeof(T), cudaMemcpyDeviceToHost));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < mn; ++i) {
      const double x = static_cast<double>(c[i]);
      bad += !std::isfinite(x) || (bound > 0 ? std::fabs(x - ref[i]) > bound * abs[i] + 1e-300 : x != ref[i]);
    }
    return bad;
  }
};

}  // namespace

TEST_CASE_TEMPLATE("the GPU fp64 product reference agrees with the host one", T, float, double) {
  for (Shape s : std::vector<Shape>{{1, 1, 1}, {17, 33, 9}, {31, 32, 33}, {130, 67, 259}, {5, 300, 1}}) {
    CAPTURE(s.M);
    CAPTURE(s.N);
    CAPTURE(s.K);
    const std::size_t mk = static_cast<std::size_t>(s.M) * s.K, kn = static_cast<std::size_t>(s.K) * s.N,
                      mn = static_cast<std::size_t>(s.M) * s.N;
    std::vector<T> A(mk), B(kn);
    fill_random(A.data(), mk, fresh_seed());
    fill_random(B.data(), kn, fresh_seed());
    std::vector<double> hc(mn), ha(mn), gc(mn), ga(mn);
    reference_product_host(A.data(), s.K, 1, B.data(), s.N, 1, s.M, s.N, s.K, hc.data(), ha.data());
    DeviceArray<T> dA(mk), dB(kn);
    DeviceArray<double> dC(mn), dAbs(mn);
    KL_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), mk * sizeof(T), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemcpy(dB.get(), B.data(), kn * sizeof(T), cudaMemcpyHostToDevice));
    reference_product_device(dA.get(), s.K, 1, dB.get(), s.N, 1, s.M, s.N, s.K, dC.get(), dAbs.get(), nullptr);
    KL_CUDA_CHECK(cudaMemcpy(gc.data(), dC.get(), mn * sizeof(double), cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(ga.data(), dAbs.get(), mn * sizeof(double), cudaMemcpyDeviceToHost));
    const double g = gamma_bound(s.K, unit_roundoff<double>());
    for (std::size_t i = 0; i < mn; ++i) {
      // Both compensated: they agree to about one rounding of the result.
      REQUIRE(std::fabs(gc[i] - hc[i]) <= 2 * CompensatedDot::self_error(hc[i], ha[i], s.K) + 1e-300);
      REQUIRE(std::fabs(ga[i] - ha[i]) <= 2 * g * ha[i] + 1e-300);
    }
  }
}

TEST_CASE("the GPU product reference takes more row tiles than the grid's y limit") {
  // M = 1,048,577 rows: 65,537 tiles of 16, past gridDim.y's 65,535.
  const int M = 1048577, N = 1, K = 3;
  std::vector<float> A(static_cast<std::size_t>(M) * K), B(K);
  fill_random(A.data(), A.size(), fresh_seed());
  fill_random(B.data(), B.size(), fresh_seed());
  DeviceArray<float> dA(A.size()), dB(B.size());
  DeviceArray<double> dC(M), dAbs(M);
  KL_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  KL_CUDA_CHECK(cudaMemcpy(dB.get(), B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  KL_CUDA_CHECK(cudaMemset(dC.get(), 0xff, M * sizeof(double)));
  reference_product_device(dA.get(), K, 1, dB.get(), N, 1, M, N, K, dC.get(), dAbs.get(), nullptr);
  std::vector<double> c(M);
  KL_CUDA_CHECK(cudaMemcpy(c.data(), dC.get(), M * sizeof(double), cudaMemcpyDeviceToHost));
  for (int i : {0, 1048559, 1048560, 1048576}) {
    double want = 0;
    for (int k = 0; k < K; ++k) want += static_cast<double>(A[static_cast<std::size_t>(i) * K + k]) * B[k];
    CHECK(c[i] == doctest::Approx(want).epsilon(1e-12));
  }
}

TEST_CASE_TEMPLATE("every gemm variant passes at every shape", T, float, double) {
  for (Shape s : gemm_shapes()) {
    CAPTURE(s.M);
    CAPTURE(s.N);
    CAPTURE(s.K);
    expect_all_pass(run_family("gemm", dtype_of<T>(), {s.M, s.N, s.K}));
  }
}

// More rows than 65,535 tiles of 16 (gridDim.y's limit): kernels with 16-row tiles must cut the
// rows into slabs (launch_tiled), and the GPU reference takes its tile rows in a grid-stride
// loop. `compare -f gemm -s 1048577x1x64` is this problem.
TEST_CASE("every gemm variant at M past the grid's y limit") {
  if (quick() >= 1) return;
  expect_all_pass(run_family("gemm", DType::f32, {1048577, 1, 64}));
}

// Mutants of every gemm variant, each caught by the exact-input check even where the random
// check's bound (gamma(K)·|A||B|) is larger than the term that went missing.
TEST_CASE_TEMPLATE("mutants: every gemm variant with k one short, an element dropped or a row unwritten fails", T, float, double) {
  const int M = 67, N = 133, K = quick() < 2 ? 1031 : 129;
  const ProblemKey key = make_key(family<GemmFamily>(), dtype_of<T>(), {M, N, K});
  // The runner sizes the workspace for (M, N, K), and the mutants launch with K - 1 or M - 1:
  // a split plan that needed more slices there would write past the workspace (the number of
  // slices is not monotone in K or M in general, e.g. double gemm_auto at 1000×64×2817 uses
  // more for K - 1). At these shapes it must not, or the mutants corrupt memory instead of
  // failing their check.
  for (const auto& list : {gemm_handwritten<T>(), gemm_library<T>()})
    for (const GemmVariant<T>& v : list) {
      if (!v.workspace_bytes) continue;
      CAPTURE(v.info.name);
      REQUIRE(v.workspace_bytes({M, N, K - 1}) <= v.workspace_bytes({M, N, K}));
      REQUIRE(v.workspace_bytes({M - 1, N, K}) <= v.workspace_bytes({M, N, K}));
    }
  // k one short with lda unchanged: A's first K - 1 columns repacked (so the variant reads them
  // densely), B's first K - 1 rows: C = sum over k < K - 1, exactly one term per element missing.
  WithoutLastColumn<T> a_short(M, K);
  const std::size_t mk = static_cast<std::size_t>(M) * K;
  WithElementZeroed<T> a_dropped(mk);
  expect_mutants_fail<GemmFamily, T>(key, [&](const GemmArgs<T>& g, cudaStream_t s) {
    auto h = g;
    h.A = a_short(g.A, s);
    h.K = K - 1;
    return h;
  }, "k one short");
  // One element of A (its last) dropped: the last row of C misses one product.
  expect_mutants_fail<GemmFamily, T>(key, [&](const GemmArgs<T>& g, cudaStream_t s) {
    auto h = g;
    h.A = a_dropped(g.A, mk - 1, s);
    return h;
  }, "one element of A dropped");
  // The last row never computed: it keeps its poison.
  expect_mutants_fail<GemmFamily, T>(key, [&](const GemmArgs<T>& g, cudaStream_t) {
    auto h = g;
    h.M = M - 1;
    return h;
  }, "last row unwritten");
}

// The SGEMM steps (gemm7 …) take 16-byte loads only when every row is 16-byte aligned and run
// element-wise copies otherwise. The two paths do the same FMAs in the same order, so they
// must agree bit for bit: run every variant on one product twice, once from aligned buffers and
// once from buffers shifted by one element (which forces the fallback), and compare. Both
// outputs start as NaN poison and must come out finite, so an unwritten element fails. The
// shape gives the split-K variants two slices of k (their choice reads the shape only, so both
// runs split alike; the workspace starts as poison too). gemm_auto is not among them: the
// 16-byte steps are its candidates only on aligned buffers, so the two runs may take different
// steps (each of which is checked here under its own name). The TMA steps have no element path of
// their own: where TMA cannot describe a buffer they run another listed step, the one their
// descriptor names as `fallback` (gemm13: gemm12's 256 × 128 tile; gemm14: gemm11_pf's 128² tile),
// whose sum is not theirs (a stream-K form splits k; gemm14 takes its k in another order within a
// DMMA), so their shifted run must equal that step's shifted run bit for bit, and where the sums
// are the same (gemm13's other forms: one k-ordered chain per output, as gemm12's, wherever they
// do not split k at this shape: a rounding depth of K), their aligned run must too.
template <class T>
bool same_sum_as_fallback(const GemmVariant<T>& v, GemmShape sh) {
  const std::string name(v.info.name);
  const bool unsplit_here = !v.rounding_depth || v.rounding_depth(sh) >= sh.K;
  return unsplit_name_of(name).empty() && name.rfind("gemm14_", 0) != 0 && unsplit_here;
}
TEST_CASE_TEMPLATE("vector paths and their unaligned fallbacks agree bitwise", T, float, double) {
  const int M = 67, N = 132, K = 68;  // N, K multiples of 4: the aligned run takes the fast path
  const std::size_t mk = std::size_t(M) * K, kn = std::size_t(K) * N, mn = std::size_t(M) * N;
  std::vector<T> A(mk), B(kn);
  fill_random(A.data(), mk, fresh_seed());
  fill_random(B.data(), kn, fresh_seed());
  DeviceArray<T> dA(mk + 1), dB(kn + 1), dC(mn + 1);
  const std::vector<GemmVariant<T>> list = gemm_handwritten<T>();
  // v's output from the buffers shifted by `shift` elements (C and the workspace poisoned first)
  const auto run_at = [&](const GemmVariant<T>& v, int shift) {
    const std::size_t ws_bytes = v.workspace_bytes ? v.workspace_bytes({M, N, K}) : 0;
    DeviceArray<unsigned char> ws(ws_bytes);
    KL_CUDA_CHECK(cudaMemcpy(dA.get() + shift, A.data(), mk * sizeof(T), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemcpy(dB.get() + shift, B.data(), kn * sizeof(T), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemset(dC.get(), 0xff, (mn + 1) * sizeof(T)));
    if (ws_bytes) KL_CUDA_CHECK(cudaMemset(ws.get(), 0xff, ws_bytes));
    return run_once(v, {dA.get() + shift, dB.get() + shift, dC.get() + shift, M, N, K, ws.get()}, mn);
  };
  for (const GemmVariant<T>& v : list) {
    CAPTURE(v.info.name);
    if (!check_on_this_device(v.needs).empty()) continue;  // not on this GPU (Requirements)
    if (v.info.name == "gemm_auto") continue;               // its step depends on the alignment (above)
    const std::vector<T> shifted = run_at(v, 1);
    const std::string fallback(v.fallback);
    if (fallback.empty()) {
      check_bitwise_equal(run_at(v, 0), shifted);
      continue;
    }
    check_bitwise_equal(run_at(variant_named(list, fallback, std::string(v.info.name) + "'s fallback"), 1), shifted);
    if (same_sum_as_fallback(v, {M, N, K})) check_bitwise_equal(run_at(v, 0), shifted);
  }
}

// gemm9, gemm12 and gemm13's unsplit forms that take any N and K (the ragged one, and the
// transposing one and the small tiles' _r0 on padded copies of A and B) run the same FMAs in the same order (one k-ordered
// chain per output, from zero), whatever their tiles, pipeline depth, fragment schedule or what
// fills their stages: their outputs must be equal bit for bit. A ragged shape (N and K odd: both
// operands copied for the transposing form), so the edge tiles and the last partial k tile are in
// it.
TEST_CASE("gemm12 (fragment prefetch) and gemm13's any-alignment forms are bitwise gemm9 at every configuration") {
  const auto variants = gemm_handwritten<float>();
  for (const auto& v : variants)
    if (v.info.name == "gemm9_pipelined_128x128x16_w64x32_t8x8_s3" && !check_on_this_device(v.needs).empty()) {
      MESSAGE("gemm9 does not run on this GPU: " << check_on_this_device(v.needs));
      return;
    }
  const int M = 301, N = 263, K = 97;
  const std::size_t mk = std::size_t(M) * K, kn = std::size_t(K) * N, mn = std::size_t(M) * N;
  std::vector<float> A(mk), B(kn);
  fill_random(A.data(), mk, fresh_seed());
  fill_random(B.data(), kn, fresh_seed());
  DeviceArray<float> dA(mk), dB(kn), dC(mn);
  KL_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), mk * sizeof(float), cudaMemcpyHostToDevice));
  KL_CUDA_CHECK(cudaMemcpy(dB.get(), B.data(), kn * sizeof(float), cudaMemcpyHostToDevice));
  auto run = [&](const GemmVariant<float>& v) {
    const std::size_t ws_bytes = v.workspace_bytes ? v.workspace_bytes({M, N, K}) : 0;
    DeviceArray<unsigned char> ws(ws_bytes);
    if (ws_bytes) KL_CUDA_CHECK(cudaMemset(ws.get(), 0xff, ws_bytes));
    KL_CUDA_CHECK(cudaMemset(dC.get(), 0xff, mn * sizeof(float)));
    return run_once(v, {dA.get(), dB.get(), dC.get(), M, N, K, ws.get()}, mn);
  };
  std::vector<float> want;
  for (const auto& v : variants)
    if (v.info.name == "gemm9_pipelined_128x128x16_w64x32_t8x8_s3") want = run(v);
  REQUIRE(want.size() == mn);
  int checked = 0;
  for (const auto& v : variants) {
    const std::string name(v.info.name);
    const auto ends = [&](std::string_view tail) {
      return name.rfind("gemm13_", 0) == 0 && name.size() > tail.size() && name.substr(name.size() - tail.size()) == tail;
    };
    if ((name.rfind("gemm12_", 0) != 0 && !ends("_ragged") && !ends("_at") && !ends("_r0")) ||
        !check_on_this_device(v.needs).empty())
      continue;
    CAPTURE(v.info.name);
    check_bitwise_equal(run(v), want);
    ++checked;
  }
  CHECK(checked > 0);
}

// A row of A that is all NaN makes its row of C NaN and no other: a producer that fills a stage's
// k past K, or its rows past M, with another row's elements (gemm13's ragged form reads rows past
// M from row M - 1 and must zero-fill k past K) must not let them reach another row's products,
// even multiplied by zeros (NaN · 0 is NaN). K leaves a partial last k tile; every row of A but
// one is finite, and every other row of C must be.
TEST_CASE("gemm13: a NaN row of A stays in its row of C") {
  const int M = 67, N = 133, K = 45, nan_row = 9;
  const std::size_t mk = std::size_t(M) * K, kn = std::size_t(K) * N, mn = std::size_t(M) * N;
  std::vector<float> A(mk), B(kn);
  fill_random(A.data(), mk, fresh_seed());
  fill_random(B.data(), kn, fresh_seed());
  for (int k = 0; k < K; ++k) A[std::size_t(nan_row) * K + k] = std::nanf("");
  DeviceArray<float> dA(mk), dB(kn), dC(mn);
  KL_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), mk * sizeof(float), cudaMemcpyHostToDevice));
  KL_CUDA_CHECK(cudaMemcpy(dB.get(), B.data(), kn * sizeof(float), cudaMemcpyHostToDevice));
  int checked = 0;
  for (const auto& v : gemm_handwritten<float>()) {
    if (v.info.name.rfind("gemm13_", 0) != 0 || !check_on_this_device(v.needs).empty()) continue;
    CAPTURE(v.info.name);
    const std::size_t ws_bytes = v.workspace_bytes ? v.workspace_bytes({M, N, K}) : 0;
    DeviceArray<unsigned char> ws(ws_bytes);
    KL_CUDA_CHECK(cudaMemset(dC.get(), 0, mn * sizeof(float)));
    const std::vector<float> c = run_once(v, {dA.get(), dB.get(), dC.get(), M, N, K, ws.get()}, mn);
    int wrong = 0;
    for (int r = 0; r < M; ++r)
      for (int j = 0; j < N; ++j) wrong += std::isnan(c[std::size_t(r) * N + j]) != (r == nan_row);
    CHECK(wrong == 0);
    ++checked;
  }
  if (checked == 0) MESSAGE("no gemm13 form runs here");
}

TEST_CASE_TEMPLATE("every aat variant passes at every shape", T, float, double) {
  // 200×36: K a multiple of 4 (16-byte copies) at several tiles, an even number of triangle
  // tile rows for the 64² and 128² tiles (4 and 2; 513 gives 9 and 5), odd for 96² (3).
  std::vector<Shape> shapes = {{1, 0, 1}, {17, 0, 9}, {33, 0, 31}, {513, 0, 129}, {1, 0, 4096}, {200, 0, 36}};
  if (quick() < 2) shapes.insert(shapes.end(), {{4096, 0, 1}, {1000, 0, 1000}, {1025, 0, 333}});
  for (Shape s : shapes) {
    CAPTURE(s.M);
    CAPTURE(s.K);
    expect_all_pass(run_family("aat", dtype_of<T>(), {s.M, s.K}));
  }
}

TEST_CASE_TEMPLATE("mutants: every aat variant with k one short or a row unwritten fails", T, float, double) {
  const int M = 67, K = quick() < 2 ? 1031 : 129;
  const ProblemKey key = make_key(family<AatFamily>(), dtype_of<T>(), {M, K});
  WithoutLastColumn<T> a_short(M, K);
  expect_mutants_fail<AatFamily, T>(key, [&](const AatArgs<T>& g, cudaStream_t s) {
    auto h = g;
    h.A = a_short(g.A, s);
    h.K = K - 1;
    return h;
  }, "k one short");
  // C (M−1)² of the M² computed into the same buffer with the wrong pitch: wrong and unwritten.
  expect_mutants_fail<AatFamily, T>(key, [&](const AatArgs<T>& g, cudaStream_t) {
    auto h = g;
    h.M = M - 1;
    return h;
  }, "last row and column unwritten");
}

// gemm_auto's two paths (handwritten/gemm/gemm_auto.cuh): launch without a tune call runs its
// time model's first step; after tune, the step tune measured fastest. Both must be right, on
// aligned buffers and on buffers shifted by one element (the element paths), against the host's
// fp64 reference within gamma(K)·Σ|a||b| (the unsplit bound, which holds for every step it can
// pick). Shapes no other case runs, so no earlier tune has chosen for them; 258 × 130 × 96 has
// even K and N, so its aligned buffers take the TMA steps (gemm13, gemm14) on an sm_90a build.
// gemm_auto's prepare must opt in every kernel it can launch on its own: the list's other
// variants' opt-ins (set by the cases before) are taken back first, and restored after.
TEST_CASE_TEMPLATE("gemm_auto: the model's step before tune and the measured one after, both right", T, float, double) {
  const auto list = gemm_handwritten<T>();
  const auto it = std::find_if(list.begin(), list.end(), [](const GemmVariant<T>& v) { return v.info.name == "gemm_auto"; });
  REQUIRE(it != list.end());
  const GemmVariant<T>& v = *it;
  REQUIRE(static_cast<bool>(v.tune));
  for (const GemmVariant<T>& o : list)
    if (o.needs.kernel) KL_CUDA_CHECK(cudaFuncSetAttribute(o.needs.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
  struct Restore {
    const std::vector<GemmVariant<T>>& list;
    ~Restore() {
      for (const GemmVariant<T>& o : list)
        if (o.prepare) o.prepare();
    }
  } restore{list};
  if (v.prepare) v.prepare();
  for (Shape s : std::vector<Shape>{{71, 139, 131}, {37, 41, 67}, {301, 203, 19}, {997, 61, 1009}, {131, 129, 7}, {211, 227, 223},
                                    {258, 130, 96}}) {
    for (int shift : {0, 1}) {
      CAPTURE(s.M);
      CAPTURE(s.N);
      CAPTURE(s.K);
      CAPTURE(shift);
      ProductCase<T> p(v, s, shift, false);
      for (bool tuned : {false, true}) {
        CAPTURE(tuned);
        if (tuned) {
          const TuneMeasure measure(Gpu::get().timer, "gemm_auto test");
          v.tune(p.args, nullptr, measure.view());
        }
        CHECK(p.wrong_after([&](cudaStream_t st) { v.launch(p.args, st); }, gamma_bound(s.K, unit_roundoff<T>())) == 0);
      }
    }
  }
}

// Every step tune measures, not only the one it keeps, must be right on its own: each is what
// launch runs on a later call or on another GPU. The test's Measure runs each candidate once on a
// poisoned C and workspace and checks it (random inputs within the bound, integer-valued ones
// exactly), at products of few tiles and deep k, where the shortlist holds split forms (gemm11's
// 32² and gemm11_pf's 64² DMMA tiles, gemm10's 64², gemm13's).
namespace {
template <class T>
struct CheckingMeasure {
  ProductCase<T>* p = nullptr;
  double bound = 0;  // gamma(K); 0: the inputs are integer-valued and every output must be exact
  int measured = 0, split = 0;
  static double time(const void* self, const char* label, void (*op)(const void*, cudaStream_t), const void* ctx) {
    auto& m = *static_cast<CheckingMeasure*>(const_cast<void*>(self));
    CAPTURE(label);
    CHECK(m.p->wrong_after([&](cudaStream_t st) { op(ctx, st); }, m.bound) == 0);
    ++m.measured;
    const std::string l(label);
    m.split += l.substr(l.rfind('/') + 1) != "1";  // labels are "<step>/<slices>"
    return 1.0;  // the same for all: tune keeps its first, and measures every one
  }
};
}  // namespace

TEST_CASE_TEMPLATE("gemm_auto: every step tune measures is right, split or not", T, float, double) {
  const auto list = gemm_handwritten<T>();
  const GemmVariant<T>& v = variant_named(list, "gemm_auto", "the tune test");
  REQUIRE(static_cast<bool>(v.tune));
  if (v.prepare) v.prepare();
  std::vector<Shape> shapes{{46, 66, 439}, {331, 54, 337}, {97, 41, 301}, {263, 361, 689}};
  if (quick() < 2) shapes.insert(shapes.end(), {{27, 3772, 634}, {769, 79, 686}, {711, 713, 422}});
  // Tune measures a shape and path once per process, on the inputs of its first run: the
  // integer-valued ones on the aligned path, the random ones on the unaligned.
  const bool orders[2][2] = {{true, false}, {false, true}};
  int measured = 0, split = 0;
  for (const Shape s : shapes)
    for (const int shift : {0, 1})
      for (const bool exact : orders[shift]) {
        CAPTURE(s.M);
        CAPTURE(s.N);
        CAPTURE(s.K);
        CAPTURE(shift);
        CAPTURE(exact);
        ProductCase<T> p(v, s, shift, exact);
        CheckingMeasure<T> m;
        m.p = &p;
        m.bound = exact ? 0.0 : gamma_bound(s.K, unit_roundoff<T>());
        v.tune(p.args, nullptr, Measure{&CheckingMeasure<T>::time, &m});
        measured += m.measured;
        split += m.split;
        // And the step it kept, as launch runs it.
        CHECK(p.wrong_after([&](cudaStream_t st) { v.launch(p.args, st); }, m.bound) == 0);
      }
  // The shapes were chosen so that tune measures several steps, some of them split: a test that
  // measured nothing, or no split, would check less than it says.
  CHECK(measured > 0);
  CHECK(split > 0);
}

// The stream-K forms (named as their unsplit tile, plus "_streamk") cut tiles at k-tile
// boundaries and store each segment while the block's other warps still read its ring. On
// integer inputs every partial sum is exact, so each must equal its unsplit tile bit for bit, run
// after run, at products where a block runs many tiles and a stream part. A TMA ring's slot
// refilled before a warp's last reads of it had landed showed only there: a few hundred elements
// wrong in some runs (hopper::release_read_slot).
TEST_CASE_TEMPLATE("stream-K forms equal their unsplit tile exactly, run after run", T, float, double) {
  if (quick() >= 2) return;
  const auto list = gemm_handwritten<T>();
  for (Shape s : std::vector<Shape>{{4097, 4094, 130}, {2048, 2048, 1024}}) {
    CAPTURE(s.M);
    CAPTURE(s.N);
    CAPTURE(s.K);
    const std::size_t mk = std::size_t(s.M) * s.K, kn = std::size_t(s.K) * s.N, mn = std::size_t(s.M) * s.N;
    std::vector<T> A(mk), B(kn);
    fill_small_integers(A, 8);  // K · 64 within float's 2^24 at these K
    fill_small_integers(B, 8);
    DeviceArray<T> dA(mk), dB(kn), dC(mn);
    KL_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), mk * sizeof(T), cudaMemcpyHostToDevice));
    KL_CUDA_CHECK(cudaMemcpy(dB.get(), B.data(), kn * sizeof(T), cudaMemcpyHostToDevice));
    int checked = 0;
    for (const GemmVariant<T>& v : list) {
      const std::string name(v.info.name), unsplit_name = unsplit_name_of(name);
      if (unsplit_name.empty()) continue;
      const GemmVariant<T>& unsplit = variant_named(list, unsplit_name, name + "'s unsplit tile");
      if (!check_on_this_device(v.needs).empty()) continue;
      CAPTURE(name);
      auto run = [&](const GemmVariant<T>& w) {
        const std::size_t ws_bytes = w.workspace_bytes ? w.workspace_bytes({s.M, s.N, s.K}) : 0;
        DeviceArray<unsigned char> ws(ws_bytes);
        if (ws_bytes) KL_CUDA_CHECK(cudaMemset(ws.get(), 0xff, ws_bytes));
        KL_CUDA_CHECK(cudaMemset(dC.get(), 0xff, mn * sizeof(T)));
        return run_once(w, {dA.get(), dB.get(), dC.get(), s.M, s.N, s.K, ws.get()}, mn);
      };
      const std::vector<T> want = run(unsplit);
      for (int r = 0; r < 4; ++r) {
        CAPTURE(r);
        check_bitwise_equal(run(v), want);
      }
      ++checked;
    }
    CHECK(checked > 0);
  }
}
