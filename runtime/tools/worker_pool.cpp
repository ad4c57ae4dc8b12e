#include "runtime/tools/worker_pool.hpp"

#include <algorithm>
#include <exception>

namespace kaisha::tools {

WorkerPool::WorkerPool(int threads, size_t max_queued) : max_queued_(std::max<size_t>(1, max_queued)) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { loop(); });
}

WorkerPool::~WorkerPool() {
  std::deque<Job> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    left.swap(queue_);
  }
  cv_.notify_all();
  // Waiting callers hear at once; only then wait for the running jobs.
  for (auto& job : left) job(Skipped::shutting_down);
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit_tool(std::function<company::ToolResult()> work, std::function<void(company::ToolResult)> done,
                             std::function<company::ToolResult(bool ran, const std::string& why)> failed) {
  submit([this, work = std::move(work), done = std::move(done), failed = std::move(failed)](Skipped skipped) {
    if (skipped != Skipped::no) return done(failed(false, why(skipped)));
    try {
      done(work());
    } catch (const std::exception& e) {
      done(failed(true, e.what()));
    }
  });
}

void WorkerPool::submit(Job job) {
  Skipped skipped = Skipped::shutting_down;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_ && queue_.size() < max_queued_) {
      queue_.push_back(std::move(job));
      cv_.notify_one();
      return;
    }
    if (!stopping_) skipped = Skipped::queue_full;
  }
  job(skipped);
}

std::string WorkerPool::why(Skipped s) const {
  switch (s) {
    case Skipped::queue_full:
      return "too many tool calls are waiting (" + std::to_string(max_queued_) +
             " queued for the tool workers); try again when some have finished";
    case Skipped::shutting_down:
      return "kaisha is shutting down";
    default:
      return "";
  }
}

void WorkerPool::loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    // A job that throws must not take the worker (and the process) down.
    try {
      job(Skipped::no);
    } catch (...) {
    }
  }
}

}  // namespace kaisha::tools
