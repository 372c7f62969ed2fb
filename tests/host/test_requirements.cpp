// What each variant needs of the GPU (Requirements, common/variant.hpp) against descriptions of
// real devices, as CUDA reports them (compute capability, cudaDevAttrMaxSharedMemoryPerBlockOptin):
// which variants of every family run on each and which are skipped, with the one-line reason
// (compare/core/requirements.hpp, the check the runner makes before a variant runs).
//
// KL_PRINT_REQUIREMENTS=1 prints every variant that does not run everywhere, GPU by GPU (the
// README's table comes from it).
#include "compare/core/family.hpp"
#include "compare/core/requirements.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace kl;

namespace {

constexpr std::size_t KB = 1024;

const std::vector<DeviceLimits>& gpus() {
  static const std::vector<DeviceLimits> g = {
      device_limits("T4", 75, 64 * KB),
      device_limits("A100", 80, 163 * KB),
      device_limits("A10 / RTX 3090", 86, 99 * KB),
      device_limits("L4 / RTX 4090", 89, 99 * KB),
      device_limits("H100", 90, 227 * KB),
      device_limits("B200", 100, 227 * KB),
      device_limits("RTX 5090", 120, 99 * KB),
  };
  return g;
}

const DeviceLimits& gpu(int cc) {
  for (const auto& d : gpus())
    if (d.compute_capability == cc) return d;
  throw std::logic_error("no such GPU in the table");
}

struct Verdict {
  std::string family, dtype, variant, origin, why, slow;
  Requirements needs;
  Source source;
};

// Every variant of every family at every element type on device d (the image loaded for d itself).
std::vector<Verdict> verdicts(const DeviceLimits& d) {
  std::vector<Verdict> out;
  for (const Family* f : all_families())
    for (DType t : f->dtypes())
      for (const VariantListing& v : f->variants(t, nullptr))
        out.push_back({std::string(f->name()), std::string(dtype_name(t)), v.name, v.origin,
                       why_not_runnable(v.needs, d, v.needs.kernel ? d.compute_capability : 0),
                       slow_note(v.needs, d), v.needs, v.source});
  return out;
}

const Verdict& find(const std::vector<Verdict>& all, const std::string& family, const std::string& dtype,
                    const std::string& variant) {
  for (const auto& v : all)
    if (v.family == family && v.dtype == dtype && v.variant == variant) return v;
  FAIL("no variant " << family << " " << dtype << " " << variant);
  throw std::logic_error("unreachable");
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("requirements: the devices as CUDA describes them") {
  CHECK(gpu(80).fp64_tensor_cores);
  CHECK(gpu(90).fp64_tensor_cores);
  CHECK(gpu(100).fp64_tensor_cores);
  for (int cc : {75, 86, 89, 120}) CHECK_FALSE(gpu(cc).fp64_tensor_cores);
  for (int cc : {75, 80, 86, 89}) CHECK_FALSE(gpu(cc).clusters);
  for (int cc : {90, 100, 120}) CHECK(gpu(cc).clusters);
  CHECK(cc_text(86) == "8.6");
  CHECK(cc_text(120) == "12.0");
}

TEST_CASE("requirements: the one-line reasons") {
  const Requirements clusters{.compute_capability = 90, .feature = kFeatureClusters, .clusters = true};
  CHECK(why_not_runnable(clusters, gpu(86)) ==
        "needs compute capability 9.0 for thread-block clusters and distributed shared memory; this GPU is 8.6");
  CHECK(why_not_runnable(clusters, gpu(90)).empty());
  const Requirements big{.compute_capability = 80, .feature = kFeatureFp64Mma, .shared_bytes = 149504};
  CHECK(why_not_runnable(big, gpu(86)) == "needs 146 KB of shared memory per block; this GPU (8.6) allows 99 KB");
  CHECK(why_not_runnable(big, gpu(80)).empty());
  CHECK(why_not_runnable(big, gpu(75)) == "needs compute capability 8.0 for FP64 tensor-core mma; this GPU is 7.5");
  // The image that loaded: a build for compute_75 PTX JIT-compiled on an H100 has the guarded
  // bodies empty; a build with no code for the GPU at all.
  CHECK(contains(why_not_runnable(big, gpu(90), 75), "built for compute_75"));
  CHECK(contains(why_not_runnable(big, gpu(90), 75), "-DCMAKE_CUDA_ARCHITECTURES=90"));
  CHECK(why_not_runnable(big, gpu(90), 90).empty());
  CHECK(why_not_runnable(big, gpu(90), 80).empty());
  CHECK(contains(why_not_runnable(big, gpu(90), kNoImage), "no code for this GPU (9.0)"));
  CHECK(contains(slow_note(big, gpu(86)), "no FP64 tensor cores"));
  CHECK(slow_note(big, gpu(80)).empty());
  CHECK(slow_note(Requirements{}, gpu(86)).empty());
  CHECK(needs_text(big) == "needs 8.0 (FP64 tensor-core mma), 146 KB of shared memory per block");
  CHECK(needs_text(Requirements{}).empty());
}

TEST_CASE("requirements: which variants run on which GPU") {
  const bool print = std::getenv("KL_PRINT_REQUIREMENTS") != nullptr;
  std::map<std::string, std::map<int, std::string>> table;  // variant -> cc -> "runs" / reason
  for (const DeviceLimits& d : gpus()) {
    const auto all = verdicts(d);
    int runs = 0, skipped = 0;
    for (const Verdict& v : all) {
      (v.why.empty() ? runs : skipped)++;
      // The documents' ladders and every library baseline run on every GPU CUDA 13 supports.
      if (v.origin.rfind("beyond", 0) != 0) {
        INFO(d.name << ": " << v.family << " " << v.dtype << " " << v.variant << " (" << v.origin << ")");
        CHECK(v.needs.compute_capability == 0);
        CHECK(v.why.empty());
      }
      // What a variant declares is consistent: a kernel to check, a reason for a capability.
      if (v.needs.compute_capability > 0) {
        INFO(v.variant);
        CHECK(!v.needs.feature.empty());
        CHECK(v.needs.kernel != nullptr);
      }
      if (print && !v.why.empty()) table[v.family + " " + v.dtype + " " + v.variant][d.compute_capability] = v.why;
      if (print && v.why.empty() && !v.slow.empty()) table[v.family + " " + v.dtype + " " + v.variant][d.compute_capability] = "slow";
    }
    MESSAGE(d.name << " (" << cc_text(d.compute_capability) << "): " << runs << " variants run, " << skipped << " skipped");
    // Every family keeps a ladder on every GPU: at least one hand-written variant per type runs.
    for (const Family* f : all_families())
      for (DType t : f->dtypes()) {
        bool any = false;
        for (const Verdict& v : all)
          any = any || (v.family == f->name() && v.dtype == dtype_name(t) && v.why.empty() && v.source == Source::handwritten);
        INFO(d.name << ": " << f->name() << " " << dtype_name(t));
        CHECK(any);
      }
  }
  if (print) {
    for (const auto& [name, by_cc] : table) {
      std::printf("%s\n", name.c_str());
      for (const auto& [cc, why] : by_cc) std::printf("    %s: %s\n", cc_text(cc).c_str(), why.c_str());
    }
  }

  const auto t4 = verdicts(gpu(75)), a100 = verdicts(gpu(80)), a10 = verdicts(gpu(86)), l4 = verdicts(gpu(89)),
             h100 = verdicts(gpu(90)), b200 = verdicts(gpu(100)), rtx5090 = verdicts(gpu(120));

  // gevm6: thread-block clusters and distributed shared memory, 9.0 and newer.
  for (const char* t : {"float", "double"})
    for (const char* name : {"gevm6_cluster_slabs_u4", "gevm6_cluster_slabs_u4_cs", "gevm6_cluster_slabs_u8_cs_c128",
                             "gevm6_cluster_slabs_u32_cs_c256"}) {
      for (const auto* all : {&t4, &a100, &a10, &l4}) CHECK(contains(find(*all, "gevm", t, name).why, "needs compute capability 9.0 for thread-block clusters"));
      CHECK(find(a10, "gevm", t, name).why ==
            "needs compute capability 9.0 for thread-block clusters and distributed shared memory; this GPU is 8.6");
      for (const auto* all : {&h100, &b200, &rtx5090}) CHECK(find(*all, "gevm", t, name).why.empty());
    }
  // The gevm ladder below it runs everywhere.
  for (const auto* all : {&t4, &a10}) CHECK(find(*all, "gevm", "float", "gevm5_fitted_tiles_u4").why.empty());

  // gemm9 and later: cp.async, 8.0 and newer; on 7.5 the ladder stops at gemm8.
  for (const char* name : {"gemm9_pipelined_128x128x16_w64x32_t8x8_s3", "gemm10_swizzled_64x64x16_w32x32_t4x8_s4", "gemm12_fragment_prefetch_128x128x16_w64x32_t8x8_s3"}) {
    CHECK(find(t4, "gemm", "float", name).why == "needs compute capability 8.0 for cp.async; this GPU is 7.5");
    for (const auto* all : {&a100, &a10, &l4, &h100, &b200, &rtx5090}) CHECK(find(*all, "gemm", "float", name).why.empty());
  }
  for (const char* t : {"float", "double"}) {
    CHECK(find(t4, "gemm", t, "gemm8_warptiled").why.empty());
    CHECK(find(t4, "gemm", t, "gemm_auto").why.empty());  // it picks gemm8 there
    CHECK(find(t4, "gemm", t, "gemm_smem5_ilp4").why.empty());
  }
  // gemm12's 256 × 128 tile (4 stages) fits 99 KB; gemm9's 128 × 256 × 8 too.
  CHECK(find(a10, "gemm", "float", "gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4").why.empty());
  CHECK(find(rtx5090, "gemm", "float", "gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4").why.empty());

  // gemm11 (FP64 tensor cores): the 128 × 128 tiles need 146 KB: skipped on 8.6/8.9/12.0, run on
  // 8.0 (163 KB); the 64 × 64 one runs there, slowly, and says why.
  for (const char* name : {"gemm11_dmma_128x128x16_w64x32_s4_k8", "gemm11_dmma_splitk_128x128x16_w64x32_s4_k8",
                           "gemm11_dmma_128x128x16_w64x32_s4_k4_pf"}) {
    for (const auto* all : {&a10, &l4, &rtx5090})
      CHECK(contains(find(*all, "gemm", "double", name).why, "146 KB of shared memory per block"));
    CHECK(find(a10, "gemm", "double", name).why == "needs 146 KB of shared memory per block; this GPU (8.6) allows 99 KB");
    for (const auto* all : {&a100, &h100, &b200}) CHECK(find(*all, "gemm", "double", name).why.empty());
    CHECK(find(t4, "gemm", "double", name).why == "needs compute capability 8.0 for FP64 tensor-core mma; this GPU is 7.5");
  }
  const Verdict& small_dmma_a10 = find(a10, "gemm", "double", "gemm11_dmma_64x64x16_w32x32_s4_k8");
  CHECK(small_dmma_a10.why.empty());
  CHECK(contains(small_dmma_a10.slow, "no FP64 tensor cores"));
  CHECK(find(h100, "gemm", "double", "gemm11_dmma_64x64x16_w32x32_s4_k8").slow.empty());
  CHECK(find(a100, "gemm", "double", "gemm11_dmma_64x64x16_w32x32_s4_k8").slow.empty());

  // gemm11's 128 × 128 × 32 tile (3 stages) needs 207 KB: more than 8.0's 163 KB; 9.0 and 10.0 only.
  CHECK(find(a100, "gemm", "double", "gemm11_dmma_128x128x32_w64x32_s3_k8").why ==
        "needs 207 KB of shared memory per block; this GPU (8.0) allows 163 KB");
  CHECK(find(h100, "gemm", "double", "gemm11_dmma_128x128x32_w64x32_s3_k8").why.empty());
  CHECK(find(b200, "gemm", "double", "gemm11_dmma_128x128x32_w64x32_s3_k8").why.empty());
  // gemm10's 128 × 256 float tile (128.5 KB): 8.0 yes, 8.6 no.
  CHECK(find(a100, "gemm", "float", "gemm10_swizzled_128x256x16_w64x64_t8x16_s3").why.empty());
  CHECK(contains(find(a10, "gemm", "float", "gemm10_swizzled_128x256x16_w64x64_t8x16_s3").why, "allows 99 KB"));

  // aat: the 96 × 96 DMMA triangle (3 stages, 90 KB a block) fits 99 KB; slow without FP64 tensor cores.
  CHECK(find(a100, "aat", "double", "aat_triangle_96").why.empty());
  CHECK(find(a10, "aat", "double", "aat_triangle_96").why.empty());
  CHECK(contains(find(a10, "aat", "double", "aat_triangle_96").slow, "no FP64 tensor cores"));
  CHECK(contains(find(a10, "aat", "double", "aat_gemm_inplace").why, "allows 99 KB"));
  CHECK(find(a100, "aat", "double", "aat_gemm_inplace").why.empty());
  CHECK(find(a10, "aat", "float", "aat_triangle_64").why.empty());
  CHECK(contains(find(t4, "aat", "float", "aat_triangle_64").why, "cp.async"));

  // rows_cols_cluster launches clusters: 9.0 and up (rows_auto asks the device before it takes it).
  CHECK(contains(find(a10, "rows", "float", "rows_cols_cluster").why, "clusters"));
  CHECK(find(h100, "rows", "float", "rows_cols_cluster").why.empty());
  CHECK(find(rtx5090, "rows", "double", "rows_cols_cluster").why.empty());

  // The library baselines and the families without a step beyond 7.5 run everywhere.
  for (const auto* all : {&t4, &a10, &rtx5090})
    for (const Verdict& v : *all)
      if ((v.family == "reduce" || v.family == "dot" || v.family == "rows" || v.family == "transpose" ||
           v.family == "table" || v.family == "gemv" || v.origin.find("cuBLAS") != std::string::npos) &&
          v.variant != "rows_cols_cluster") {
        INFO(v.family << " " << v.variant);
        CHECK(v.why.empty());
      }
}
