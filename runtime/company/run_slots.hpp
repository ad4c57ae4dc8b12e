// RunSlots bounds how many tasks run at once across the company sessions of
// one process: a session's worker takes a slot before its task starts and
// gives it back when the task ends. Tasks waiting for a slot stay queued in
// their session, in order.
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

namespace kaisha::company {

class RunSlots {
 public:
  explicit RunSlots(int slots) : free_(slots > 0 ? slots : 1) {}
  RunSlots(const RunSlots&) = delete;
  RunSlots& operator=(const RunSlots&) = delete;

  // Blocks until a slot is free (true: it is now the caller's) or
  // `give_up()` holds (false). give_up is checked whenever wake() is called
  // or a slot is released, under this object's lock: it must not block.
  bool acquire(const std::function<bool()>& give_up) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return free_ > 0 || give_up(); });
    if (free_ == 0) return false;
    --free_;
    return true;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++free_;
    }
    changed_.notify_all();
  }
  // Makes every waiter check its give_up() again.
  void wake() {
    { std::lock_guard<std::mutex> lock(mu_); }
    changed_.notify_all();
  }
  int free() const {
    std::lock_guard<std::mutex> lock(mu_);
    return free_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  int free_;
};

}  // namespace kaisha::company
