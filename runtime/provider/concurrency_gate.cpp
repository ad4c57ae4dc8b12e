#include "runtime/provider/concurrency_gate.hpp"

namespace kaisha::provider {

ConcurrencyGate::ConcurrencyGate(int limit) : limit_(limit) {}

void ConcurrencyGate::enter(std::function<void()> start) {
  {
    std::lock_guard lk(mu_);
    if (limit_ > 0 && in_use_ >= limit_) {
      queue_.push_back(std::move(start));
      return;
    }
    ++in_use_;
  }
  start();  // outside the lock: it may re-enter leave() or enter()
}

void ConcurrencyGate::leave() {
  std::function<void()> next;
  {
    std::lock_guard lk(mu_);
    if (!queue_.empty()) {
      // The slot passes straight to the next in line: in_use_ is unchanged.
      next = std::move(queue_.front());
      queue_.pop_front();
    } else if (in_use_ > 0) {
      --in_use_;
    }
  }
  if (!next) return;
  // Trampoline: when a started piece of work ends at once (its leave() runs
  // inside next()), start the following one from this loop instead of
  // recursing, so a long queue cannot exhaust the stack.
  thread_local std::deque<std::function<void()>>* pending = nullptr;
  if (pending) {
    pending->push_back(std::move(next));
    return;
  }
  std::deque<std::function<void()>> local;
  local.push_back(std::move(next));
  pending = &local;
  while (!local.empty()) {
    auto f = std::move(local.front());
    local.pop_front();
    f();
  }
  pending = nullptr;
}

int ConcurrencyGate::in_use() const {
  std::lock_guard lk(mu_);
  return in_use_;
}

size_t ConcurrencyGate::waiting() const {
  std::lock_guard lk(mu_);
  return queue_.size();
}

}  // namespace kaisha::provider
