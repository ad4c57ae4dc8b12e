// WorkerPool: a few threads that run the blocking part of tool calls (file
// I/O, sandboxed child processes) so that callers on actor threads never
// block. Jobs run in submission order on whichever worker is free.
//
// Every job runs exactly once: normally with cancelled == false, or, for jobs
// still queued when the pool is destroyed, with cancelled == true (so that a
// job can still answer its caller). The destructor waits for running jobs.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kaisha::tools {

class WorkerPool {
 public:
  using Job = std::function<void(bool cancelled)>;

  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Thread-safe. After shutdown began, the job runs at once, cancelled.
  void submit(Job job);

 private:
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kaisha::tools
