#include "compare/sandbox/sandbox_process.hpp"

#include "compare/core/timing.hpp"
#include "compare/sandbox/submissions.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <set>
#include <sstream>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kl {
namespace {

using nlohmann::json;

int g_device = 0;

// A descriptor moved to 10 or above, close-on-exec: the child's fds 3 and 4 are set by dup2
// from these, which must not already be 3 or 4.
int high_fd(int fd) {
  const int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  if (h < 0) throw std::runtime_error("sandbox: cannot arrange its pipes");
  return h;
}

std::string how(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fmt_seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", s);
  return b;
}

}  // namespace

void set_sandbox_device(int device) { g_device = device; }

SandboxProcess::SandboxProcess(const std::string& exe, const std::string& module, int device, double start_limit) {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) throw std::runtime_error("sandbox: cannot create pipes");
  const int child_in = high_fd(down[0]), parent_out = high_fd(down[1]);
  const int parent_in = high_fd(up[0]), child_out = high_fd(up[1]);
  // KL_SANDBOX_LOG_DIR: the sandboxes' output (a sanitizer's report, say) is kept there; otherwise
  // it goes to a temporary file removed with the process.
  const char* keep_dir = std::getenv("KL_SANDBOX_LOG_DIR");
  keep_log_ = keep_dir && *keep_dir;
  std::string tmpl = std::string(keep_log_ ? keep_dir : "/tmp") + "/kl-sandbox-XXXXXX.log";
  const int logfd = mkstemps(tmpl.data(), 4);
  log_ = tmpl;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, child_in, 3);
  posix_spawn_file_actions_adddup2(&fa, child_out, 4);
  if (logfd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, logfd, 1);
    posix_spawn_file_actions_adddup2(&fa, logfd, 2);
  }
  const std::string dev = std::to_string(device);
  // KL_SANDBOX_WRAPPER: a command the sandbox runs under, e.g. "compute-sanitizer --tool memcheck"
  // (its words split on spaces; the pipes on fds 3 and 4 pass through it).
  std::vector<std::string> args;
  if (const char* w = std::getenv("KL_SANDBOX_WRAPPER"); w && *w) {
    std::istringstream words(w);
    for (std::string word; words >> word;) args.push_back(word);
  }
  args.insert(args.end(), {exe, "--serve", module, dev});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, args.front().c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(child_in);
  close(child_out);
  if (logfd >= 0) close(logfd);
  to_child_ = parent_out;
  from_child_ = parent_in;
  if (rc != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start its sandbox process (" + exe + "): " + std::strerror(rc));
  }
  const json ready = read_reply(start_limit, "its start (loading the module, creating a CUDA context)");
  if (!ready.value("ok", false)) {
    const std::string why = ready.value("error", std::string("?"));
    kill_now();
    throw std::runtime_error("its sandbox process could not start: " + why);
  }
}

SandboxProcess::~SandboxProcess() {
  if (pid_ > 0) {
    const std::string quit = "{\"op\":\"quit\"}\n";
    [[maybe_unused]] const ssize_t w = write(to_child_, quit.data(), quit.size());
    // A moment to leave cleanly (its context torn down by the driver either way), then killed.
    for (int i = 0; i < 50; ++i) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(10000);
    }
    if (pid_ > 0) kill_now();
  }
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (!log_.empty() && !keep_log_) std::remove(log_.c_str());
}

void SandboxProcess::kill_now() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

std::string SandboxProcess::ended(const std::string& what) {
  int st = 0;
  pid_t r;
  while ((r = waitpid(pid_, &st, 0)) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return "its sandbox process " + (r > 0 ? how(st) : std::string("ended")) + " during " + what;
}

json SandboxProcess::read_reply(double limit_seconds, const std::string& what) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      try {
        return json::parse(line);
      } catch (const std::exception&) {
        kill_now();
        throw std::runtime_error("its sandbox process wrote something that is not a reply during " + what);
      }
    }
    const double left = limit_seconds - seconds_since(t0);
    if (left <= 0) {
      kill_now();
      throw std::runtime_error("timed out after " + fmt_seconds(limit_seconds) + " s during " + what +
                               " (the process was killed; a kernel that never ends?)");
    }
    pollfd p{from_child_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = read(from_child_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    throw std::runtime_error(ended(what));
  }
}

json SandboxProcess::request(const json& cmd, double limit_seconds, const std::string& what) {
  if (pid_ <= 0) throw std::runtime_error("its sandbox process is not running");
  const std::string line = cmd.dump() + "\n";
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t w = write(to_child_, line.data() + off, line.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(ended(what));
    off += static_cast<std::size_t>(w);
  }
  return read_reply(limit_seconds, what);
}

bool run_listing(const std::string& exe, const std::string& module, double limit_seconds, std::string& out,
                 std::string& why) {
  int p[2];
  if (pipe(p) != 0) {
    why = "cannot create a pipe";
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_addclose(&fa, p[0]);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {exe, "--list", module};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(p[1]);
  if (rc != 0) {
    close(p[0]);
    why = std::string("cannot start ") + exe + ": " + std::strerror(rc);
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  bool timed_out = false;
  for (;;) {
    const double left = limit_seconds - seconds_since(t0);
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd q{p[0], POLLIN, 0};
    const int r = poll(&q, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = read(p[0], buf, sizeof buf);
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    else if (n == 0) break;
  }
  close(p[0]);
  int st = 0;
  if (timed_out) kill(pid, SIGKILL);
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    why = "listing it timed out after " + fmt_seconds(limit_seconds) + " s (a static initializer that never ends?)";
    return false;
  }
  if (!(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 1))) {
    why = "listing it " + how(st);
    return false;
  }
  return true;
}

// ---- the remote launch -----------------------------------------------------------------------

namespace {

std::string hex(const void* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s(2 * n, '0');
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) s[2 * i] = d[b[i] >> 4], s[2 * i + 1] = d[b[i] & 15];
  return s;
}

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
  return hex(&h, sizeof h);
}

json region_ref(const void* p, std::size_t bytes, std::set<std::string>& handles) {
  CUdeviceptr base = 0;
  if (!p || !allocation_of(reinterpret_cast<std::uint64_t>(p), base)) throw std::runtime_error("a buffer that is not device memory");
  const std::string h = handle_of(base);
  handles.insert(h);
  return {{"h", h}, {"o", reinterpret_cast<std::uint64_t>(p) - base}, {"bytes", bytes}};
}

// The running sandbox of submission `name`, started (again, after it died) where there is none.
SandboxProcess& sandbox_for(const std::string& name) {
  for (Submission& s : submissions())
    if (s.name == name) {
      if (!s.process || !s.process->alive())
        s.process = std::make_shared<SandboxProcess>(sandbox_executable(), s.module, g_device, 120.0);
      return *s.process;
    }
  throw std::runtime_error("no submission " + name);
}

class RemoteVariantLaunch final : public RemoteLaunch {
 public:
  RemoteVariantLaunch(const SubmissionVariant& v, std::function<std::vector<unsigned char>(void*)> args_of)
      : v_(v), args_of_(std::move(args_of)) {}

  void run(void* workspace, const std::vector<Problem::Region>& buffers, double limit) override {
    json cmd = {{"op", "run"}, {"entry", v_.entry}};
    std::set<std::string> handles;
    add_args(cmd, workspace, buffers, handles);
    check(process().request(cmd, limit, "a launch of " + v_.full_name));
  }

  RemoteTimeResult time(void* workspace, const RemoteTimeRequest& rq) override {
    json cmd = {{"op", "time"}, {"entry", v_.entry}};
    std::set<std::string> handles;
    add_args(cmd, workspace, rq.buffers, handles);
    cmd["warmup"] = rq.warmup;
    cmd["min_samples"] = rq.rule.min_samples;
    cmd["max_samples"] = rq.rule.max_samples;
    cmd["max_seconds"] = rq.rule.max_seconds;
    cmd["min_seconds"] = rq.rule.min_seconds;
    cmd["max_noise"] = rq.rule.max_noise;
    json scale = json::array();
    for (const auto& r : rq.scale) {
      json j = region_ref(r.ptr, r.bytes, handles);
      j["count"] = r.bytes / static_cast<std::size_t>(rq.elem_bytes);
      j["elem"] = rq.elem_bytes;
      j["int"] = rq.is_int;
      scale.push_back(j);
    }
    cmd["scale"] = scale;
    json poison = json::array();
    for (const auto& r : rq.poison)
      if (r.ptr && r.bytes) poison.push_back(region_ref(r.ptr, r.bytes, handles));
    cmd["poison"] = poison;
    cmd["factors"] = rq.factors;
    cmd["snap_at"] = rq.snap_at;
    json snaps = json::array();
    for (const auto& r : rq.snaps) snaps.push_back(region_ref(r.ptr, r.bytes, handles));
    cmd["snaps"] = snaps;
    cmd["output"] = region_ref(rq.output.ptr, rq.output.bytes, handles);
    cmd["clock"] = region_ref(rq.clock.ptr, rq.clock.bytes, handles);
    cmd["keep"] = handles;
    const json r = process().request(cmd, rq.limit_seconds, "the timed samples of " + v_.full_name);
    check(r);
    RemoteTimeResult out;
    out.samples_ms = r.at("samples").get<std::vector<double>>();
    out.converged = r.value("converged", false);
    out.held = r.at("held").get<std::vector<long long>>();
    return out;
  }

 private:
  static void check(const json& r) {
    if (r.value("ok", false)) return;
    const std::string e = r.value("error", std::string("the sandbox gave no reason"));
    if (e.rfind("contract: ", 0) == 0) throw StreamContractError(e.substr(10));
    throw std::runtime_error(e);
  }

  // The argument struct as bytes, each 8-byte word that is an address in one of the problem's
  // buffers (its start to one past its end) named as (handle, offset) for the sandbox to rewrite.
  void add_args(json& cmd, void* workspace, const std::vector<Problem::Region>& buffers, std::set<std::string>& handles) {
    const std::vector<unsigned char> bytes = args_of_(workspace);
    json fixups = json::array();
    for (std::size_t at = 0; at + 8 <= bytes.size(); at += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, bytes.data() + at, 8);
      if (w == 0) continue;
      for (const Problem::Region& r : buffers) {
        const auto lo = reinterpret_cast<std::uint64_t>(r.ptr);
        CUdeviceptr base = 0;
        if (!r.ptr || w < lo || w > lo + r.bytes || !allocation_of(lo, base)) continue;
        const std::string h = handle_of(base);
        handles.insert(h);
        fixups.push_back({{"at", at}, {"h", h}, {"o", w - base}});
        break;
      }
    }
    cmd["args"] = hex(bytes.data(), bytes.size());
    cmd["fixups"] = fixups;
  }

  SandboxProcess& process() { return sandbox_for(v_.submission); }

  const SubmissionVariant& v_;
  std::function<std::vector<unsigned char>(void*)> args_of_;
};

}  // namespace

RemoteBind remote_bind(const SubmissionVariant& v, const void* size, std::size_t size_bytes) {
  RemoteBind b;
  if (size_bytes != v.size_bytes) {
    b.error = "its size struct is " + std::to_string(v.size_bytes) + " bytes, the family's " + std::to_string(size_bytes);
    return b;
  }
  const json r = sandbox_for(v.submission).request({{"op", "bind"}, {"entry", v.entry}, {"size", hex(size, size_bytes)}}, 30.0,
                                       "the hooks of " + v.full_name);
  if (!r.value("ok", false)) {
    b.error = r.value("error", std::string("?"));
    return b;
  }
  b.workspace_bytes = r.value("workspace", std::size_t{0});
  b.rounding_depth = r.value("depth", 0.0);
  b.work = r.value("work", 0.0);
  b.unsupported = r.value("unsupported", std::string());
  b.error = r.value("error", std::string());
  return b;
}

std::shared_ptr<RemoteLaunch> remote_launch(const SubmissionVariant& v,
                                            std::function<std::vector<unsigned char>(void*)> args_of) {
  return std::make_shared<RemoteVariantLaunch>(v, std::move(args_of));
}

}  // namespace kl
