#include "protocols/mcp/server/request_threads.hpp"

namespace kaisha::mcp {

RequestThreads::RequestThreads(size_t keep_idle, std::chrono::milliseconds idle_for)
    : keep_idle_(keep_idle), idle_for_(idle_for) {}

RequestThreads::~RequestThreads() {
  std::unique_lock<std::mutex> lock(mu_);
  stopping_ = true;
  work_.notify_all();
  gone_.wait(lock, [&] { return alive_ == 0; });
}

void RequestThreads::run(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mu_);
  // An idle thread not yet promised a job takes it; otherwise a new thread.
  if (idle_ > handed_.size()) {
    handed_.push_back(std::move(job));
    work_.notify_one();
    return;
  }
  ++alive_;
  lock.unlock();
  std::thread([this, job = std::move(job)]() mutable { loop(std::move(job)); }).detach();
}

size_t RequestThreads::threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return alive_;
}

size_t RequestThreads::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_;
}

void RequestThreads::loop(std::function<void()> job) {
  for (;;) {
    job();
    job = nullptr;  // its captures go now, not when the next job comes
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_ || idle_ >= keep_idle_) break;
    ++idle_;
    const bool got = work_.wait_for(lock, idle_for_, [&] { return stopping_ || !handed_.empty(); });
    --idle_;
    if (!got || handed_.empty()) break;  // idle too long, or stopping with nothing handed
    job = std::move(handed_.front());
    handed_.pop_front();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (--alive_ == 0) gone_.notify_all();
}

}  // namespace kaisha::mcp
