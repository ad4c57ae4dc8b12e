// The events of one gRPC stream on their way from the agent's threads to
// the gRPC thread that writes them. Bounded: a push never blocks the agent
// (its threads may be the actor runtime's); when the peer reads so slowly
// that `capacity` events wait, the push is refused and the stream ends
// (overflowed() says so) instead of the queue growing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>

#include "runtime/core/json.hpp"

namespace kaisha::a2a {

class GrpcEventQueue {
 public:
  explicit GrpcEventQueue(size_t capacity) : capacity_(capacity) {}

  // False when the queue is full or closed: the event is dropped.
  bool push(json event) {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    if (events_.size() >= capacity_) {
      overflowed_ = true;
      closed_ = true;
      cv_.notify_all();
      return false;
    }
    events_.push_back(std::move(event));
    cv_.notify_all();
    return true;
  }

  // No more events will come (the stream ended); queued ones stay.
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }

  // The next event, waiting up to `tick` for one; none when the wait
  // timed out or the queue is closed and empty (see drained()).
  std::optional<json> pop(std::chrono::milliseconds tick) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, tick, [&] { return !events_.empty() || closed_; });
    if (events_.empty()) return std::nullopt;
    json e = std::move(events_.front());
    events_.pop_front();
    return e;
  }

  bool drained() {
    std::lock_guard lock(mu_);
    return closed_ && events_.empty();
  }
  bool overflowed() {
    std::lock_guard lock(mu_);
    return overflowed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<json> events_;
  const size_t capacity_;
  bool closed_ = false;
  bool overflowed_ = false;
};

}  // namespace kaisha::a2a
