// The red team: one planted variant per known way a kernel can fool a grading harness (the
// hardening KernelBench and gpu-mode's reference kernels added after exploited evaluators), each
// run through the real runner core beside the family's library baseline, timed briefly, and each
// required to FAIL with its reason named in the row. README "Method" lists what the checks see.
#include "compare/core/execute.hpp"
#include "compare/core/family_core.hpp"
#include "compare/families/family_product.hpp"
#include "compare/families/family_reduce.hpp"
#include "gpu_test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace kl::redteam {
namespace {

// ---- planted kernels --------------------------------------------------------------------------

// A grid-stride sum of in[0, n) added into *out: each warp's partial by one atomic.
template <class T>
__device__ void add_grid_sum(const T* __restrict__ in, std::size_t n, T* out) {
  T s = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// An honest sum: atomics into *out, which the launcher clears first (on the stream).
template <class T>
__global__ void sum_atomic(const T* __restrict__ in, std::size_t n, T* out) {
  add_grid_sum(in, n, out);
}
constexpr unsigned kBlocks = 264, kThreads = 256;

template <class T>
void honest(const ReduceArgs<T>& a, cudaStream_t s) {
  KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), s));
  sum_atomic<T><<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out);
  KL_CHECK_LAUNCH();
}

// Skips its work when the output "looks done" (not NaN): the harness's NaN poison would let it
// work every time; the finite poison pattern does not.
template <class T>
__global__ void mark_done(const T* out, bool* done) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *done = !isnan(*out);
}
template <class T>
__global__ void sum_if_not_done(const T* __restrict__ in, std::size_t n, T* out, const bool* done) {
  if (!*done) add_grid_sum(in, n, out);
}
template <class T>
__global__ void clear_unless_done(T* out, const bool* done) {
  if (!*done) *out = 0;
}

// Writes one element past its output.
template <class T>
__global__ void write_past_end(T* out) {
  out[1] = out[0];
}

// Reads one element past its input, assuming what lies there is zero.
template <class T>
__global__ void read_past_end(const T* in, std::size_t n, T* out) {
  atomicAdd(out, in[n]);
}

// Accumulates into its workspace without clearing it first.
template <class T>
__global__ void copy_first(const T* ws, T* out) {
  *out = *ws;
}

// Rounds a float to TF32 (10 explicit mantissa bits, to nearest), as a tensor-core product reads
// its operands.
__device__ float to_tf32(float x) {
  unsigned u = __float_as_uint(x);
  u = (u + 0x1000u) & 0xffffe000u;
  return __uint_as_float(u);
}

// C = A·B with every operand rounded to TF32 first (float accumulation): what a matrix-unit
// "float" product does.
__global__ void gemm_tf32_operands(const float* A, const float* B, float* C, int M, int N, int K) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N) return;
  float s = 0;
  for (int k = 0; k < K; ++k) s += to_tf32(A[static_cast<std::size_t>(i) * K + k]) * to_tf32(B[static_cast<std::size_t>(k) * N + j]);
  C[static_cast<std::size_t>(i) * N + j] = s;
}

// A "double" product computed in float.
__global__ void gemm_float_in_double(const double* A, const double* B, double* C, int M, int N, int K) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N) return;
  float s = 0;
  for (int k = 0; k < K; ++k)
    s += static_cast<float>(A[static_cast<std::size_t>(i) * K + k]) * static_cast<float>(B[static_cast<std::size_t>(k) * N + j]);
  C[static_cast<std::size_t>(i) * N + j] = s;
}

template <class T>
void gemm_launch(void (*k)(const T*, const T*, T*, int, int, int), const GemmArgs<T>& a, cudaStream_t s) {
  const dim3 block(16, 16), grid((a.N + 15) / 16, (a.M + 15) / 16);
  k<<<grid, block, 0, s>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  KL_CHECK_LAUNCH();
}

// ---- the planted variants ---------------------------------------------------------------------

template <class T>
ReduceVariant<T> planted(const char* name, void (*launch)(const ReduceArgs<T>&, cudaStream_t),
                         std::size_t (*ws)(std::size_t) = nullptr) {
  // The honest kernel's order: a serial chain per thread, 5 shuffle steps, then the warps' atomics.
  return {.info = {name, "red team", "a way to fool a harness"}, .launch = launch, .workspace_bytes = ws,
          .rounding_depth = [](std::size_t n) {
            return static_cast<double>(n / (kBlocks * kThreads) + 1 + 5 + kBlocks * kThreads / 32);
          }};
}

using R = ReduceArgs<float>;

std::vector<std::pair<ReduceVariant<float>, const char*>> reduce_plants() {
  return {
      // The legacy default stream instead of the one it is given.
      {planted<float>("default_stream", [](const R& a, cudaStream_t) {
         KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), cudaStreamLegacy));
         sum_atomic<float><<<kBlocks, kThreads, 0, cudaStreamLegacy>>>(a.in, a.n, a.out);
         KL_CHECK_LAUNCH();
       }),
       "stream it is given"},
      // A stream of its own.
      {planted<float>("own_stream", [](const R& a, cudaStream_t) {
         static cudaStream_t mine = [] {
           cudaStream_t st;
           KL_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
           return st;
         }();
         honest<float>(a, mine);
       }),
       "stream it is given"},
      // An allocation inside the launch.
      {planted<float>("allocates", [](const R& a, cudaStream_t s) {
         void* p = nullptr;
         KL_CUDA_CHECK(cudaMalloc(&p, 256));
         honest<float>(a, s);
         cudaFree(p);
       }),
       "other than enqueue work"},
      // A synchronisation inside the launch.
      {planted<float>("synchronises", [](const R& a, cudaStream_t s) {
         honest<float>(a, s);
         KL_CUDA_CHECK(cudaStreamSynchronize(s));
       }),
       "other than enqueue work"},
      // Skips its work when the output looks done.
      {planted<float>("skip_if_done", [](const R& a, cudaStream_t s) {
         bool* done = static_cast<bool*>(a.workspace);
         mark_done<float><<<1, 1, 0, s>>>(a.out, done);
         clear_unless_done<float><<<1, 1, 0, s>>>(a.out, done);
         sum_if_not_done<float><<<kBlocks, kThreads, 0, s>>>(a.in, a.n, a.out, done);
         KL_CHECK_LAUNCH();
       }, [](std::size_t) { return std::size_t{16}; }),
       ""},
      // Computes once per (input, output) pair of pointers, then launches nothing.
      {planted<float>("cached_by_pointer", [](const R& a, cudaStream_t s) {
         static const float* last_in = nullptr;
         static float* last_out = nullptr;
         if (a.in == last_in && a.out == last_out) return;
         last_in = a.in, last_out = a.out;
         honest<float>(a, s);
       }),
       ""},
      // One element past the end of the output.
      {planted<float>("write_past_end", [](const R& a, cudaStream_t s) {
         honest<float>(a, s);
         write_past_end<float><<<1, 1, 0, s>>>(a.out);
         KL_CHECK_LAUNCH();
       }),
       "past the end of its output"},
      // One element past the end of the input.
      {planted<float>("read_past_end", [](const R& a, cudaStream_t s) {
         honest<float>(a, s);
         read_past_end<float><<<1, 1, 0, s>>>(a.in, a.n, a.out);
         KL_CHECK_LAUNCH();
       }),
       ""},
      // An access-policy window keeping its input persisting in L2 (across the flush between samples).
      {planted<float>("access_policy_window", [](const R& a, cudaStream_t s) {
         KL_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), s));
         cudaLaunchAttribute attr{};
         attr.id = cudaLaunchAttributeAccessPolicyWindow;
         attr.val.accessPolicyWindow.base_ptr = const_cast<float*>(a.in);
         attr.val.accessPolicyWindow.num_bytes = std::min<std::size_t>(a.n * sizeof(float), 1 << 20);
         attr.val.accessPolicyWindow.hitRatio = 1.0f;
         attr.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
         attr.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
         cudaLaunchConfig_t cfg{};
         cfg.gridDim = kBlocks;
         cfg.blockDim = kThreads;
         cfg.stream = s;
         cfg.attrs = &attr;
         cfg.numAttrs = 1;
         KL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, sum_atomic<float>, a.in, a.n, a.out));
       }),
       "access-policy window"},
      // Accumulates into a workspace it never clears.
      {planted<float>("uninitialised_workspace", [](const R& a, cudaStream_t s) {
         float* acc = static_cast<float*>(a.workspace);
         sum_atomic<float><<<kBlocks, kThreads, 0, s>>>(a.in, a.n, acc);
         copy_first<float><<<1, 1, 0, s>>>(acc, a.out);
         KL_CHECK_LAUNCH();
       }, [](std::size_t) { return sizeof(float); }),
       ""},
  };
}

// Runs `v` through the real pipeline on problem `key` of family F, beside the library baselines,
// with a short timing; returns v's row.
template <class F, class T>
Row run_planted(const ProblemKey& key, const Variant<typename F::template Args<T>>& v) {
  using TF = TypedFamily<F>;
  auto& g = test::Gpu::get();
  static const double copy_gbps = measure_copy_bandwidth_gbps(g.timer, std::size_t{256} << 20, StopRule{});
  RunOptions opt;
  opt.time_variants = true;
  opt.stop.min_samples = 3;
  opt.stop.max_samples = 20;
  opt.stop.max_seconds = 0.05;
  opt.variant_patterns = {"none: library baselines only"};
  RunContext ctx{opt, g.dev, copy_gbps, g.timer};
  typename F::template Problem<T> p(key, ctx);
  auto cands = TF::template candidates<T>(p, opt);
  cands.insert(cands.begin(), TF::template bind<T>(v, p, TF::template size_for<T>(key, opt)));
  const auto& fam = static_cast<const TF&>(family<F>());
  const auto rows = execute(fam.template proto_row<T>(key, opt), p, cands, ctx, fresh_seed());
  REQUIRE(ctx.fatal.empty());
  for (const Row& r : rows) {
    INFO(r.variant << ": " << status_name(r.status) << " " << r.note);
    if (r.source == Source::library) CHECK(r.status == RowStatus::ok);
  }
  return rows.front();
}

}  // namespace

TEST_CASE("red team: every planted way to fool the harness fails its row, with the reason") {
  const Family& f = *find_family("reduce");
  // Under compute-sanitizer (KL_GPU_SUITE_QUICK=2) the small size alone.
  std::vector<long long> sizes = {100003LL};
  if (test::quick() < 2) sizes.push_back((1LL << 24) + 3);
  for (long long n : sizes) {
    const ProblemKey key = make_key(f, DType::f32, {n});
    for (const auto& plant : reduce_plants()) {
      const auto& v = plant.first;
      const char* reason = plant.second;
      CAPTURE(n);
      CAPTURE(v.info.name);
      const Row r = run_planted<ReduceFamily, float>(key, v);
      INFO(status_name(r.status) << ": " << r.note);
      CHECK((r.status == RowStatus::fail || r.status == RowStatus::error));
      CHECK_FALSE(r.note.empty());
      if (*reason) CHECK(r.note.find(reason) != std::string::npos);
    }
  }
  // The honest kernel the plants are built from passes the same pipeline.
  const Row ok = run_planted<ReduceFamily, float>(make_key(f, DType::f32, {100003LL}), planted<float>("honest", honest<float>));
  INFO(ok.note);
  CHECK(ok.status == RowStatus::ok);
}

TEST_CASE("red team: reduced precision in a product fails equality on the sentinels at every size") {
  const Family& f = *find_family("gemm");
  const GemmVariant<float> tf32{.info = {"tf32_operands", "red team", "TF32 operands in a float product"},
                                .launch = [](const GemmArgs<float>& a, cudaStream_t s) { gemm_launch(gemm_tf32_operands, a, s); }};
  const GemmVariant<double> in_float{.info = {"float_in_double", "red team", "float arithmetic in a double product"},
                                     .launch = [](const GemmArgs<double>& a, cudaStream_t s) { gemm_launch(gemm_float_in_double, a, s); }};
  for (Dims d : {Dims{31, 33, 17}, Dims{256, 256, 256}, Dims{1024, 512, 2048}}) {
    CAPTURE(d[0]);
    CAPTURE(d[2]);
    const Row rf = run_planted<GemmFamily, float>(make_key(f, DType::f32, d), tf32);
    INFO(rf.note);
    CHECK(rf.status == RowStatus::fail);
    CHECK(rf.exact_check.ran);
    CHECK_FALSE(rf.exact_check.pass);
    const Row rd = run_planted<GemmFamily, double>(make_key(f, DType::f64, d), in_float);
    INFO(rd.note);
    CHECK(rd.status == RowStatus::fail);
    CHECK_FALSE(rd.exact_check.pass);
  }
}

}  // namespace kl::redteam
