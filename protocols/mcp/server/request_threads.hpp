// RequestThreads runs each job at once on a thread of its own: an idle one
// left by an earlier job, or a new one. Jobs never queue behind each other
// (a request may block for as long as its tool works, or until the client
// answers an elicitation), but a quick request does not pay for starting a
// thread. At most `keep_idle` threads wait for the next job, each for up to
// `idle_for`. How many jobs run at once is the caller's to bound.
//
// Thread-safe. The destructor waits for the running jobs, then ends the idle
// threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kaisha::mcp {

class RequestThreads {
 public:
  explicit RequestThreads(size_t keep_idle = 32, std::chrono::milliseconds idle_for = std::chrono::seconds(30));
  ~RequestThreads();
  RequestThreads(const RequestThreads&) = delete;
  RequestThreads& operator=(const RequestThreads&) = delete;

  void run(std::function<void()> job);

  // Threads alive now (running a job or idle), and the idle ones; for tests.
  size_t threads() const;
  size_t idle() const;

 private:
  void loop(std::function<void()> first);

  const size_t keep_idle_;
  const std::chrono::milliseconds idle_for_;
  mutable std::mutex mu_;
  std::condition_variable work_, gone_;
  std::deque<std::function<void()>> handed_;  // jobs given to idle threads, not yet taken
  size_t idle_ = 0;                           // threads waiting in loop()
  size_t alive_ = 0;
  bool stopping_ = false;
};

}  // namespace kaisha::mcp
