// The allreduce family on the GPUs: every variant × type against the fp64 reference, the exact
// integer-valued inputs and NCCL, on every GPU, at sizes that break every vector, chunk and grid
// assumption; mutants that must fail (an element dropped at either end, one GPU's input replaced
// by its poisoned output, one GPU's output never written); a GPU whose result is within the bound
// but differs from GPU 0's must fail; and the race test: every variant called back to back on
// each GPU's own stream, with no fork or join between calls, inputs rewritten before each call and
// one GPU held back in turn (before writing its input, or before the operation), must produce
// every call's sum on every GPU, while a one-shot without its barriers (the negative control) must
// not. Below two GPUs the cases that need them say so and return; the rows' skip is checked on any
// machine.
#include "compare/core/device_memory.hpp"
#include "gpu_test_support.hpp"

#if KL_HAVE_NCCL
#include "compare/families/family_allreduce.hpp"
#include "handwritten/allreduce/allreduce_common.cuh"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace kl;
using namespace kl::test;

namespace {

using Allreduce = TypedFamily<AllreduceFamily>;

bool have_two_gpus(const char* what) {
  if (visible_gpus() >= 2) return true;
  MESSAGE("allreduce: " << what << ": skipped, needs 2 GPUs (" << visible_gpus() << " visible)");
  return false;
}

std::vector<long long> sizes() {
  // 1..8 and 31..33: fewer elements than GPUs × a vector, tails of every length; 4099, 65537 and
  // 1000003 (prime): partial vectors, chunks and grids; powers of two from the sweep.
  // 29, 30 and 31 4-byte elements fill an LL128 line's 15 data words to one short, exactly and one
  // over; 245760 doubles and 491520 floats fill its lines exactly.
  std::vector<long long> s = {1,    2,    3,    4,    5,    7,    8,       29,      30,      31,     32,
                              33,   1000, 1023, 1024, 1025, 4099, 65537, 1 << 12, 1 << 16, 245760, 491520};
  if (quick() < 2) s.insert(s.end(), {1000003, 1 << 20});
  if (quick() < 1) s.insert(s.end(), {(1 << 24) + 3, 1 << 26});
  return s;
}

// The LL and LL128 steps declare messages over their lines' capacity unsupported, saying so, and
// the LL128 steps a group without NVLink between every pair.
bool too_large_for_lines(const Row& r) {
  const int gpus = std::min(visible_gpus(), kMaxGpus);
  const bool ll128 = r.variant == "allreduce10_one_shot_ll128" || r.variant == "allreduce11_one_shot_ll128_pdl" ||
                     r.variant == "allreduce12_two_shot_ll128_pdl";
  if (ll128 && !all_pairs_nvlink(gpus) && r.note.rfind("needs NVLink between every pair", 0) == 0) return true;
  return (r.variant == "allreduce8_one_shot_ll" && r.note.rfind("over 1 MiB per GPU", 0) == 0) ||
         ((r.variant == "allreduce10_one_shot_ll128" || r.variant == "allreduce11_one_shot_ll128_pdl") &&
          r.note.rfind("over 1.875 MiB per GPU", 0) == 0) ||
         (r.variant == "allreduce12_two_shot_ll128_pdl" && r.note.rfind("over G x 0.9375 MiB per GPU", 0) == 0);
}

long long mutant_size() { return quick() < 2 ? (1LL << 20) + 7 : 4099; }

}  // namespace

TEST_CASE("allreduce below two GPUs: every row skipped with its one-line reason") {
  Gpu& gpu = Gpu::get();
  RunOptions opt = gpu.opt;
  opt.settings["gpus"] = 1;
  RunContext ctx{opt, gpu.dev, 1.0, gpu.timer};
  const Family& f = family<AllreduceFamily>();
  const auto rows = f.run(make_key(f, DType::f32, {4099}), ctx);
  REQUIRE_FALSE(rows.empty());
  for (const Row& r : rows) {
    INFO(r.variant << ": " << r.note);
    CHECK(r.status == RowStatus::skipped);
    CHECK(r.note.find("needs at least 2 GPUs") != std::string::npos);
    CHECK(r.shape == "n=4099 gpus=1");
  }
}

TEST_CASE_TEMPLATE("every allreduce variant passes at every size on every GPU", T, int, float, double) {
  if (!have_two_gpus("every variant at every size")) return;
  for (long long n : sizes()) {
    CAPTURE(n);
    const auto rows = run_family("allreduce", dtype_of<T>(), {n});
    CHECK(rows.front().shape == "n=" + std::to_string(n) + " gpus=" + std::to_string(visible_gpus() < kMaxGpus ? visible_gpus() : kMaxGpus));
    expect_all_pass(rows, too_large_for_lines);
  }
}

TEST_CASE_TEMPLATE("mutants: every allreduce variant with an element dropped or a GPU's data wrong fails", T, int, float, double) {
  if (!have_two_gpus("mutants")) return;
  // A size past the LL one-shot's lines and one within them (where it runs), unless they agree.
  std::vector<long long> ns = {mutant_size()};
  if (ns.front() != 4099) ns.push_back(4099);
  for (long long n : ns) {
    CAPTURE(n);
    const ProblemKey key = make_key(family<AllreduceFamily>(), dtype_of<T>(), {n});
    const int G = AllreduceFamily::Problem<T>::size_of(key, Gpu::get().opt).gpus;
    expect_mutants_fail<AllreduceFamily, T>(key, [](const AllreduceArgs<T>& a, cudaStream_t) {
      auto b = a;
      b.n -= 1;  // the last element, on every GPU
      return b;
    }, "last element dropped");
    expect_mutants_fail<AllreduceFamily, T>(key, [G](const AllreduceArgs<T>& a, cudaStream_t) {
      auto b = a;
      for (int r = 0; r < G; ++r) b.in[r] += 1, b.out[r] += 1, b.pinned[r] += 1;  // the first (and unaligned)
      b.n -= 1;
      return b;
    }, "first element dropped");
    expect_mutants_fail<AllreduceFamily, T>(key, [](const AllreduceArgs<T>& a, cudaStream_t) {
      auto b = a;
      b.in[1] = b.out[1];  // GPU 1 contributes its poisoned output, not its input
      return b;
    }, "GPU 1's input replaced by its output");
    for (int r : {0, G - 1}) {
      DeviceArray<T> elsewhere;
      {
        DeviceScope dev;
        dev.to(r);
        elsewhere = DeviceArray<T>(static_cast<std::size_t>(n));
      }
      expect_mutants_fail<AllreduceFamily, T>(key, [&, r](const AllreduceArgs<T>& a, cudaStream_t) {
        auto b = a;
        b.out[r] = elsewhere.get();  // GPU r's output stays poisoned: every GPU is checked
        return b;
      }, r == 0 ? "GPU 0's output never written" : "the last GPU's output never written");
    }
  }
}

TEST_CASE_TEMPLATE("--ops: N operations back to back in one graph, replayed, give every variant's sum", T, int, float, double) {
  if (!have_two_gpus("--ops graphs")) return;
  Gpu& gpu = Gpu::get();
  RunOptions opt = gpu.opt;
  opt.settings["ops"] = 4;
  opt.time_variants = true;  // the graph replayed for warm-up and samples, its last run validated
  opt.stop.max_seconds = 0.02;
  RunContext ctx{opt, gpu.dev, 0.0, gpu.timer};  // no copy ceiling: the suite measures none
  const Family& f = family<AllreduceFamily>();
  std::vector<long long> ns = {1, 33, 4099, 65537};
  if (quick() < 2) ns.push_back((1 << 20) + 3);
  for (long long n : ns) {
    CAPTURE(n);
    const auto rows = f.run(make_key(f, dtype_of<T>(), {n}), ctx);
    REQUIRE(ctx.fatal.empty());
    expect_all_pass(rows, too_large_for_lines);
    for (const Row& r : rows) {
      CHECK(std::find(r.axes.begin(), r.axes.end(), std::pair<std::string, std::string>{"ops", "4"}) != r.axes.end());
      if (r.status == RowStatus::ok) CHECK(r.time_ms.median > 0);
    }
  }
}

TEST_CASE("a GPU whose result is within the bound but differs from GPU 0's fails") {
  if (!have_two_gpus("results identical on every GPU")) return;
  Gpu& gpu = Gpu::get();
  RunOptions opt = gpu.opt;
  opt.exact_check = false;
  RunContext ctx{opt, gpu.dev, 1.0, gpu.timer};
  const ProblemKey key = make_key(family<AllreduceFamily>(), DType::f32, {4099});
  Allreduce::P<float> p(key, ctx);
  REQUIRE(p.unsupported().empty());
  const auto& nccl = Allreduce::variants_of<float>().back();
  REQUIRE(nccl.info.name == "nccl_allreduce");
  Candidate c;
  c.info = {"one_ulp_off_on_gpu1", "test", "", Source::handwritten};
  c.rounding_depth = 1000;  // a bound far above one ulp: only the identity check can fail it
  c.launch = [&](void* ws, cudaStream_t s) {
    const auto a = p.args(ws);
    nccl.launch(a, s);
    KL_CUDA_CHECK(cudaStreamSynchronize(s));
    float v = 0;
    KL_CUDA_CHECK(cudaMemcpy(&v, a.out[1] + 7, sizeof v, cudaMemcpyDeviceToHost));
    v = std::nextafter(v, INFINITY);
    KL_CUDA_CHECK(cudaMemcpy(a.out[1] + 7, &v, sizeof v, cudaMemcpyHostToDevice));
  };
  std::vector<Candidate> cands = {c};
  const auto rows = execute(Allreduce{}.proto_row(key), p, cands, ctx, fresh_seed());
  REQUIRE(rows.size() == 1);
  INFO(rows[0].note);
  CHECK(rows[0].status == RowStatus::fail);
  CHECK(rows[0].check.detail.find("differs from GPU 0's at element 7") != std::string::npos);
}

TEST_CASE("the peer copy ceiling is measured on the group") {
  if (!have_two_gpus("peer copy ceiling") || quick() >= 2) return;
  const int G = std::min(visible_gpus(), kMaxGpus);
  StopRule rule;
  rule.max_seconds = 0.5;
  const double gbps = peer_copy_gbps(gpu_group(G, 0), Gpu::get().timer, rule);
  MESSAGE("peer copy: " << gbps << " GB/s per GPU each way, " << G << " GPUs at once");
  CHECK(gbps > 1);
  CHECK(gbps < 10000);
}

// ---------------------------------------------------------------------------------------------
// The race test: NCCL's per-GPU contract (common/gpu_group.hpp), with nothing else to hide a race.

namespace {

__global__ void hold_back(std::uint64_t ns) {
  const std::uint64_t t0 = allreduce::global_ns();
  while (allreduce::global_ns() - t0 < ns) {
  }
}

// The negative control: the one-shot without its barriers. Reading a peer's input before the
// peer has written it, or after it has moved on, must be caught.
template <class T>
__global__ void unsynchronised_one_shot(allreduce::RankView<T> v) {
  allreduce::sum_range<4, false>(v.in, v.gpus, 0, v.n, false, allreduce::StoreTo<T>{v.out[v.rank]});
}

template <class T>
void unsynchronised_launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const OpStreams o = begin_op(g, s);
  const unsigned grid = allreduce::barrier_grid(g, ceil_div(a.n, std::size_t{4}));
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    dev.to(g.device[r]);
    unsynchronised_one_shot<T><<<grid, allreduce::kThreads, 0, o.s[r]>>>(allreduce::rank_view(a, r, 0));
    KL_CHECK_LAUNCH();
  }
  end_op(g, o, s);
}

// Call k's input on GPU r: distinct for every call, and every sum of them exact in any type.
template <class T>
T race_value(int k, int r) {
  return static_cast<T>(1000 * (k + 1) + 7 * r + 1);
}

// Runs `v` `calls` times back to back, each GPU's part ordered only on its own stream. Before
// each call every GPU rewrites its input; one GPU in turn is held back (a set delay, unmeasured), before writing its
// input (a peer reading early sees the previous call's) or before the operation (a peer that
// leaves early rewrites its input under a slow reader). After each call every GPU copies its
// output aside. Returns "" when every GPU has every call's sum, else the first difference.
template <class T>
std::string race(const AllreduceVariant<T>& v, std::size_t n, int calls) {
  Gpu& gpu = Gpu::get();
  RunContext ctx = gpu.ctx();
  const ProblemKey key = make_key(family<AllreduceFamily>(), dtype_of<T>(), {static_cast<long long>(n)});
  Allreduce::P<T> p(key, ctx);
  REQUIRE(p.unsupported().empty());
  const AllreduceSize size = Allreduce::P<T>::size_of(key, gpu.opt);
  const int G = size.gpus;
  DeviceArray<char> ws0(v.workspace_bytes ? v.workspace_bytes(size) : 0);  // rank 0 is the runner's
  AllreduceArgs<T> a = p.args(ws0.get());
  GpuGroup unordered = *a.group;
  unordered.ordered_by_runner = false;
  a.group = &unordered;
  if (v.prepare) v.prepare();
  std::vector<DeviceArray<T>> kept;
  DeviceScope dev;
  for (int r = 0; r < G; ++r) {
    dev.to(r);
    kept.emplace_back(n * static_cast<std::size_t>(calls));
  }
  for (int k = 0; k < calls; ++k) {
    const int slow = k % G;
    const bool before_input = (k / G) % 2 == 0;
    for (int r = 0; r < G; ++r) {
      dev.to(r);
      cudaStream_t s = unordered.stream[r];
      if (r == slow && before_input) hold_back<<<1, 1, 0, s>>>(200000);
      fill_device(const_cast<T*>(a.in[r]), n, race_value<T>(k, r), s);  // the problem's own input buffers
      if (r == slow && !before_input) hold_back<<<1, 1, 0, s>>>(200000);
      KL_CHECK_LAUNCH();
    }
    v.launch(a, gpu.timer.stream());
    for (int r = 0; r < G; ++r) {
      dev.to(r);
      KL_CUDA_CHECK(cudaMemcpyAsync(kept[static_cast<std::size_t>(r)].get() + static_cast<std::size_t>(k) * n, a.out[r],
                                    n * sizeof(T), cudaMemcpyDeviceToDevice, unordered.stream[r]));
    }
  }
  for (int r = 0; r < G; ++r) KL_CUDA_CHECK(cudaStreamSynchronize(unordered.stream[r]));
  std::vector<T> got(n * static_cast<std::size_t>(calls));
  for (int r = 0; r < G; ++r) {
    KL_CUDA_CHECK(cudaMemcpy(got.data(), kept[static_cast<std::size_t>(r)].get(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (int k = 0; k < calls; ++k) {
      T want = 0;
      for (int j = 0; j < G; ++j) want += race_value<T>(k, j);
      for (std::size_t i = 0; i < n; ++i) {
        const T x = got[static_cast<std::size_t>(k) * n + i];
        if (x != want)
          return "call " + std::to_string(k) + ", GPU " + std::to_string(r) + ", element " + std::to_string(i) + ": " +
                 std::to_string(x) + " instead of " + std::to_string(want);
      }
    }
  }
  return "";
}

}  // namespace

TEST_CASE_TEMPLATE("race: back to back on each GPU's own stream, every variant gives every call's sum", T, int, float) {
  if (!have_two_gpus("race test")) return;
  std::vector<std::pair<std::size_t, int>> runs = {{4099, 12}};
  if (quick() < 2) runs.push_back({(std::size_t{1} << 20) + 3, 6});
  for (const auto& run : runs) {
    const std::size_t n = run.first;
    const int calls = run.second;
    CAPTURE(n);
    for (const auto& v : Allreduce::variants_of<T>()) {
      INFO(v.info.name);
      const int gpus = std::min(visible_gpus(), kMaxGpus);
      if (v.unsupported && v.unsupported({n, gpus, all_pairs_nvlink(gpus)})) continue;  // the LL steps past their lines
      CHECK(race<T>(v, n, calls) == "");
    }
    const AllreduceVariant<T> control{.info = {"test_unsynchronised_one_shot", "test", "no barriers"},
                                      .launch = unsynchronised_launch<T>};
    const std::string caught = race<T>(control, n, calls);
    MESSAGE("negative control (no barriers) at n = " << n << ": " << (caught.empty() ? "not caught" : caught));
    // Held back (the set delay, unmeasured), a GPU is still writing its input while its peers read it, unless a tool
    // stretches every launch past that (compute-sanitizer, KL_GPU_SUITE_QUICK=2).
    if (quick() < 2) CHECK(caught != "");
  }
}

#endif  // KL_HAVE_NCCL
