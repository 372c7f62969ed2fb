// The sandbox's watchdog (compare/sandbox/child/deadline.hpp), without a GPU. Each case runs in a
// forked process that the test waits for with a limit of its own, so a watchdog that keeps its
// process from ending shows as a failed case, not as a suite that never ends.
#include "compare/sandbox/child/deadline.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace {

struct Ended {
  bool in_time = false;  // the process ended before the limit (else it was killed)
  int code = -1;         // its exit code, when it exited
  std::string said;      // what it wrote to the pipe
};

// Runs body(write end of a pipe) in a child process; the child exits with body's return value.
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
      if (WIFEXITED(st)) e.code = WEXITSTATUS(st);
      break;
    }
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  char buf[256];
  for (ssize_t r; (r = read(fds[0], buf, sizeof buf)) > 0;) e.said.append(buf, static_cast<std::size_t>(r));
  close(fds[0]);
  return e;
}

void tell(int fd, const std::string& s) { [[maybe_unused]] const ssize_t w = write(fd, s.data(), s.size()); }

}  // namespace

TEST_CASE("sandbox watchdog: a process whose watchdog never fired ends when it returns") {
  // The case that kept every sandbox from leaving main: the watchdog's thread waiting, unarmed,
  // when the watchdog goes.
  const Ended idle = in_child(5.0, [](int fd) {
    {
      kl::sandbox::Deadline d([fd](const std::string& why) { tell(fd, "expired: " + why); });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    tell(fd, "gone");
    return 0;
  });
  CHECK(idle.in_time);
  CHECK(idle.code == 0);
  CHECK(idle.said == "gone");

  // Armed and disarmed in time, several times: nothing fires, and it still goes at once.
  const Ended in_time = in_child(5.0, [](int fd) {
    {
      kl::sandbox::Deadline d([fd](const std::string& why) { tell(fd, "expired: " + why); });
      for (int i = 0; i < 3; ++i)
        d.within(2.0, "a quick wait", [] { std::this_thread::sleep_for(std::chrono::milliseconds(10)); });
    }
    tell(fd, "gone");
    return 0;
  });
  CHECK(in_time.in_time);
  CHECK(in_time.code == 0);
  CHECK(in_time.said == "gone");
}

TEST_CASE("sandbox watchdog: a wait past its deadline ends the process with the reason, within the deadline") {
  const auto t0 = std::chrono::steady_clock::now();
  const Ended late = in_child(5.0, [](int fd) {
    kl::sandbox::Deadline d([fd](const std::string& why) { tell(fd, why); });
    d.within(0.1, "left a kernel running after .prepare",
             [] { std::this_thread::sleep_for(std::chrono::seconds(3)); });
    tell(fd, "the wait returned");
    return 0;
  });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(late.in_time);
  CHECK(late.code == 3);
  CHECK(late.said == "left a kernel running after .prepare");
  CHECK(took < 2.0);
}
