// Family "allreduce": G GPUs each hold n elements; afterwards every GPU holds the element-wise sum
// of all G arrays (NCCL's all-reduce with ncclSum). Beyond the documents: their lesson (a tree of
// partial sums, then fewer and better passes) carried across GPUs; docs/allreduce.md.
//
// One process drives every GPU: rank r is device r, devices 0 .. G-1, G = --gpus N or every
// visible device. The problem owns, per GPU, the input and output (and the workspace of every
// rank but the runner's, whose workspace the runner allocates and poisons as for any family), and
// uses the process's group (compare/families/allreduce_group.hpp: streams, peer access, flags, NCCL
// communicators), made once, outside any timing.
//
// Timing. The runner records its events on its one stream, on the runner's GPU (rank of
// --device, 0 by default). Each launcher forks from that stream to every GPU's stream (an event
// recorded on the runner's stream, cudaStreamWaitEvent on each GPU's) and joins back (an event on
// each GPU's stream, the runner's stream waits for all): the runner's events therefore measure
// the operation from the first GPU's start to the last GPU's end (common/gpu_group.hpp). The L2
// flush before each sample empties the runner's GPU's L2 only. At small sizes the host's enqueue
// of the fork, G launches and the join is part of what is measured, for NCCL as for the ladder.
//
// Validation: every GPU's output is downloaded and checked against the fp64 reference (a
// compensated sum of the G values of each element): integers exactly, floats within
// gamma(G-1)·Σ_g|x_g[i]| plus the reference's own error (the variant's rounding depth; G-1 by
// default, any order); a second input set of integer values (|x| ≤ 1000, never 0) for equality,
// so a dropped, doubled or misplaced contribution fails; outputs poisoned on every GPU before every
// validation run; every GPU's result must be bit-identical to GPU 0's (all-reduce results must not
// depend on the rank: data-parallel training keeps replicas in step by it; NCCL's ring and tree
// reduce each element once and broadcast it); each hand-written variant is cross-checked against
// NCCL's output on the same GPU.
//
// Metrics as nccl-tests define them: the rate is the bus bandwidth busbw = algbw·2(G-1)/G, shown
// with the algorithm bandwidth algbw = n·sizeof(T) / time; the ceiling is the peer copy bandwidth
// measured in the same run (every GPU copying 256 MiB to the next at once), the figure busbw is
// comparable with.
#pragma once

#include "common/args/allreduce_args.hpp"
#include "common/gpu_group.hpp"
#include "compare/families/allreduce_group.hpp"
#include "compare/core/family_core.hpp"
#include "compare/families/multi_gpu.hpp"
#include "compare/core/reference.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

namespace kl {

namespace allreduce_detail {

// Page-locked host memory that every GPU can read through its mapping (the host path's buffers).
struct MappedPinnedAlloc {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    KL_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    return p;
  }
  static void release(void* p) { cudaFreeHost(p); }
};

// f(lo, hi) over [0, n) in chunks on every core (the reference for 2^28 elements per GPU).
template <class F>
void parallel_chunks(std::size_t n, F&& f) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = std::max<std::size_t>(1, std::min(cores, n >> 16));
  std::vector<std::thread> threads;
  for (std::size_t c = 1; c < chunks; ++c) threads.emplace_back([&, c] { f(n * c / chunks, n * (c + 1) / chunks); });
  f(0, n / chunks);
  for (auto& t : threads) t.join();
}

// --ops N (N > 1): N operations of one variant, back to back on every rank's own stream (no fork
// or join between them, NCCL's per-GPU contract: common/gpu_group.hpp), forked from the runner's
// stream once and joined back once, captured into one CUDA graph per (variant, arguments) and
// replayed for every run. The samples then time N warm operations with no host enqueue between
// them, as nccl-tests (-G, averaged over its iterations) and vLLM report an all-reduce; the row
// divides by N. Replays repeat the host's generations g1..gN of the steps that draw them: their
// flags compare for equality, and every operation rewrites every flag it waits on, so what a
// flag holds when an operation waits for gi is g(i-1) or g(i-2) of this replay or the last ones of
// the previous replay, never gi, unless the peer has just written it. The push steps split their
// flags and staging into two sets by the generation's parity: N even keeps the halves alternating
// across a replay's boundary, and N >= 4 gives each set two generations per replay (with N = 2,
// a set's only flag value would still hold the previous replay's). The LL step counts its epochs
// on the GPU and needs neither.
template <class T>
class OpsGraph {
 public:
  using Args = AllreduceArgs<T>;
  OpsGraph() = default;
  OpsGraph(const OpsGraph&) = delete;
  OpsGraph& operator=(const OpsGraph&) = delete;
  ~OpsGraph() {
    for (auto& e : graphs_) (void)cudaGraphExecDestroy(e.exec);
  }

  void run(const AllreduceVariant<T>& v, Args a, const GpuGroup& unordered, int ops, cudaStream_t s) {
    a.group = &unordered;
    for (const Entry& e : graphs_)
      if (e.launch == v.launch && std::memcmp(&e.args, &a, sizeof a) == 0) {
        KL_CUDA_CHECK(cudaGraphLaunch(e.exec, s));
        return;
      }
    Entry e{v.launch, a, capture(v, a, unordered, ops, s)};
    graphs_.push_back(e);
    KL_CUDA_CHECK(cudaGraphLaunch(e.exec, s));
  }

 private:
  struct Entry {
    void (*launch)(const Args&, cudaStream_t);
    Args args;
    cudaGraphExec_t exec;
  };
  static cudaGraphExec_t capture(const AllreduceVariant<T>& v, const Args& a, const GpuGroup& g, int ops,
                                 cudaStream_t s) {
    KL_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    cudaGraph_t graph = nullptr;
    try {
      KL_CUDA_CHECK(cudaEventRecord(g.fork, s));
      {
        DeviceScope dev;
        for (int r = 0; r < g.gpus; ++r) {
          dev.to(g.device[r]);
          KL_CUDA_CHECK(cudaStreamWaitEvent(g.stream[r], g.fork, 0));
        }
      }
      for (int i = 0; i < ops; ++i) v.launch(a, s);  // g is unordered: each rank on its own stream
      DeviceScope dev;
      for (int r = 0; r < g.gpus; ++r) {
        dev.to(g.device[r]);
        KL_CUDA_CHECK(cudaEventRecord(g.joined[r], g.stream[r]));
      }
      dev.to(g.device[g.runner_rank]);
      for (int r = 0; r < g.gpus; ++r) KL_CUDA_CHECK(cudaStreamWaitEvent(s, g.joined[r], 0));
    } catch (...) {
      (void)cudaStreamEndCapture(s, &graph);
      if (graph) (void)cudaGraphDestroy(graph);
      throw;
    }
    KL_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    KL_CUDA_CHECK(made);
    return exec;
  }
  std::vector<Entry> graphs_;
};

}  // namespace allreduce_detail

struct AllreduceFamily : FamilyTraits {
  static constexpr std::string_view name = "allreduce";
  static constexpr std::string_view summary =
      "every GPU ends with the element-wise sum of all GPUs' arrays (n elements per GPU; NCCL's all-reduce), "
      "one process driving G GPUs (--gpus)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<int, float, double>;
  static std::vector<DType> default_types() { return {DType::f32}; }
  // An operation across G GPUs' streams (forked from the runner's stream and joined back, with
  // cross-GPU flags) is not captured: its launches are not stream-checked.
  static constexpr bool stream_check = false;
  // n per GPU. Defaults (float): 4 KiB (latency), 256 KiB and 2 MiB (where the one-shot and the
  // two-shot cross, and where NCCL changes protocol), 256 MiB (bandwidth). The sweep: 8 B .. 1 GiB
  // per GPU for float and int.
  static SizeSpec sizes() {
    return {.dims = {"n"},
            .max_dim = 1LL << 36,
            .defaults = {{1LL << 10}, {1LL << 16}, {1LL << 19}, {1LL << 26}},
            .sweep_lo = 1,
            .sweep_hi = 28};
  }
  // --gpus N: drive devices 0..N-1 (default: every visible one). --ops N: time N operations back
  // to back per sample (allreduce_detail::OpsGraph).
  static std::vector<FamilySetting> settings() {
    return {{.name = "gpus",
             .help = "GPUs a multi-GPU family drives, devices 0..N-1 (default: every visible one, at most " +
                     std::to_string(kMaxGpus) + "; only allreduce reads it)",
             .min = 1,
             .max = kMaxGpus,
             .refuse = [](long long gpus, int device_count) -> std::string {
               if (gpus <= device_count) return "";
               return "only " + std::to_string(device_count) + " CUDA device" + (device_count == 1 ? "" : "s") + " visible";
             }},
            {.name = "ops",
             .help = "allreduce: operations per timed sample (default 1: one cold operation, forked and joined); N >= 4 "
                     "(even): N back to back on every GPU's own stream in one CUDA graph, warm, the time per operation "
                     "(nccl-tests' and vLLM's way)",
             .min = 1,
             .max = 100000,
             .refuse = [](long long ops, int) -> std::string {
               if (ops == 1 || (ops >= 4 && ops % 2 == 0)) return "";
               return "must be 1, or even and at least 4: a replayed graph repeats its operations' generations, and "
                      "the push steps alternate two staging halves and two flag sets by the generation's parity";
             }}};
  }
  // --gpus 1 is accepted (a one-GPU machine lists what it would skip) and skips every problem.
  static std::string planned_skip(const RunOptions& opt) {
    const long long gpus = opt.setting("gpus", 0);
    if (gpus == 1) return "needs at least 2 GPUs; --gpus 1 drives one";
    return {};
  }
  template <class T> using Args = AllreduceArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return allreduce_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return allreduce_library<T>(); }

  template <class T>
  class Problem final : public kl::Problem {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx) : key_(k), size_(size_of(k, ctx.opt)) {
      why_ = gpu_group_unsupported(size_.gpus, ctx.dev.index);
      if (why_.empty() && ctx.opt.end_to_end)
        why_ = "no end-to-end mode: an all-reduce's inputs start and its results end on the GPUs";
      if (!why_.empty()) return;
      group_ = &gpu_group(size_.gpus, ctx.dev.index);
      runner_rank_ = group_->runner_rank;
      unordered_ = *group_;
      unordered_.ordered_by_runner = false;
      ops_ = static_cast<int>(ctx.opt.setting("ops", 1));
      if (ctx.opt.time_variants) peer_gbps_ = peer_copy_gbps(*group_, ctx.timer, ctx.opt.stop);
      ceiling_label_ = peer_gbps_ > 0 ? "peer copy " + std::to_string(static_cast<long>(peer_gbps_ + 0.5)) +
                                            " GB/s per GPU each way, all " + std::to_string(size_.gpus) +
                                            " copying to the next at once (measured)"
                                      : "peer copy (not measured)";
      ceiling_label_ += "; " + nccl_version_text() + ", NCCL_NVLS_ENABLE=" + keep_nvlink_multicast_off();
      if (ops_ > 1)
        ceiling_label_ += "; times per operation: " + std::to_string(ops_) +
                          " operations back to back per sample, one CUDA graph, warm (--ops)";
      const std::size_t n = size_.n;
      for (const auto& v : handwritten<T>()) ws_bytes_ = std::max(ws_bytes_, v.workspace_bytes ? v.workspace_bytes(size_) : 0);
      for (const auto& v : library<T>()) ws_bytes_ = std::max(ws_bytes_, v.workspace_bytes ? v.workspace_bytes(size_) : 0);
      DeviceScope dev;
      for (int r = 0; r < size_.gpus; ++r) {
        dev.to(group_->device[r]);
        in_.emplace_back(n);
        out_.emplace_back(n);
        ws_.emplace_back(r == runner_rank_ ? 0 : ws_bytes_);
        pinned_.emplace_back(n);
        host_.emplace_back(n);
      }
      ref_.resize(n);
      scale_.resize(n);
      slack_.resize(n);
    }

    // The GPUs are part of the size: how many the run drives (RunOptions::gpus, or all visible).
    static AllreduceSize size_of(const ProblemKey& k, const RunOptions& opt) {
      const int gpus = resolve_gpus(opt, visible_gpus());
      return {static_cast<std::size_t>(k.dims.at(0)), gpus, all_pairs_nvlink(gpus)};
    }
    // --ops N > 1 is an axis too: a warm operation's time is not comparable with a cold one's.
    static AxisValues run_axes(const ProblemKey& k, const RunOptions& opt) {
      AxisValues a = {{"gpus", std::to_string(size_of(k, opt).gpus)}};
      if (const long long ops = opt.setting("ops", 1); ops > 1) a.push_back({"ops", std::to_string(ops)});
      return a;
    }
    // Per GPU (the runner checks them against its own GPU's free memory).
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) { return {static_cast<std::size_t>(k.dims.at(0))}; }
    static std::size_t output_size(const ProblemKey& k) { return static_cast<std::size_t>(k.dims.at(0)); }
    static std::size_t scratch_bytes(const ProblemKey&) { return 0; }

    std::string unsupported() const { return why_; }
    const ProblemKey& key() const { return key_; }
    double default_depth() const { return std::max(1, size_.gpus - 1); }

    Args<T> args(void* ws) const {
      Args<T> a{};
      a.group = group_;
      a.n = size_.n;
      for (int r = 0; r < size_.gpus; ++r) {
        const auto i = static_cast<std::size_t>(r);
        a.in[r] = in_[i].get();
        a.out[r] = out_[i].get();
        a.workspace[r] = r == runner_rank_ ? ws : static_cast<void*>(ws_[i].get());
        a.pinned[r] = pinned_[i].get();
      }
      return a;
    }

    // How the runner launches a variant (TypedFamily::bind): directly, or, under --ops N > 1, as
    // N operations in one replayed graph.
    void launch_variant(const AllreduceVariant<T>& v, const Args<T>& a, cudaStream_t s) {
      if (ops_ <= 1) return v.launch(a, s);
      ops_graph_.run(v, a, unordered_, ops_, s);
    }
    int ops_per_launch() const { return ops_ > 1 ? ops_ : 1; }

    bool has_exact_inputs() const override { return !std::is_integral_v<T>; }

    void load_inputs(InputKind kind, std::uint64_t seed) override {
      kind_ = kind;
      has_lib_ = false;
      if (!why_.empty()) return;
      const std::size_t n = size_.n;
      const int G = size_.gpus;
      SplitMix64 seeds(seed);
      for (int r = 0; r < G; ++r) {
        const auto i = static_cast<std::size_t>(r);
        const std::uint64_t s = seeds.next();
        if (kind == InputKind::random) fill_random(host_[i].data(), n, s);
        else fill_exact(host_[i].data(), n, s, exact_values<T>(G));  // every partial sum of G values exact
        KL_CUDA_CHECK(cudaMemcpy(in_[i].get(), host_[i].data(), n * sizeof(T), cudaMemcpyHostToDevice));
      }
      allreduce_detail::parallel_chunks(n, [&](std::size_t lo, std::size_t hi) {
        T x[kMaxGpus];
        for (std::size_t e = lo; e < hi; ++e) {
          for (int r = 0; r < G; ++r) x[r] = host_[static_cast<std::size_t>(r)][e];
          const SumReference s = reference_sum(x, static_cast<std::size_t>(G));
          if constexpr (std::is_integral_v<T>) {
            ref_[e] = wrap_int32(s.exact_int), scale_[e] = 0, slack_[e] = 0;
          } else {
            ref_[e] = s.sum, scale_[e] = s.abs_sum, slack_[e] = s.self_error;
          }
        }
      });
      if constexpr (std::is_integral_v<T>) {
        // A poison no element's reference holds (|ref| <= G·1000 for the family's inputs).
        poison_ = static_cast<T>(0x5eadbeef);
        for (bool clash = true; clash;) {
          clash = std::find(ref_.begin(), ref_.end(), static_cast<double>(poison_)) != ref_.end();
          if (clash) ++poison_;
        }
      }
    }

    void poison(cudaStream_t, int pattern) override {
      if (!why_.empty()) return;
      DeviceScope dev;
      for (int r = 0; r < size_.gpus; ++r) {
        const auto i = static_cast<std::size_t>(r);
        dev.to(group_->device[r]);
        cudaStream_t s = group_->stream[r];
        if constexpr (std::is_integral_v<T>) fill_device(out_[i].get(), size_.n, poison_, s);
        else KL_CUDA_CHECK(cudaMemsetAsync(out_[i].get(), pattern & 1 ? 0x7f : 0xff, size_.n * sizeof(T), s));  // NaN, or finite
        if (ws_[i].get()) KL_CUDA_CHECK(cudaMemsetAsync(ws_[i].get(), 0xff, ws_bytes_, s));  // as the runner's
        KL_CUDA_CHECK(cudaStreamSynchronize(s));
      }
    }

    Check validate(const Candidate& c) override {
      const double f = factor(c);
      if (kind_ == InputKind::random && !meaningful_factor(f)) return meaningless_bound(c.rounding_depth, f);
      return check_ranks(nullptr, [&](std::size_t e) { return bound(f, e); }, true);
    }
    void keep_as_library(const Candidate& c) override {
      lib_.resize(static_cast<std::size_t>(size_.gpus));
      for (int r = 0; r < size_.gpus; ++r) download(r, lib_[static_cast<std::size_t>(r)]);
      lib_factor_ = factor(c);
      has_lib_ = true;
    }
    bool has_library_output() const override { return has_lib_; }
    // |got - NCCL's| within both bounds, GPU by GPU (each lies within its own of the truth).
    Check cross_check(const Candidate& c) override {
      const double f = factor(c) + lib_factor_;
      return check_ranks(&lib_, [&](std::size_t e) { return kind_ == InputKind::exact ? 0.0 : f * scale_[e]; }, false);
    }
    void copy_inputs_to_device(cudaStream_t) override { throw std::logic_error("allreduce has no end-to-end mode"); }
    void copy_outputs_to_host(cudaStream_t) override { throw std::logic_error("allreduce has no end-to-end mode"); }

    Metric metric() const override {
      return allreduce_metric(static_cast<double>(size_.n * sizeof(T)), size_.gpus, peer_gbps_, ceiling_label_);
    }

   private:
    double factor(const Candidate& c) const {
      return kind_ == InputKind::exact ? 0.0 : gamma_bound(c.rounding_depth, unit_roundoff<T>());
    }
    double bound(double f, std::size_t e) const {
      if (kind_ == InputKind::exact) return 0.0;
      return (scale_[e] == 0 ? 0.0 : f * scale_[e]) + slack_[e];
    }
    void download(int r, std::vector<T>& dst) const {
      dst.resize(size_.n);
      KL_CUDA_CHECK(cudaMemcpy(dst.data(), out_[static_cast<std::size_t>(r)].get(), size_.n * sizeof(T),
                               cudaMemcpyDeviceToHost));
    }

    // Checks every GPU's output against the reference (against == nullptr) or against the kept
    // library outputs, GPU by GPU: the first failing GPU's check, else the one nearest its bound.
    // same_everywhere: every GPU's output must also equal GPU 0's bit for bit.
    template <class Bound>
    Check check_ranks(const std::vector<std::vector<T>>* against, Bound&& bound_of, bool same_everywhere) {
      Check worst;
      for (int r = 0; r < size_.gpus; ++r) {
        std::vector<T>& got = r == 0 ? first_ : got_;
        download(r, got);
        const std::vector<T>* lib = against ? &(*against)[static_cast<std::size_t>(r)] : nullptr;
        Check c = check_elements(size_.n, [&](CheckAccumulator& acc, std::size_t e) {
          acc.add(e, static_cast<double>(got[e]), lib ? static_cast<double>((*lib)[e]) : ref_[e], bound_of(e));
        });
        if (!c.pass) {
          c.detail = "GPU " + std::to_string(r) + ": " + c.detail;
          return c;
        }
        if (same_everywhere && r > 0 && std::memcmp(got.data(), first_.data(), size_.n * sizeof(T)) != 0) {
          std::size_t e = 0;
          while (std::memcmp(&got[e], &first_[e], sizeof(T)) == 0) ++e;
          c.pass = false;
          c.bad_count = 1;
          c.worst_index = e;
          c.detail = "GPU " + std::to_string(r) + "'s result differs from GPU 0's at element " + std::to_string(e) + " (" +
                     std::to_string(got[e]) + " vs " + std::to_string(first_[e]) +
                     "): every GPU must hold the same sum, bit for bit";
          return c;
        }
        if (r == 0 || c.worst_ratio > worst.worst_ratio) worst = c;
      }
      return worst;
    }

    ProblemKey key_;
    AllreduceSize size_;
    std::string why_;  // non-empty: no variant runs (fewer than two GPUs, no peer access, ...)
    const GpuGroup* group_ = nullptr;
    GpuGroup unordered_;  // the group with each rank's part ordered on its own stream only (--ops)
    int ops_ = 1;
    allreduce_detail::OpsGraph<T> ops_graph_;
    int runner_rank_ = 0;
    double peer_gbps_ = 0;
    std::string ceiling_label_;
    std::size_t ws_bytes_ = 0;
    std::vector<DeviceArray<T>> in_, out_;
    std::vector<DeviceArray<char>> ws_;
    std::vector<OwnedArray<T, allreduce_detail::MappedPinnedAlloc>> pinned_;
    std::vector<std::vector<T>> host_;
    std::vector<double> ref_, scale_, slack_;
    std::vector<T> first_, got_;
    std::vector<std::vector<T>> lib_;
    double lib_factor_ = 0;
    bool has_lib_ = false;
    InputKind kind_ = InputKind::random;
    T poison_{};
  };
};

}  // namespace kl
