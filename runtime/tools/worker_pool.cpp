#include "runtime/tools/worker_pool.hpp"

#include <algorithm>

namespace kaisha::tools {

WorkerPool::WorkerPool(int threads) {
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
  for (auto& t : threads_) t.join();
  for (auto& job : left) job(true);
}

void WorkerPool::submit(Job job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queue_.push_back(std::move(job));
      cv_.notify_one();
      return;
    }
  }
  job(true);
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
      job(false);
    } catch (...) {
    }
  }
}

}  // namespace kaisha::tools
