// One kl-sandbox process (compare/sandbox/child/sandbox.cu) and the line protocol to it: a JSON
// command on one named pipe, a JSON reply on the other, each within a time limit. Past the limit the
// process is killed (the watchdog: a kernel that never ends costs its own row); a process that
// died is reported with how it ended. Its stdout and stderr go to a log file, never into the
// protocol.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <sys/types.h>

namespace kl {

class SandboxProcess {
 public:
  // Starts `exe --serve module device` and waits (up to `start_limit` s) for it to be ready.
  SandboxProcess(const std::string& exe, const std::string& module, int device, double start_limit);
  ~SandboxProcess();
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;

  // Sends `cmd` and returns the reply. Throws std::runtime_error "timed out after N s" (the
  // process is killed first) or "its sandbox process ... during WHAT" when it died. While the
  // process answers, a line it sends with an "op" is a question (a timed phase's "next"): `answer`
  // gives the line sent back, and the reply is still awaited. Between requests the process is
  // stopped (SIGSTOP): no thread of a submission's can put work on the GPU while another
  // submission or the library is timed.
  using Answer = std::function<nlohmann::json(const nlohmann::json& question)>;
  nlohmann::json request(const nlohmann::json& cmd, double limit_seconds, const std::string& what,
                         const Answer& answer = {});
  bool alive() const { return pid_ > 0; }
  const std::string& log_path() const { return log_; }

 private:
  nlohmann::json read_reply(double limit_seconds, const std::string& what, const Answer& answer = {});
  void send(const nlohmann::json& line, const std::string& what);
  void pause();
  void resume();
  void kill_now();
  [[noreturn]] void ended(const std::string& what);

  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1, hold_ = -1;
  std::string buffer_, log_;
  std::string dir_;  // the folder of its two named pipes
  bool keep_log_ = false;  // KL_SANDBOX_LOG_DIR
  bool wrapped_ = false;   // started under KL_SANDBOX_WRAPPER
};

// Runs `exe --list module` with a time limit; false (and why) when it did not finish cleanly.
bool run_listing(const std::string& exe, const std::string& module, double limit_seconds, std::string& out,
                 std::string& why);


}  // namespace kl
