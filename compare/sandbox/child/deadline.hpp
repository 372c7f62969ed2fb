// The sandbox's watchdog: a thread of the process's own, started before the submission's module is
// loaded. While armed, it ends the process (exit code 3) after telling compare why, if the armed
// wait has not returned by the deadline: a kernel left running on any stream of the context makes
// cudaDeviceSynchronize wait for it, and compare must hear of that within a second, not stall.
//
// The thread is stopped and joined when the watchdog goes. A condition variable may not be
// destroyed while a thread waits on it: glibc's pthread_cond_destroy waits for its waiters, so a
// detached thread left waiting keeps the process from ever leaving main. compare then kills it, and
// a tool the sandbox runs under (compute-sanitizer) never writes the summary it writes at exit.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace kl::sandbox {

class Deadline {
 public:
  // on_expiry runs on the watchdog's thread with the armed reason; the process ends right after.
  explicit Deadline(std::function<void(const std::string& why)> on_expiry)
      : on_expiry_(std::move(on_expiry)), thread_([this] { loop(); }) {}

  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  ~Deadline() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  // Runs f; if it has not returned within `seconds`, the process ends with on_expiry(why).
  template <class F>
  void within(double seconds, const std::string& why, F&& f) {
    {
      std::lock_guard<std::mutex> lock(m_);
      armed_ = true;
      until_ = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
      why_ = why;
    }
    cv_.notify_all();
    std::forward<F>(f)();
    {
      std::lock_guard<std::mutex> lock(m_);
      armed_ = false;
    }
    cv_.notify_all();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      if (cv_.wait_until(lock, until_) == std::cv_status::timeout && armed_ && !stop_ &&
          std::chrono::steady_clock::now() >= until_) {
        on_expiry_(why_);
        std::_Exit(3);
      }
    }
  }

  std::function<void(const std::string&)> on_expiry_;
  std::mutex m_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool stop_ = false;
  std::chrono::steady_clock::time_point until_{};
  std::string why_;
  std::thread thread_;  // last: started once every member above exists
};

}  // namespace kl::sandbox
