// A submission's variant as the runner core runs it (compare/core/remote_variants.hpp): its hooks
// evaluated and its launches made by its sandbox process, on this process's buffers, each pointer
// sent as an IPC handle of the allocation it points into and an offset.
#include "compare/sandbox/submissions.hpp"

#include "compare/core/timing.hpp"
#include "compare/sandbox/protocol.hpp"
#include "compare/sandbox/sandbox_process.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kl {
namespace {

namespace proto = protocol;

// The allocation holding device address `a` in this process, or false. The driver's
// cuMemGetAddressRange, found through the runtime: linking libcuda itself would stop compare from
// starting at all on a machine without a driver (--list, diff, merge need none).
bool allocation_of(std::uint64_t a, CUdeviceptr& base) {
  using Fn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
  static const Fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return Fn{nullptr};
    }
    return reinterpret_cast<Fn>(p);
  }();
  if (!fn) throw std::runtime_error("the CUDA driver has no cuMemGetAddressRange");
  size_t size = 0;
  return fn(&base, &size, static_cast<CUdeviceptr>(a)) == CUDA_SUCCESS;
}

std::string handle_of(CUdeviceptr base) {
  cudaIpcMemHandle_t h{};
  const cudaError_t e = cudaIpcGetMemHandle(&h, reinterpret_cast<void*>(base));
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error(std::string("cudaIpcGetMemHandle: ") + cudaGetErrorString(e));
  }
  return proto::hex(&h, sizeof h);
}

// `p` (and `bytes` from it) as a region of one of this process's allocations.
proto::BufferRef region_ref(const void* p, std::size_t bytes, std::set<std::string>& handles) {
  CUdeviceptr base = 0;
  if (!p || !allocation_of(reinterpret_cast<std::uint64_t>(p), base)) throw std::runtime_error("a buffer that is not device memory");
  proto::BufferRef r{handle_of(base), reinterpret_cast<std::uint64_t>(p) - base, bytes};
  handles.insert(r.handle);
  return r;
}

// A refusal of the contract (the stream, the graph, a thread of its own, the GPU's state) or work
// left running fails the row; anything else is an error.
void check(const nlohmann::json& reply) {
  if (reply.value("ok", false)) return;
  const proto::Error e = proto::error_of(reply);
  if (e.kind == "contract" || e.kind == "left_running") throw StreamContractError(e.message);
  throw std::runtime_error(e.message);
}

class RemoteVariantLaunch final : public RemoteLaunch {
 public:
  RemoteVariantLaunch(SubmissionSet& set, const SubmissionVariant& v,
                      std::function<std::vector<unsigned char>(void*)> args_of, std::vector<std::size_t> pointers)
      : set_(set), v_(v), args_of_(std::move(args_of)), pointers_(std::move(pointers)) {}

  void run(void* workspace, const std::vector<Problem::Region>& buffers, double limit) override {
    std::set<std::string> handles;
    const proto::RunRequest rq{v_.entry, arguments(workspace, buffers, handles)};
    check(process().request(proto::message("run", rq), limit, "a launch of " + v_.full_name));
  }

  RemoteTimeResult time(void* workspace, const RemoteTimeRequest& rq) override {
    std::set<std::string> handles;
    proto::TimeRequest t;
    t.entry = v_.entry;
    // The arguments of every input slot: the sandbox captures one graph per slot.
    for (std::size_t k = 0; k <= rq.slots; ++k) {
      rq.use_slot(k);
      t.sets.push_back(arguments(workspace, rq.buffers(), handles));
    }
    rq.use_slot(0);
    t.warmup = rq.warmup;
    t.rule = rq.rule;
    t.flush = rq.flush;
    t.clock = region_ref(rq.clock.ptr, rq.clock.bytes, handles);
    t.keep.assign(handles.begin(), handles.end());
    const nlohmann::json r =
        process().request(proto::message("time", t), rq.limit_seconds, "the timed samples of " + v_.full_name,
                          [&](const nlohmann::json& q) {
                            if (q.value("op", std::string()) != "next")
                              throw std::runtime_error("its sandbox process asked for " + q.dump());
                            const auto n = q.get<proto::Next>();
                            return nlohmann::json(proto::NextAnswer{rq.next(n.sample, n.last)});
                          });
    check(r);
    const auto reply = r.get<proto::TimeReply>();
    RemoteTimeResult out;
    out.samples_ms = reply.samples;
    out.converged = reply.converged;
    if (!out.samples_ms.empty()) rq.done(static_cast<long long>(out.samples_ms.size()) - 1);
    return out;
  }

 private:
  // The argument struct as bytes, each pointer its declaration names (ArgsKind<Args>::pointers)
  // given as the buffer it points into; a null one (no workspace) stays null. A pointer into none
  // of the problem's buffers is the runner's own mistake.
  proto::Arguments arguments(void* workspace, const std::vector<Problem::Region>& buffers, std::set<std::string>& handles) {
    const std::vector<unsigned char> bytes = args_of_(workspace);
    proto::Arguments a;
    a.bytes = proto::hex(bytes.data(), bytes.size());
    for (std::size_t at : pointers_) {
      std::uint64_t w = 0;
      if (at + sizeof w > bytes.size()) throw std::logic_error("a declared pointer past the end of the arguments");
      std::memcpy(&w, bytes.data() + at, sizeof w);
      if (w == 0) continue;
      bool found = false;
      for (const Problem::Region& r : buffers) {
        const auto lo = reinterpret_cast<std::uint64_t>(r.ptr);
        CUdeviceptr base = 0;
        if (!r.ptr || w < lo || w > lo + r.bytes || !allocation_of(lo, base)) continue;
        proto::Fixup f{at, {handle_of(base), w - base, 0}};
        handles.insert(f.buffer.handle);
        a.fixups.push_back(f);
        found = true;
        break;
      }
      if (!found) throw std::logic_error("an argument pointer outside the problem's buffers");
    }
    return a;
  }

  SandboxProcess& process() { return set_.process_of(v_.submission); }

  SubmissionSet& set_;
  const SubmissionVariant& v_;
  std::function<std::vector<unsigned char>(void*)> args_of_;
  std::vector<std::size_t> pointers_;
};

// The set hands out only its own variants (of()), so a RemoteVariant it is given back is one of its
// SubmissionVariants.
const SubmissionVariant& as_submission(const RemoteVariant& v) { return static_cast<const SubmissionVariant&>(v); }

}  // namespace

RemoteBind SubmissionSet::bind(const RemoteVariant& rv, const void* size, std::size_t size_bytes) {
  const SubmissionVariant& v = as_submission(rv);
  RemoteBind b;
  if (size_bytes != v.size_bytes) {
    b.error = "its size struct is " + std::to_string(v.size_bytes) + " bytes, the family's " + std::to_string(size_bytes);
    return b;
  }
  const nlohmann::json r = process_of(v.submission)
                               .request(protocol::message("bind", protocol::BindRequest{v.entry, protocol::hex(size, size_bytes)}),
                                        30.0, "the hooks of " + v.full_name);
  if (!r.value("ok", false)) {
    const protocol::Error e = protocol::error_of(r);
    (e.kind == "contract" || e.kind == "left_running" ? b.refused : b.error) = e.message;
    return b;
  }
  const auto reply = r.get<protocol::BindReply>();
  b.workspace_bytes = reply.workspace;
  b.rounding_depth = reply.depth;
  b.work = reply.work;
  b.unsupported = reply.unsupported;
  b.error = reply.error;
  return b;
}

std::shared_ptr<RemoteLaunch> SubmissionSet::launch(const RemoteVariant& v,
                                                    std::function<std::vector<unsigned char>(void*)> args_of,
                                                    std::vector<std::size_t> pointers) {
  return std::make_shared<RemoteVariantLaunch>(*this, as_submission(v), std::move(args_of), std::move(pointers));
}

}  // namespace kl
