// OnceCallback<T>: a callback that runs exactly once. The first operator()
// runs it; later calls are ignored. If every copy is destroyed without a
// call — the actor holding it stopped, the message carrying it was dropped —
// it runs with the value `if_dropped()` makes instead, on the thread that
// destroyed the last copy. The fallback is made only then: most callbacks
// run normally, and building, say, an error envelope for each costs. So a caller waiting for the answer is
// never left waiting.
//
// Copies share one state, so the callback can travel inside std::function
// and actor messages. Thread-safe: a call and the destruction of the last
// copy may race; the callback still runs once.
//
// BlockingAnswer<T>: the waiting side for a thread that must block on such a
// callback's answer (the blocking doors of CompanyRuntime).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace kaisha {

template <class T>
class OnceCallback {
 public:
  OnceCallback() = default;
  OnceCallback(std::function<void(T)> fn, std::function<T()> if_dropped)
      : state_(std::make_shared<State>(std::move(fn), std::move(if_dropped))) {}

  // Runs the callback with `value`, unless it already ran. No-op on a
  // default-constructed (empty) OnceCallback.
  void operator()(T value) const {
    if (state_) state_->run(std::move(value));
  }

 private:
  struct State {
    State(std::function<void(T)> f, std::function<T()> d) : fn(std::move(f)), if_dropped(std::move(d)) {}
    ~State() {
      if (!done.load()) run(if_dropped ? if_dropped() : T{});
    }
    void run(T value) {
      if (done.exchange(true)) return;
      std::function<void(T)> f = std::move(fn);
      if (f) f(std::move(value));
    }
    std::function<void(T)> fn;
    std::function<T()> if_dropped;
    std::atomic<bool> done{false};
  };
  std::shared_ptr<State> state_;
};

template <class T>
class BlockingAnswer {
 public:
  // The callback that delivers the answer; `if_dropped()` is what wait()
  // returns when that callback is destroyed without being called.
  OnceCallback<T> callback(std::function<T()> if_dropped) {
    std::shared_ptr<Slot> slot = slot_;
    return OnceCallback<T>(
        [slot](T v) {
          {
            std::lock_guard<std::mutex> lock(slot->mu);
            slot->value = std::move(v);
          }
          slot->cv.notify_one();
        },
        std::move(if_dropped));
  }

  // Blocks until the callback ran (or was dropped) and returns its value.
  T wait() {
    std::unique_lock<std::mutex> lock(slot_->mu);
    slot_->cv.wait(lock, [&] { return slot_->value.has_value(); });
    return std::move(*slot_->value);
  }

 private:
  struct Slot {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<T> value;
  };
  std::shared_ptr<Slot> slot_ = std::make_shared<Slot>();
};

}  // namespace kaisha
