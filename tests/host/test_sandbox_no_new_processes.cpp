// The sandbox's process filter (compare/sandbox/child/no_new_processes.hpp), without a GPU: each
// case installs it in a forked process (a filter can never be removed) and tries one way out.
// Threads must still start; every way of starting a process or running a program must end the
// process with the line it was given, and no child may ever exist.
#include "compare/sandbox/child/no_new_processes.hpp"
#include "compare/sandbox/protocol.hpp"
#include "forked.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

extern char** environ;

using kl::test::Ended;
using kl::test::tell;

namespace {

const char* kProcess = "PROCESS\n";
const char* kProgram = "PROGRAM\n";

// Runs body(the pipe's write end) in a forked process that first installs the filter; the process
// exits 0 if body returns. Waits up to 10 s.
template <class Body>
Ended filtered(Body body) {
  return kl::test::in_child(10.0, [&](int fd) {
    const std::string why = kl::sandbox::forbid_new_processes(fd, kProcess, kProgram, 3);
    if (!why.empty()) {
      tell(fd, "NOT INSTALLED: " + why + "\n");
      return 2;
    }
    body(fd);
    return 0;
  });
}

}  // namespace

TEST_CASE("sandbox process filter: threads still start") {
  const Ended e = filtered([](int fd) {
    int x = 0;
    std::thread t([&] { x = 42; });
    t.join();
    tell(fd, x == 42 ? "thread ran\n" : "thread did not run\n");
  });
  CHECK(e.in_time);
  CHECK(e.code == 0);
  CHECK(e.said == "thread ran\n");
}

TEST_CASE("sandbox process filter: every way of starting a process or a program ends the process, named") {
  SUBCASE("fork") {
    const Ended e = filtered([](int fd) {
      const pid_t p = fork();
      if (p == 0) _exit(0);  // never reached: a child would say so below by exiting the test's way
      tell(fd, "fork returned\n");
    });
    CHECK(e.in_time);
    CHECK(e.code == 3);
    CHECK(e.said == kProcess);
  }
  SUBCASE("vfork through posix_spawn") {
    // glibc's posix_spawn blocks every signal around its clone, and the kernel ends a process
    // whose SIGSYS is blocked when a filter traps: killed by SIGSYS, which compare names the same way.
    const Ended e = filtered([](int fd) {
      pid_t p = -1;
      char arg0[] = "true";
      char* argv[] = {arg0, nullptr};
      const int rc = posix_spawn(&p, "/bin/true", nullptr, nullptr, argv, environ);
      tell(fd, "posix_spawn returned " + std::to_string(rc) + "\n");
    });
    CHECK(((e.code == 3 && e.said == kProcess) || (e.signal == SIGSYS && e.said.empty())));
  }
  SUBCASE("execve") {
    const Ended e = filtered([](int fd) {
      char arg0[] = "true";
      char* argv[] = {arg0, nullptr};
      execve("/bin/true", argv, environ);
      tell(fd, "execve returned\n");
    });
    CHECK(e.in_time);
    CHECK(e.code == 3);
    CHECK(e.said == kProgram);
  }
  SUBCASE("clone3 fails without running") {
    const Ended e = filtered([](int fd) {
      errno = 0;
      const long r = syscall(SYS_clone3, nullptr, 0);
      tell(fd, r == -1 && errno == ENOSYS ? "ENOSYS\n" : "clone3 ran\n");
    });
    CHECK(e.in_time);
    CHECK(e.code == 0);
    CHECK(e.said == "ENOSYS\n");
  }
}

TEST_CASE("sandbox process filter: a SIGSYS handler of the submission's own only changes how the call fails") {
  const Ended e = filtered([](int fd) {
    struct sigaction sa {};
    sa.sa_handler = [](int) {};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, nullptr);
    if (fork() == 0) {
      tell(fd, "a child exists\n");
      _exit(0);
    }
    errno = 0;
    const bool no_child = waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
    // The call never ran: what fork returns is whatever the register held (not a child's pid).
    tell(fd, no_child ? "no child\n" : "a child\n");
  });
  CHECK(e.in_time);
  CHECK(e.code == 0);
  CHECK(e.said == "no child\n");
}

TEST_CASE("sandbox process filter: a system that refuses it is said in the ready reply, never silently") {
  namespace proto = kl::protocol;
  proto::Ready on;
  const nlohmann::json j_on = proto::ok_reply(on);
  CHECK_FALSE(j_on.contains("unguarded"));
  CHECK(j_on.get<proto::Ready>().unguarded.empty());
  proto::Ready off;
  off.unguarded = "seccomp: Operation not permitted";
  const nlohmann::json j_off = proto::ok_reply(off);
  CHECK(j_off.value("unguarded", std::string()) == "seccomp: Operation not permitted");
  CHECK(j_off.get<proto::Ready>().unguarded == off.unguarded);
  CHECK(j_off.get<proto::Ready>().version == proto::kVersion);
}
