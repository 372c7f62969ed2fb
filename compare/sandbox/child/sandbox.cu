// kl-sandbox: the one process that runs a submission's code. compare starts one per submission
// (compare/sandbox/sandbox_process.cpp) and keeps every check on its own side: this process only
// loads the submission's module, says what it registered, evaluates its hooks, and launches it on
// buffers compare owns (opened through CUDA IPC handles), then reports what it did.
//
//   kl-sandbox --list MODULE          the module's registrations as JSON on stdout (no GPU needed)
//   kl-sandbox --serve MODULE DEVICE  commands on fd 3, replies on fd 4, one JSON object a line
//
// A launch is only ever called inside a stream capture (global mode), and what runs afterwards,
// timed or not, is a replay of the captured graph, checked to hold nothing but kernels, memsets
// and device-to-device copies: work the launch did elsewhere is never what is timed. Between
// timed samples the inputs are scaled by signed powers of two (exact) in an order compare chose,
// and copies of chosen samples' outputs go to compare's buffers, so a result kept between launches
// either misses or is found wrong there. Each sample is bracketed by the GPU's global timer,
// written to compare's buffer, so compare checks the reported times against a clock it reads itself.
#include "common/submission_abi.hpp"
#include "compare/core/clock_marks.cuh"
#include "common/l2_flush.cuh"
#include "compare/core/scale.cuh"
#include "compare/core/stats.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

// ---- the module --------------------------------------------------------------------------------

struct Module {
  const KlSubmissionEntry* entries = nullptr;
  std::size_t count = 0;
};

Module load_module(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("cannot load the submission's module: ") + dlerror());
  auto fn = reinterpret_cast<KlSubmissionEntriesFn>(dlsym(h, "kl_submission_entries"));
  if (!fn) throw std::runtime_error("the module exports no kl_submission_entries (does a file include common/user_kernel.hpp?)");
  Module m;
  m.entries = fn(&m.count);
  return m;
}

std::string str(const char* s) { return s ? s : ""; }

json listing(const Module& m) {
  json out = json::array();
  for (std::size_t i = 0; i < m.count; ++i) {
    const KlSubmissionEntry& e = m.entries[i];
    out.push_back({{"family", str(e.family)}, {"args", str(e.args_kind)}, {"dtype", str(e.dtype)},
                   {"name", str(e.name)}, {"origin", str(e.origin)}, {"lesson", str(e.lesson)},
                   {"error_model", str(e.error_model)}, {"file", str(e.file)}, {"line", e.line},
                   {"args_bytes", e.args_bytes}, {"size_bytes", e.size_bytes}, {"needs_cc", e.needs_cc},
                   {"needs_feature", str(e.needs_feature)}, {"needs_shared_bytes", e.needs_shared_bytes},
                   {"needs_clusters", e.needs_clusters != 0}});
  }
  return out;
}

// ---- hex blobs ---------------------------------------------------------------------------------

std::vector<unsigned char> unhex(const std::string& s) {
  std::vector<unsigned char> b(s.size() / 2);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return b;
}

// ---- compare's buffers, opened by IPC handle ---------------------------------------------------

struct Mappings {
  std::map<std::string, unsigned char*> open;  // handle (hex) -> base in this process

  unsigned char* base(const std::string& handle) {
    auto it = open.find(handle);
    if (it != open.end()) return it->second;
    const auto bytes = unhex(handle);
    cudaIpcMemHandle_t h{};
    if (bytes.size() != sizeof h) throw std::runtime_error("bad IPC handle");
    std::memcpy(&h, bytes.data(), sizeof h);
    void* p = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorString(e));
    open[handle] = static_cast<unsigned char*>(p);
    return static_cast<unsigned char*>(p);
  }
  unsigned char* at(const json& ref) { return base(ref.at("h").get<std::string>()) + ref.at("o").get<std::size_t>(); }
  // Closes every mapping but those `keep` names (compare frees and reallocates buffers).
  void keep_only(const std::set<std::string>& keep) {
    for (auto it = open.begin(); it != open.end();) {
      if (keep.count(it->first)) {
        ++it;
        continue;
      }
      cudaIpcCloseMemHandle(it->second);
      it = open.erase(it);
    }
  }
};

// ---- device helpers ----------------------------------------------------------------------------

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// Why a captured graph may not be replayed: anything but kernels, memsets, device-to-device copies
// and empty nodes ("" when it holds nothing else). Child graphs are looked into.
std::string forbidden_nodes(cudaGraph_t g) {
  std::size_t n = 0;
  check(cudaGraphGetNodes(g, nullptr, &n), "cudaGraphGetNodes");
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) check(cudaGraphGetNodes(g, nodes.data(), &n), "cudaGraphGetNodes");
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType t{};
    check(cudaGraphNodeGetType(node, &t), "cudaGraphNodeGetType");
    switch (t) {
      case cudaGraphNodeTypeKernel:
      case cudaGraphNodeTypeMemset:
      case cudaGraphNodeTypeEmpty: break;
      case cudaGraphNodeTypeMemcpy: {
        cudaMemcpy3DParms p{};
        check(cudaGraphMemcpyNodeGetParams(node, &p), "cudaGraphMemcpyNodeGetParams");
        auto on_device = [](const void* ptr) {
          cudaPointerAttributes a{};
          if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
            cudaGetLastError();
            return false;
          }
          return a.type == cudaMemoryTypeDevice;
        };
        const bool d2d = p.kind == cudaMemcpyDeviceToDevice ||
                         (p.kind == cudaMemcpyDefault && on_device(p.srcPtr.ptr) && on_device(p.dstPtr.ptr));
        if (!d2d) return "did work on the host: its launch copies between host and device memory";
        break;
      }
      case cudaGraphNodeTypeHost: return "did work on the host: its launch enqueues a host function (cudaLaunchHostFunc)";
      case cudaGraphNodeTypeGraph: {
        cudaGraph_t child = nullptr;
        check(cudaGraphChildGraphNodeGetGraph(node, &child), "cudaGraphChildGraphNodeGetGraph");
        const std::string why = forbidden_nodes(child);
        if (!why.empty()) return why;
        break;
      }
      case cudaGraphNodeTypeMemAlloc:
      case cudaGraphNodeTypeMemFree: return "its launch allocates or frees memory (ask for a workspace instead)";
      default:
        return "its launch enqueues a graph node of type " + std::to_string(static_cast<int>(t)) +
               " (events, semaphores, conditionals): only kernels, memsets and device-to-device copies may be enqueued";
    }
  }
  return {};
}

// ---- the server --------------------------------------------------------------------------------

struct Server {
  Module mod;
  int device = 0;
  FILE* in = nullptr;
  FILE* out = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  Mappings maps;
  std::set<std::size_t> prepared;
  // The graph of the last launch, for the entry and argument bytes it was captured with.
  std::size_t graph_entry = static_cast<std::size_t>(-1);
  std::vector<unsigned char> graph_args;
  cudaGraphExec_t exec = nullptr;
  void* flush = nullptr;
  unsigned* flush_sink = nullptr;
  std::size_t flush_bytes = 0;

  void reply(const json& j) {
    const std::string s = j.dump() + "\n";
    std::fwrite(s.data(), 1, s.size(), out);
    std::fflush(out);
  }

  const KlSubmissionEntry& entry(const json& cmd) {
    const auto i = cmd.at("entry").get<std::size_t>();
    if (i >= mod.count) throw std::runtime_error("no such entry");
    return mod.entries[i];
  }

  json bind(const json& cmd) {
    const KlSubmissionEntry& e = entry(cmd);
    const auto size = unhex(cmd.at("size").get<std::string>());
    if (size.size() != e.size_bytes) throw std::runtime_error("size blob of the wrong length");
    KlBindResult r{};
    e.bind(e.variant, size.data(), &r);
    return {{"ok", true}, {"workspace", r.workspace_bytes}, {"depth", r.rounding_depth}, {"work", r.work},
            {"unsupported", std::string(r.unsupported)}, {"error", std::string(r.error)}};
  }

  // The argument bytes with compare's pointers replaced by this process's mappings.
  std::vector<unsigned char> args_of(const json& cmd, const KlSubmissionEntry& e) {
    auto bytes = unhex(cmd.at("args").get<std::string>());
    if (bytes.size() != e.args_bytes) throw std::runtime_error("argument blob of the wrong length");
    std::set<std::string> keep;
    for (const json& f : cmd.at("fixups")) keep.insert(f.at("h").get<std::string>());
    for (const json& r : cmd.value("keep", json::array())) keep.insert(r.get<std::string>());
    maps.keep_only(keep);
    for (const json& f : cmd.at("fixups")) {
      unsigned char* p = maps.at(f);
      std::memcpy(bytes.data() + f.at("at").get<std::size_t>(), &p, sizeof p);
    }
    return bytes;
  }

  void drop_graph() {
    if (exec) cudaGraphExecDestroy(exec);
    exec = nullptr;
    graph_entry = static_cast<std::size_t>(-1);
    graph_args.clear();
  }

  // Captures the launch (once per entry and arguments), checks the graph, keeps it for replays.
  // Returns "" or why the launch broke the contract (prefixed "contract: ").
  std::string ensure_graph(std::size_t index, const KlSubmissionEntry& e, const std::vector<unsigned char>& args) {
    if (exec && graph_entry == index && graph_args == args) return {};
    drop_graph();
    char err[512] = {};
    if (e.has_prepare && !prepared.count(index)) {
      if (e.prepare(e.variant, err, sizeof err)) return std::string("prepare: ") + err;
      prepared.insert(index);
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    const int rc = e.launch(e.variant, args.data(), stream, err, sizeof err);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    cudaGetLastError();
    if (rc != 0 || end != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      cudaDeviceSynchronize();
      cudaGetLastError();
      const std::string why = rc ? std::string(err) : std::string("the stream capture ended with ") + cudaGetErrorName(end);
      return "contract: its launch did something other than enqueue work on the stream it is given (" + why +
             "): no allocation, synchronisation or host copy may happen inside a launch";
    }
    // What the launch may have started outside the capture runs now, and is never replayed.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the capture");
    const std::string bad = forbidden_nodes(graph);
    if (!bad.empty()) {
      cudaGraphDestroy(graph);
      return "contract: " + bad;
    }
    const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check(inst, "cudaGraphInstantiate");
    graph_entry = index;
    graph_args = args;
    return {};
  }

  // The graph of the command's entry and arguments, captured if it is not the one kept: "" or why not.
  std::string graph_for(const json& cmd) {
    const KlSubmissionEntry& e = entry(cmd);
    return ensure_graph(cmd.at("entry").get<std::size_t>(), e, args_of(cmd, e));
  }

  json run(const json& cmd) {
    const std::string why = graph_for(cmd);
    if (!why.empty()) return {{"ok", false}, {"error", why}};
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    check(cudaStreamSynchronize(stream), "the launch");
    return {{"ok", true}};
  }

  // ---- timing ----

  struct Scaled {
    unsigned char* p;
    std::size_t count;
    int elem;  // bytes per element: 4 (float, int) or 8 (double)
    bool is_int;
  };

  void scale(const std::vector<Scaled>& ins, double factor) {
    if (factor == 1.0) return;
    for (const Scaled& s : ins) {
      if (s.is_int) kl::scale_on(reinterpret_cast<int*>(s.p), s.count, factor, stream);
      else if (s.elem == 8) kl::scale_on(reinterpret_cast<double*>(s.p), s.count, factor, stream);
      else kl::scale_on(reinterpret_cast<float*>(s.p), s.count, factor, stream);
    }
  }

  void ensure_flush() {
    if (flush) return;
    int l2 = 0;
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
    flush_bytes = (static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2 + 15) / 16 * 16;
    check(cudaMalloc(&flush, flush_bytes), "cudaMalloc (L2 flush)");
    check(cudaMalloc(&flush_sink, sizeof(unsigned)), "cudaMalloc (L2 flush)");
    check(cudaMemset(flush, 0, flush_bytes), "cudaMemset (L2 flush)");
  }

  json time(const json& cmd) {
    const std::string why = graph_for(cmd);
    if (!why.empty()) return {{"ok", false}, {"error", why}};
    ensure_flush();
    kl::StopRule rule;
    rule.min_samples = cmd.at("min_samples");
    rule.max_samples = cmd.at("max_samples");
    rule.max_seconds = cmd.at("max_seconds");
    rule.min_seconds = cmd.at("min_seconds");
    rule.max_noise = cmd.at("max_noise");
    const int warmup = cmd.at("warmup");
    std::vector<Scaled> ins;
    for (const json& s : cmd.at("scale")) ins.push_back({maps.at(s), s.at("count"), s.at("elem"), s.at("int")});
    std::vector<std::pair<unsigned char*, std::size_t>> poison;
    for (const json& r : cmd.at("poison")) poison.emplace_back(maps.at(r), r.at("bytes").get<std::size_t>());
    const std::vector<double> factors = cmd.at("factors");  // the inputs' scale for sample j
    std::vector<std::size_t> snap_at = cmd.at("snap_at");
    std::vector<unsigned char*> snaps;
    for (const json& r : cmd.at("snaps")) snaps.push_back(maps.at(r));
    unsigned char* output = maps.at(cmd.at("output"));
    const std::size_t out_bytes = cmd.at("output").at("bytes");
    auto* clock = reinterpret_cast<unsigned long long*>(maps.at(cmd.at("clock")));
    const std::size_t max_samples = std::min<std::size_t>(rule.max_samples, factors.size());
    rule.max_samples = max_samples;

    auto do_poison = [&](int run) {
      for (auto& [p, bytes] : poison) check(cudaMemsetAsync(p, run & 1 ? 0x7f : 0xff, bytes, stream), "poison");
    };
    for (int w = 0; w < warmup; ++w) {
      do_poison(w);
      check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    }
    check(cudaStreamSynchronize(stream), "the warm-up");
    double current = 1.0;
    std::vector<double> samples;
    std::vector<long long> held(snaps.size(), -1);  // which sample each snapshot holds
    bool converged = false;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t j = 0;; ++j) {
      scale(ins, factors[j] / current);
      current = factors[j];
      do_poison(static_cast<int>(j));
      kl::read_through(flush, flush_bytes, flush_sink, stream);
      kl::stamp_kernel<<<1, 1, 0, stream>>>(clock + 2 * j);
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      kl::stamp_kernel<<<1, 1, 0, stream>>>(clock + 2 * j + 1);
      check(cudaEventSynchronize(stop), "a timed sample");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      samples.push_back(ms);
      for (std::size_t k = 0; k + 1 < snaps.size() && k < snap_at.size(); ++k)
        if (snap_at[k] == j) {
          check(cudaMemcpyAsync(snaps[k], output, out_bytes, cudaMemcpyDeviceToDevice, stream), "a snapshot");
          held[k] = static_cast<long long>(j);
        }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const auto verdict = j + 1 >= max_samples ? kl::StopRule::Verdict::capped : rule.check(samples, wall);
      if (verdict == kl::StopRule::Verdict::more) continue;
      converged = verdict == kl::StopRule::Verdict::converged;
      // The last sample's output, whatever it was.
      check(cudaMemcpyAsync(snaps.back(), output, out_bytes, cudaMemcpyDeviceToDevice, stream), "a snapshot");
      held.back() = static_cast<long long>(j);
      break;
    }
    scale(ins, 1.0 / current);  // the inputs as compare loaded them
    check(cudaStreamSynchronize(stream), "the timed samples");
    return {{"ok", true}, {"samples", samples}, {"converged", converged}, {"held", held}};
  }

  void serve() {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    reply({{"ok", true}, {"ready", true}});
    char* line = nullptr;
    std::size_t cap = 0;
    while (getline(&line, &cap, in) > 0) {
      json reply_json;
      try {
        const json cmd = json::parse(line);
        const std::string op = cmd.at("op");
        if (op == "quit") break;
        if (op == "bind") reply_json = bind(cmd);
        else if (op == "run") reply_json = run(cmd);
        else if (op == "time") reply_json = time(cmd);
        else reply_json = {{"ok", false}, {"error", "unknown command " + op}};
      } catch (const std::exception& ex) {
        drop_graph();
        reply_json = {{"ok", false}, {"error", ex.what()}};
        // A fault that killed this context ends the process: compare starts a new one.
        if (cudaDeviceSynchronize() != cudaSuccess) {
          reply(reply_json);
          std::_Exit(3);
        }
      }
      reply(reply_json);
    }
    std::free(line);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--list") {
    // What the module prints while it loads (a static initializer's printf) goes to stderr: the
    // listing alone goes to the real stdout.
    std::fflush(stdout);
    const int listing_fd = dup(1);
    dup2(2, 1);
    FILE* listing_out = fdopen(listing_fd, "w");
    if (!listing_out) return 2;
    int rc = 0;
    json j;
    try {
      const Module m = load_module(argv[2]);
      j = {{"ok", true}, {"entries", listing(m)}};
    } catch (const std::exception& e) {
      j = {{"ok", false}, {"error", e.what()}};
      rc = 1;
    }
    std::fflush(stdout);
    std::fprintf(listing_out, "%s\n", j.dump().c_str());
    std::fclose(listing_out);
    return rc;
  }
  if (argc == 4 && std::string(argv[1]) == "--serve") {
    Server s;
    s.device = std::atoi(argv[3]);
    s.in = fdopen(3, "r");
    s.out = fdopen(4, "w");
    if (!s.in || !s.out) return 2;
    try {
      s.mod = load_module(argv[2]);
      s.serve();
    } catch (const std::exception& e) {
      const std::string msg = json{{"ok", false}, {"error", e.what()}}.dump() + "\n";
      std::fwrite(msg.data(), 1, msg.size(), s.out);
      std::fflush(s.out);
      return 1;
    }
    return 0;
  }
  std::fprintf(stderr, "usage: kl-sandbox --list MODULE | --serve MODULE DEVICE (started by compare)\n");
  return 2;
}
