// The host suite's way to test what ends a process (the sandbox's watchdog, its process filter):
// the case's body runs in a forked process, which the test waits for with a limit of its own, so a
// process that never ends shows as a failed case, not as a suite that never ends.
#pragma once

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace kl::test {

struct Ended {
  bool in_time = false;  // the process ended before the limit (else it was killed at the limit)
  int code = -1;         // its exit code, when it exited
  int signal = 0;        // the signal that ended it, when one did
  std::string said;      // everything it wrote to the pipe
};

// Runs body(write end of a pipe) in a forked process, which exits with body's return value.
template <class Body>
Ended in_child(double limit_s, Body body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    const int rc = body(fds[1]);
    std::_Exit(rc);
  }
  close(fds[1]);
  Ended e;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  int st = 0;
  for (;;) {
    if (waitpid(pid, &st, WNOHANG) == pid) {
      e.in_time = true;
      break;
    }
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (e.in_time && WIFEXITED(st)) e.code = WEXITSTATUS(st);
  if (e.in_time && WIFSIGNALED(st)) e.signal = WTERMSIG(st);
  char buf[256];
  for (ssize_t r; (r = read(fds[0], buf, sizeof buf)) > 0;) e.said.append(buf, static_cast<std::size_t>(r));
  close(fds[0]);
  return e;
}

inline void tell(int fd, const std::string& s) { [[maybe_unused]] const ssize_t w = write(fd, s.data(), s.size()); }

}  // namespace kl::test
