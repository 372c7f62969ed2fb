// The watchdog of variants that run in this process (the ladder, the library baselines, every
// variant under --isolate's workers): a phase armed with a time limit that it outlives ends the
// process with one line naming it and exit status kExitTimedOut, instead of hanging the whole
// call. A submission's variants run in their own process and are killed there instead
// (compare/sandbox/sandbox_process.hpp); under --isolate the parent turns a worker that ended this
// way into an ERROR row ("timed out after N s") and goes on with the next variant.
#pragma once

#include <string>

namespace kl {

inline constexpr int kExitTimedOut = 5;

// Arms the watchdog for the scope's lifetime.
class WatchdogScope {
 public:
  WatchdogScope(const std::string& what, double seconds);
  ~WatchdogScope();
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;
};

// Called (from the watchdog's thread) just before the process ends on a timeout: an --isolate
// worker writes its "timeout" line there. nullptr: nothing.
void set_watchdog_hook(void (*hook)(const std::string& what, double seconds));

}  // namespace kl
