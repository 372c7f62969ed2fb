// gemm and aat: the GPU fp64 reference against the host one; every variant × type at shapes
// that no tile divides; negative controls.
#include "compare/problem_product.hpp"
#include "gpu_test_support.hpp"

using namespace kl;
using namespace kl::test;

namespace {

struct Shape {
  int M, N, K;
};

std::vector<Shape> gemm_shapes() {
  std::vector<Shape> s = {{1, 1, 1}, {17, 33, 9}, {31, 32, 33}, {1, 4096, 1}, {513, 257, 129}};
  if (quick() < 2) s.insert(s.end(), {{4096, 1, 4096}, {4097, 4095, 17}, {1000, 1000, 1000}});
  if (quick() < 1) s.push_back({8192, 8192, 8192});
  return s;
}

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
      REQUIRE(std::fabs(gc[i] - hc[i]) <= 2 * g * ha[i] + 1e-300);
      REQUIRE(std::fabs(ga[i] - ha[i]) <= 2 * g * ha[i] + 1e-300);
    }
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

// The SGEMM steps (gemm7 …) take 16-byte loads only when every row is 16-byte aligned and run
// element-wise copies otherwise. The two paths do the same FMAs in the same order, so they
// must agree bit for bit: run every variant on one product twice, once from aligned buffers and
// once from buffers shifted by one element (which forces the fallback), and compare. Both
// outputs start as NaN poison and must come out finite, so an unwritten element fails.
TEST_CASE_TEMPLATE("vector paths and their unaligned fallbacks agree bitwise", T, float, double) {
  const int M = 67, N = 132, K = 68;  // N, K multiples of 4: the aligned run takes the fast path
  const std::size_t mk = std::size_t(M) * K, kn = std::size_t(K) * N, mn = std::size_t(M) * N;
  std::vector<T> A(mk), B(kn);
  fill_random(A.data(), mk, fresh_seed());
  fill_random(B.data(), kn, fresh_seed());
  DeviceArray<T> dA(mk + 1), dB(kn + 1), dC(mn + 1);
  std::vector<T> aligned(mn), shifted(mn);
  for (const GemmVariant<T>& v : gemm_handwritten<T>()) {
    CAPTURE(v.info.name);
    for (int shift : {0, 1}) {
      KL_CUDA_CHECK(cudaMemcpy(dA.get() + shift, A.data(), mk * sizeof(T), cudaMemcpyHostToDevice));
      KL_CUDA_CHECK(cudaMemcpy(dB.get() + shift, B.data(), kn * sizeof(T), cudaMemcpyHostToDevice));
      KL_CUDA_CHECK(cudaMemset(dC.get(), 0xff, (mn + 1) * sizeof(T)));
      if (v.prepare) v.prepare();
      v.launch({dA.get() + shift, dB.get() + shift, dC.get() + shift, M, N, K}, nullptr);
      KL_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<T>& out = shift ? shifted : aligned;
      KL_CUDA_CHECK(cudaMemcpy(out.data(), dC.get() + shift, mn * sizeof(T), cudaMemcpyDeviceToHost));
    }
    std::size_t nonfinite = 0, differ = 0;
    for (std::size_t i = 0; i < mn; ++i) {
      nonfinite += !std::isfinite(aligned[i]) || !std::isfinite(shifted[i]);
      differ += std::memcmp(&aligned[i], &shifted[i], sizeof(T)) != 0;
    }
    CHECK(nonfinite == 0);
    CHECK(differ == 0);
  }
}

TEST_CASE_TEMPLATE("every aat variant passes at every shape", T, float, double) {
  std::vector<Shape> shapes = {{1, 0, 1}, {17, 0, 9}, {33, 0, 31}, {513, 0, 129}, {1, 0, 4096}};
  if (quick() < 2) shapes.insert(shapes.end(), {{4096, 0, 1}, {1000, 0, 1000}, {1025, 0, 333}});
  for (Shape s : shapes) {
    CAPTURE(s.M);
    CAPTURE(s.K);
    expect_all_pass(run_family("aat", dtype_of<T>(), {s.M, s.K}));
  }
}

TEST_CASE("negative controls: a product with the wrong K, or a missing row, fails") {
  const int M = 31, N = 32, K = 33;
  ProductProblem<float> p(ProductKind::gemm, M, N, K, fresh_seed(), false, Gpu::get().dev);
  const auto lib = gemm_library<float>().at(0);
  const auto ladder = gemm_handwritten<float>();
  std::vector<Candidate> cands;
  Candidate good;
  good.info = listing_of(lib.info);
  good.prepare = lib.prepare;
  good.launch = [&](void*, cudaStream_t s) { lib.launch({p.A(), p.B(), p.C(), M, N, K}, s); };
  cands.push_back(good);
  Candidate short_k = good;
  short_k.info = {"wrong_k", "test", "", Source::handwritten};  // sums K-1 terms (and misreads A's rows)
  short_k.launch = [&](void*, cudaStream_t s) { lib.launch({p.A(), p.B(), p.C(), M, N, K - 1}, s); };
  cands.push_back(short_k);
  // Computes only the first M-1 rows: the last row keeps its poison (NaN).
  Candidate short_m = good;
  short_m.info = {"misses_the_last_row", "test", "", Source::handwritten};
  short_m.launch = [&](void*, cudaStream_t s) { ladder.at(0).launch({p.A(), p.B(), p.C(), M - 1, N, K}, s); };
  cands.push_back(short_m);
  RunContext ctx = Gpu::get().ctx();
  const auto rows = execute(*find_family("gemm"), DType::f32, {M, N, K}, p, cands, ctx, 0);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].status == RowStatus::ok);
  CHECK(rows[1].status == RowStatus::fail);
  CHECK(rows[2].status == RowStatus::fail);
  CHECK(rows[2].check.bad_count == static_cast<std::size_t>(N));
}
