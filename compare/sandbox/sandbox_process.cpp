#include "compare/sandbox/sandbox_process.hpp"

#include "compare/core/timing.hpp"
#include "compare/sandbox/protocol.hpp"


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
#include <sys/stat.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kl {
namespace {

using nlohmann::json;

// The process was ended by its sandbox's process filter (no_new_processes.hpp): the submission's
// doing, a FAIL of its rows like any broken contract, not an ERROR.
bool refused_call(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS; }

std::string how(int status) {
  if (refused_call(status))
    return "was killed by SIGSYS: it made a system call the sandbox refuses (starting a process or running a "
           "program; compare/sandbox/child/no_new_processes.hpp)";
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

[[noreturn]] void throw_ended(int status, const std::string& message) {
  if (refused_call(status)) throw StreamContractError(message);
  throw std::runtime_error(message);
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

SandboxProcess::SandboxProcess(const std::string& exe, const std::string& module, int device, double start_limit) {
  // The protocol goes through two named pipes in a private folder, opened by path on both sides:
  // inherited descriptors do not survive every launcher (compute-sanitizer closes them), paths do.
  char dir_tmpl[] = "/tmp/kl-sandbox-XXXXXX";
  if (!mkdtemp(dir_tmpl)) throw std::runtime_error("sandbox: cannot create a folder for its pipes");
  dir_ = dir_tmpl;
  const std::string down = dir_ + "/to-sandbox", up = dir_ + "/from-sandbox";
  if (mkfifo(down.c_str(), 0600) != 0 || mkfifo(up.c_str(), 0600) != 0)
    throw std::runtime_error("sandbox: cannot create its pipes");
  // No open waits for the child: read-write for the pipe this side writes (so it has a reader at
  // once), non-blocking for the one it reads, and a writer of that one held here (hold_).
  to_child_ = open(down.c_str(), O_RDWR | O_CLOEXEC);
  from_child_ = open(up.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  hold_ = open(up.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (to_child_ < 0 || from_child_ < 0 || hold_ < 0) throw std::runtime_error("sandbox: cannot open its pipes");
  // KL_SANDBOX_LOG_DIR: the sandboxes' output (a sanitizer's report, say) is kept there; otherwise
  // it goes to a temporary file removed with the process.
  const char* keep_dir = std::getenv("KL_SANDBOX_LOG_DIR");
  keep_log_ = keep_dir && *keep_dir;
  std::string tmpl = std::string(keep_log_ ? keep_dir : "/tmp") + "/kl-sandbox-XXXXXX.log";
  const int logfd = mkstemps(tmpl.data(), 4);
  log_ = tmpl;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (logfd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, logfd, 1);
    posix_spawn_file_actions_adddup2(&fa, logfd, 2);
  }
  const std::string dev = std::to_string(device);
  // KL_SANDBOX_WRAPPER: a command the sandbox runs under, e.g. "compute-sanitizer --tool memcheck"
  // (its words split on spaces). Under a wrapper that adds threads of its own, the sandbox's thread
  // check is off.
  std::vector<std::string> args;
  const char* w = std::getenv("KL_SANDBOX_WRAPPER");
  const bool wrapped = w && *w;
  wrapped_ = wrapped;
  if (wrapped) {
    std::istringstream words(w);
    for (std::string word; words >> word;) args.push_back(word);
  }
  args.insert(args.end(), {exe, "--serve", module, dev, down, up});
  if (wrapped) args.push_back("--no-thread-check");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // A process group of its own (a wrapper and the sandbox under it included): stopped, resumed
  // and killed together.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const int rc = posix_spawnp(&pid_, args.front().c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (logfd >= 0) close(logfd);
  if (rc != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start its sandbox process (" + exe + "): " + std::strerror(rc));
  }
  const json ready = read_reply(start_limit, "its start (loading the module, creating a CUDA context)");
  if (!ready.value("ok", false)) {
    const protocol::Error e = protocol::error_of(ready);
    kill_now();
    if (e.kind == "contract" || e.kind == "left_running") throw StreamContractError(e.message);
    throw std::runtime_error("its sandbox process could not start: " + e.message);
  }
  const protocol::Ready r = ready.get<protocol::Ready>();
  if (r.version != protocol::kVersion) {
    kill_now();
    throw std::runtime_error("its sandbox process speaks protocol version " + std::to_string(r.version) + ", this compare " +
                             std::to_string(protocol::kVersion) + " (a kl-sandbox from another build?)");
  }
  // A system that would not take the process filter: said once per compare, on stderr.
  static bool said_unguarded = false;
  if (!r.unguarded.empty() && !said_unguarded) {
    said_unguarded = true;
    std::fprintf(stderr, "compare: warning: the sandboxes run without their process filter here (%s): a submission's own "
                         "processes are not refused\n", r.unguarded.c_str());
  }
  pause();
}

SandboxProcess::~SandboxProcess() {
  if (pid_ > 0) {
    resume();
    const std::string quit = "{\"op\":\"quit\"}\n";
    [[maybe_unused]] const ssize_t w = write(to_child_, quit.data(), quit.size());
    // A moment to leave cleanly (its context torn down by the driver either way), then killed;
    // under a wrapper (a sanitizer writing its summary at exit) up to half a minute.
    for (int i = 0; i < (wrapped_ ? 3000 : 50); ++i) {
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
  if (hold_ >= 0) close(hold_);
  if (!dir_.empty()) {
    std::remove((dir_ + "/to-sandbox").c_str());
    std::remove((dir_ + "/from-sandbox").c_str());
    rmdir(dir_.c_str());
  }
  if (!log_.empty() && !keep_log_) std::remove(log_.c_str());
}

void SandboxProcess::pause() {
  if (pid_ > 0) kill(-pid_, SIGSTOP);
}

void SandboxProcess::resume() {
  if (pid_ > 0) kill(-pid_, SIGCONT);
}

void SandboxProcess::kill_now() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void SandboxProcess::ended(const std::string& what) {
  int st = 0;
  pid_t r;
  while ((r = waitpid(pid_, &st, 0)) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (r <= 0) throw std::runtime_error("its sandbox process ended during " + what);
  throw_ended(st, "its sandbox process " + how(st) + " during " + what);
}

json SandboxProcess::read_reply(double limit_seconds, const std::string& what, const Answer& answer) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      json j;
      try {
        j = json::parse(line);
      } catch (const std::exception&) {
        kill_now();
        throw std::runtime_error("its sandbox process wrote something that is not a reply during " + what);
      }
      if (!j.is_object() || !j.contains("op")) return j;
      if (!answer) {
        kill_now();
        throw std::runtime_error("its sandbox process asked a question no one expected during " + what);
      }
      json back;
      try {
        back = answer(j);
      } catch (...) {
        kill_now();  // the phase cannot go on without this side; the process goes with it
        throw;
      }
      send(back, what);
      continue;
    }
    const double left = limit_seconds - seconds_since(t0);
    if (left <= 0) {
      kill_now();
      throw std::runtime_error("timed out after " + fmt_seconds(limit_seconds) + " s during " + what +
                               " (the process was killed; a kernel that never ends?)");
    }
    // This side holds a writer of the reply pipe too (it would read end-of-file before the child
    // opened it), so a child that died is seen by waitpid, within a tenth of a second.
    pollfd p{from_child_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min(left, 0.1) * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        throw_ended(st, "its sandbox process " + how(st) + " during " + what);
      }
      continue;
    }
    char buf[65536];
    const ssize_t n = read(from_child_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    ended(what);
  }
}

void SandboxProcess::send(const json& msg, const std::string& what) {
  // A process that has ended would make the write raise SIGPIPE here.
  int st = 0;
  if (pid_ > 0 && waitpid(pid_, &st, WNOHANG) == pid_) {
    pid_ = -1;
    throw std::runtime_error("its sandbox process " + how(st) + " before " + what);
  }
  const std::string line = msg.dump() + "\n";
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t w = write(to_child_, line.data() + off, line.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ended(what);
    off += static_cast<std::size_t>(w);
  }
}

json SandboxProcess::request(const json& cmd, double limit_seconds, const std::string& what, const Answer& answer) {
  if (pid_ <= 0) throw std::runtime_error("its sandbox process is not running");
  resume();
  send(cmd, what);
  json reply = read_reply(limit_seconds, what, answer);
  // A process that left work running ends itself after saying so; it is not kept.
  if (protocol::error_of(reply).kind == "left_running") kill_now();
  else pause();
  return reply;
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

}  // namespace kl
