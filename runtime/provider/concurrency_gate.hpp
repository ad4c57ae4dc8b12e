// ConcurrencyGate: at most `limit` units of work in flight; the rest wait in
// FIFO order. Nothing blocks: enter() either starts the work at once or queues
// it, and leave() starts the next queued piece. Used to honour a provider's
// max_concurrency without ever stalling the caller's thread.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace kaisha::provider {

class ConcurrencyGate {
 public:
  // limit <= 0 means unlimited.
  explicit ConcurrencyGate(int limit);

  // Runs `start` now, on this thread, if a slot is free; otherwise queues it
  // to be run by the leave() that frees a slot, on that caller's thread. Each
  // started piece of work must call leave() exactly once when it ends.
  // Thread-safe.
  void enter(std::function<void()> start);

  // Frees a slot and starts the longest-waiting queued work, if any.
  // Thread-safe.
  void leave();

  int limit() const { return limit_; }
  int in_use() const;
  size_t waiting() const;

 private:
  const int limit_;
  mutable std::mutex mu_;
  int in_use_ = 0;
  std::deque<std::function<void()>> queue_;
};

}  // namespace kaisha::provider
