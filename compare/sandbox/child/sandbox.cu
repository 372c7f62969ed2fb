// kl-sandbox: the one process that runs a submission's code. compare starts one per submission
// (compare/sandbox/sandbox_process.cpp) and keeps every check on its own side: this process only
// loads the submission's module, says what it registered, evaluates its hooks, and launches it on
// buffers compare owns (opened through CUDA IPC handles), then reports what it did.
//
//   kl-sandbox --list MODULE          the module's registrations as JSON on stdout (no GPU needed)
//   kl-sandbox --serve MODULE DEVICE IN OUT
//                                     commands from the named pipe IN, replies to OUT, one JSON
//                                     object a line (compare makes the pipes)
//
// A launch is only ever called inside a stream capture (global mode), and what runs afterwards,
// timed or not, is a replay of the captured graph, checked (compare/core/graph_check.hpp) to hold
// nothing but kernels, memsets and device-to-device copies, with no launch attribute that changes
// caching or priority: work the launch did elsewhere is never what is timed. The timed samples are
// the runner's own sampling loop (compare/core/sampler.hpp) over one graph per input slot; before
// each sample this process asks compare which slot it runs on, and compare draws that slot's set,
// poisons the output and keeps the previous output, on its own buffers. Each sample is bracketed by
// the GPU's global timer, written to compare's buffer, so compare checks the reported times against
// a clock it reads itself.
//
// Nothing of the submission's may run outside the work it was asked for: after the module's load,
// after its prepare, its hooks, every capture and every replay, the whole context must be idle
// within a second (a kernel left running fails, named, and the process ends), and the module may
// not start threads of its own. Between requests compare stops this process (SIGSTOP).
#include "common/submission_abi.hpp"
#include "compare/core/graph_check.hpp"
#include "compare/core/sampler.hpp"
#include "compare/sandbox/child/deadline.hpp"
#include "compare/sandbox/child/no_new_processes.hpp"
#include "compare/sandbox/protocol.hpp"

#include <cuda_runtime.h>
#include <dirent.h>
#include <dlfcn.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using nlohmann::json;
namespace proto = kl::protocol;

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

// ---- compare's buffers, opened by IPC handle ---------------------------------------------------

struct Mappings {
  std::map<std::string, unsigned char*> open;  // handle (hex) -> base in this process

  unsigned char* base(const std::string& handle) {
    auto it = open.find(handle);
    if (it != open.end()) return it->second;
    const auto bytes = proto::unhex(handle);
    cudaIpcMemHandle_t h{};
    if (bytes.size() != sizeof h) throw std::runtime_error("bad IPC handle");
    std::memcpy(&h, bytes.data(), sizeof h);
    void* p = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorString(e));
    open[handle] = static_cast<unsigned char*>(p);
    return static_cast<unsigned char*>(p);
  }
  unsigned char* at(const proto::BufferRef& ref) { return base(ref.handle) + ref.offset; }
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

// A failure the reply names by kind (compare turns "contract" into a FAIL of the row, the rest into
// an ERROR).
struct Refusal : std::runtime_error {
  std::string kind;
  Refusal(std::string k, const std::string& what) : std::runtime_error(what), kind(std::move(k)) {}
};

// ---- nothing runs outside the work asked for -------------------------------------------------

// What start_cuda captures and replays once.
__global__ void warm_kernel() {}

// The threads of this process (/proc/self/task).
std::size_t thread_count() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// The reply line of a process that ends itself because of work outside the launch it was asked
// for (compare kills it and fails the row): the watchdog's and the process filter's.
std::string left_running_line(const std::string& why) { return proto::error_reply({"left_running", why}).dump() + "\n"; }

// No process or program of the submission's own from here on (no_new_processes.hpp): such a call
// ends this process with `line(why)` on fd and exit_code. Returns "" once the filter is in place,
// else why this system would not take it: the sandbox then goes on without that defence (a
// submission cannot choose this: the filter goes in before its module loads), and compare says so.
template <class Line>
std::string forbid_processes(int fd, Line line, int exit_code) {
  const std::string rule = ": a submission's code runs only inside the calls made to it, in its sandbox process";
  return kl::sandbox::forbid_new_processes(fd, line("started a process of its own (fork, vfork or clone without CLONE_THREAD)" + rule),
                                           line("ran a program (execve)" + rule), exit_code);
}

// ---- the server --------------------------------------------------------------------------------

struct Server {
  const char* module_path = nullptr;
  Module mod;
  int device = 0;
  FILE* in = nullptr;
  FILE* out = nullptr;
  int out_fd = -1;
  cudaStream_t stream = nullptr;
  Mappings maps;
  std::set<std::size_t> prepared;
  std::unique_ptr<kl::sandbox::Deadline> deadline;
  std::size_t threads = 0;  // this process's threads before the module was loaded
  bool thread_check = true;
  // One captured graph per input slot, for the entry and argument bytes it was captured with.
  struct Graph {
    std::size_t entry = static_cast<std::size_t>(-1);
    std::vector<unsigned char> args;
    cudaGraphExec_t exec = nullptr;
  };
  std::vector<Graph> graphs;
  std::map<kl::L2Flush, std::unique_ptr<kl::Sampler>> samplers;

  void reply(const json& j) {
    const std::string s = j.dump() + "\n";
    std::fwrite(s.data(), 1, s.size(), out);
    std::fflush(out);
  }

  // The whole context idle within a second of `after` (what the submission just did), and no
  // thread of its own: otherwise the process ends (a kernel left running) or the request is refused.
  void settled(const std::string& after) {
    cudaError_t e = cudaSuccess;
    deadline->within(1.0, "left a kernel running after " + after + " (its process has work on the GPU outside "
                          "the launch it was asked for)",
                     [&] { e = cudaDeviceSynchronize(); });
    check(e, ("after " + after).c_str());
    if (thread_check && thread_count() > threads)
      throw Refusal("contract", "started a thread of its own (in " + after +
                                    "): a submission's code runs only inside the calls made to it");
  }

  const KlSubmissionEntry& entry(std::size_t i) {
    if (i >= mod.count) throw std::runtime_error("no such entry");
    return mod.entries[i];
  }

  json bind(const proto::BindRequest& rq) {
    const KlSubmissionEntry& e = entry(rq.entry);
    const auto size = proto::unhex(rq.size);
    if (size.size() != e.size_bytes) throw std::runtime_error("size blob of the wrong length");
    KlBindResult r{};
    e.bind(e.variant, size.data(), &r);
    settled("its hooks (workspace_bytes, rounding_depth, unsupported, work)");
    return proto::ok_reply(proto::BindReply{r.workspace_bytes, r.rounding_depth, r.work, r.unsupported, r.error});
  }

  // The argument bytes with compare's pointers replaced by this process's mappings.
  std::vector<unsigned char> args_of(const proto::Arguments& a, const KlSubmissionEntry& e) {
    auto bytes = proto::unhex(a.bytes);
    if (bytes.size() != e.args_bytes) throw std::runtime_error("argument blob of the wrong length");
    for (const proto::Fixup& f : a.fixups) {
      if (f.at + sizeof(void*) > bytes.size()) throw std::runtime_error("a pointer past the end of the arguments");
      unsigned char* p = maps.at(f.buffer);
      std::memcpy(bytes.data() + f.at, &p, sizeof p);
    }
    return bytes;
  }

  // Closes every mapping the request does not name (compare frees and reallocates buffers).
  void keep_mappings(const std::vector<const proto::Arguments*>& arg_sets, const std::vector<std::string>& also = {}) {
    std::set<std::string> keep(also.begin(), also.end());
    for (const proto::Arguments* a : arg_sets)
      for (const proto::Fixup& f : a->fixups) keep.insert(f.buffer.handle);
    maps.keep_only(keep);
  }

  void drop_graphs() {
    for (Graph& g : graphs)
      if (g.exec) cudaGraphExecDestroy(g.exec);
    graphs.clear();
  }

  // Captures the launch into graph `slot` (unless it holds this entry and these arguments already),
  // checks the graph, keeps it for replays.
  void ensure_graph(std::size_t slot, std::size_t index, const KlSubmissionEntry& e, const std::vector<unsigned char>& args) {
    if (graphs.size() <= slot) graphs.resize(slot + 1);
    Graph& g = graphs[slot];
    if (g.exec && g.entry == index && g.args == args) return;
    if (g.exec) cudaGraphExecDestroy(g.exec);
    g = Graph{};
    char err[512] = {};
    if (e.has_prepare && !prepared.count(index)) {
      if (e.prepare(e.variant, err, sizeof err)) throw std::runtime_error(std::string("prepare: ") + err);
      settled(".prepare");
      prepared.insert(index);
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    kl::reset_l2_persistence();  // a prepare may set it; the launch may not
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    const int rc = e.launch(e.variant, args.data(), stream, err, sizeof err);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    cudaGetLastError();
    if (rc != 0 || end != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      cudaDeviceSynchronize();
      cudaGetLastError();
      kl::clear_stream_window(stream);
      const std::string why = rc ? std::string(err) : std::string("the stream capture ended with ") + cudaGetErrorName(end);
      throw Refusal("contract", "its launch did something other than enqueue work on the stream it is given (" + why +
                                    "): no allocation, synchronisation or host copy may happen inside a launch");
    }
    // What the launch may have started outside the capture runs now, and is never replayed; it must
    // end within the deadline.
    settled("its launch (work outside the stream it is given)");
    std::string bad = kl::l2_persistence_changed();
    if (!bad.empty()) bad = "its launch changed the GPU's state: " + bad;
    if (bad.empty()) bad = kl::graph_refusal(graph, kl::GraphRules::submission);
    if (bad.empty()) bad = kl::stream_attribute_refusal(stream);
    kl::clear_stream_window(stream);
    if (!bad.empty()) {
      cudaGraphDestroy(graph);
      throw Refusal("contract", bad);
    }
    const cudaError_t inst = cudaGraphInstantiate(&g.exec, graph, 0);
    cudaGraphDestroy(graph);
    check(inst, "cudaGraphInstantiate");
    g.entry = index;
    g.args = args;
  }

  json run(const proto::RunRequest& rq) {
    const KlSubmissionEntry& e = entry(rq.entry);
    keep_mappings({&rq.args});
    ensure_graph(0, rq.entry, e, args_of(rq.args, e));
    check(cudaGraphLaunch(graphs[0].exec, stream), "cudaGraphLaunch");
    check(cudaStreamSynchronize(stream), "the launch");
    settled("its run");
    return proto::ok_reply();
  }

  // ---- timing: the runner's sampling loop, one graph per input slot ----

  kl::Sampler& sampler(kl::L2Flush mode) {
    auto& sp = samplers[mode];
    if (!sp) {
      int l2 = 0;
      check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
      sp = std::make_unique<kl::Sampler>(stream, static_cast<std::size_t>(l2), mode);
    }
    return *sp;
  }

  // Compare's answer to a question asked in the middle of a request (the next sample's slot).
  json ask(const json& q) {
    reply(q);
    char* line = nullptr;
    std::size_t cap = 0;
    const ssize_t n = getline(&line, &cap, in);
    const std::string text = n > 0 ? std::string(line, static_cast<std::size_t>(n)) : std::string();
    std::free(line);
    if (n <= 0) std::_Exit(0);  // compare has gone
    const json a = json::parse(text);
    if (a.contains("ok") && !a.value("ok", true)) throw std::runtime_error(proto::error_of(a).message);
    return a;
  }

  json time(const proto::TimeRequest& rq) {
    const KlSubmissionEntry& e = entry(rq.entry);
    std::vector<const proto::Arguments*> arg_sets;
    for (const proto::Arguments& a : rq.sets) arg_sets.push_back(&a);
    keep_mappings(arg_sets, rq.keep);
    for (std::size_t k = 0; k < rq.sets.size(); ++k) ensure_graph(k, rq.entry, e, args_of(rq.sets[k], e));
    auto* clock = reinterpret_cast<unsigned long long*>(maps.at(rq.clock));
    const std::size_t max_marks = rq.clock.bytes / (2 * sizeof(unsigned long long));
    std::size_t slot = 0;
    kl::SampleHooks h;
    h.before = [&](cudaStream_t, long long j, bool last) {
      slot = ask(proto::message("next", proto::Next{j, last})).get<proto::NextAnswer>().slot;
      if (slot >= graphs.size() || !graphs[slot].exec) throw std::runtime_error("compare named a slot with no graph");
    };
    h.op = [&](cudaStream_t st, long long) { check(cudaGraphLaunch(graphs[slot].exec, st), "cudaGraphLaunch"); };
    h.after = [&](long long) { settled("a timed sample"); };
    h.extra = 1;
    const kl::Timing t = sampler(rq.flush).run(h, rq.rule, rq.warmup, clock, max_marks);
    settled("its timed samples");
    return proto::ok_reply(proto::TimeReply{t.samples_ms, t.converged});
  }

  // CUDA's own start-up, done before the module is loaded: the context, a stream, a captured graph
  // replayed once, so the threads CUDA starts are counted before the submission can start any.
  void start_cuda() {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaGraph_t g = nullptr;
    cudaGraphExec_t x = nullptr;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    warm_kernel<<<1, 1, 0, stream>>>();
    check(cudaStreamEndCapture(stream, &g), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate");
    check(cudaGraphLaunch(x, stream), "cudaGraphLaunch");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    deadline = std::make_unique<kl::sandbox::Deadline>([fd = out_fd](const std::string& why) {
      const std::string line = left_running_line(why);
      [[maybe_unused]] const ssize_t w = write(fd, line.data(), line.size());
    });
    threads = thread_count();
  }

  void serve() {
    start_cuda();
    proto::Ready ready;
    ready.unguarded = forbid_processes(out_fd, left_running_line, 3);
    mod = load_module(module_path);
    settled("loading its module (a static initializer)");
    reply(proto::ok_reply(ready));
    char* line = nullptr;
    std::size_t cap = 0;
    while (getline(&line, &cap, in) > 0) {
      json reply_json;
      try {
        const json cmd = json::parse(line);
        const std::string op = cmd.at("op");
        if (op == "quit") break;
        settled("the last request (a kernel started while this process was stopped)");
        if (op == "bind") reply_json = bind(cmd.get<proto::BindRequest>());
        else if (op == "run") reply_json = run(cmd.get<proto::RunRequest>());
        else if (op == "time") reply_json = time(cmd.get<proto::TimeRequest>());
        else reply_json = proto::error_reply({"", "unknown command " + op});
      } catch (const Refusal& ex) {
        drop_graphs();
        reply_json = proto::error_reply({ex.kind, ex.what()});
      } catch (const kl::SampleStateError& ex) {
        drop_graphs();
        reply_json = proto::error_reply({"contract", ex.what()});
      } catch (const std::exception& ex) {
        drop_graphs();
        reply_json = proto::error_reply({"", ex.what()});
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
      (void)forbid_processes(listing_fd, [](const std::string& m) { return json{{"ok", false}, {"error", m}}.dump() + "\n"; }, 1);
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
  if (argc >= 6 && std::string(argv[1]) == "--serve") {
    Server s;
    s.module_path = argv[2];
    s.device = std::atoi(argv[3]);
    // Under a tool that adds threads of its own to the process (compute-sanitizer), the thread
    // count says nothing: compare says so (KL_SANDBOX_WRAPPER).
    s.thread_check = !(argc == 7 && std::string(argv[6]) == "--no-thread-check");
    s.in = std::fopen(argv[4], "r");
    s.out = std::fopen(argv[5], "w");
    if (!s.in || !s.out) return 2;
    s.out_fd = fileno(s.out);
    try {
      s.serve();
    } catch (const std::exception& e) {
      const auto* r = dynamic_cast<const Refusal*>(&e);
      const std::string msg = proto::error_reply({r ? r->kind : std::string(), e.what()}).dump() + "\n";
      std::fwrite(msg.data(), 1, msg.size(), s.out);
      std::fflush(s.out);
      return 1;
    }
    return 0;
  }
  std::fprintf(stderr, "usage: kl-sandbox --list MODULE | --serve MODULE DEVICE IN OUT [--no-thread-check] (started by compare)\n");
  return 2;
}
