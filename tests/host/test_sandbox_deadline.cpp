// The sandbox's watchdog (compare/sandbox/child/deadline.hpp), without a GPU. Each case runs in a
// forked process (forked.hpp), so a watchdog that keeps its process from ending fails the case.
#include "compare/sandbox/child/deadline.hpp"
#include "forked.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

using kl::test::Ended;
using kl::test::in_child;
using kl::test::tell;

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
