// WorkerPool: a few threads that run the blocking part of tool calls (file
// I/O, sandboxed child processes) so that callers on actor threads never
// block. Jobs run in submission order on whichever worker is free.
//
// Every job is called exactly once: with Skipped::no when it runs; with
// Skipped::queue_full at once when `max_queued` jobs already wait (the queue
// is bounded, so a flood of calls is refused rather than held in memory);
// with Skipped::shutting_down when the pool is destroyed first (so that a job
// can still answer its caller), before the destructor waits for the jobs
// that are running.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/company/tool_result.hpp"

namespace kaisha::tools {

class WorkerPool {
 public:
  enum class Skipped { no, queue_full, shutting_down };
  using Job = std::function<void(Skipped)>;

  explicit WorkerPool(int threads, size_t max_queued = 1024);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Thread-safe.
  void submit(Job job);

  // Why a job was skipped, for its caller's error message.
  std::string why(Skipped s) const;

  // A tool call's blocking part: `work` runs on a worker and `done` gets its
  // result. A call the pool skips is answered with failed(false, why), one
  // whose work throws with failed(true, what): `done` is always called once.
  void submit_tool(std::function<company::ToolResult()> work, std::function<void(company::ToolResult)> done,
                   std::function<company::ToolResult(bool ran, const std::string& why)> failed);

 private:
  void loop();

  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kaisha::tools
