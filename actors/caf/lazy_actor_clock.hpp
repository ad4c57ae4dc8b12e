// An actor clock that wakes its thread only when a timer is due, or when a
// new timer is due before the time it is already sleeping towards.
//
// CAF 0.17's clock hands every set and every cancel to its thread through a
// ring buffer, and each hand-off to a sleeping thread is a futex wake-up. A
// request with a timeout therefore wakes the clock thread twice (set, then
// cancel when the answer comes), though nearly every timeout is cancelled
// long before it is due. This clock keeps the schedule under a mutex instead:
// set_* wakes the thread only if the new deadline is earlier than the one it
// waits for, and a cancel never wakes it (the thread finds nothing due when
// it wakes at the old deadline, and sleeps on). With nothing scheduled, the
// thread wakes every 10 s. Timeouts fire as with CAF's clock: at or after
// their deadline, never earlier.
//
// It derives from CAF's thread-safe clock only so that the coordinator can
// return it from clock(); none of the base class's own state is used.
#pragma once

#include <caf/detail/thread_safe_actor_clock.hpp>

#include <condition_variable>
#include <mutex>

namespace kaisha::actors {

class LazyActorClock final : public caf::detail::thread_safe_actor_clock {
 public:
  void set_ordinary_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type, uint64_t id) override;
  void set_multi_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type, uint64_t id) override;
  void set_request_timeout(time_point t, caf::abstract_actor* self, caf::message_id id) override;
  void cancel_ordinary_timeout(caf::abstract_actor* self, caf::atom_value type) override;
  void cancel_request_timeout(caf::abstract_actor* self, caf::message_id id) override;
  void cancel_timeouts(caf::abstract_actor* self) override;
  void schedule_message(time_point t, caf::strong_actor_ptr receiver, caf::mailbox_element_ptr content) override;
  void schedule_message(time_point t, caf::group target, caf::strong_actor_ptr sender, caf::message content) override;
  void cancel_all() override;

  // Runs the dispatch loop on the calling thread until stop() is called.
  void run();

  // Makes run() return. Timers still pending are dropped.
  void stop();

  // How often run() woke up, and how often a set_* had to wake it. For tests
  // and benchmarks.
  size_t wakeups() const;
  size_t notifications() const;

 private:
  // Called with mutex_ held after a new entry for time t was added. Returns
  // whether the dispatch thread must be woken to re-plan its sleep.
  bool must_wake(time_point t);
  // Adds an entry (add_entry runs under mutex_) due at t, and wakes the
  // dispatch thread if it must re-plan.
  template <class AddEntry>
  void add(time_point t, AddEntry add_entry);
  // Removes the actor's first entry matching pred from the schedule and
  // hands it to the caller, who destroys it after releasing mutex_.
  template <class Predicate>
  unique_delayed_event_ptr take(caf::actor_id aid, Predicate pred);

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool waiting_ = false;         // the dispatch thread is blocked on cv_
  time_point sleeping_until_{};  // ... until this time
  size_t wakeups_ = 0;
  size_t notifications_ = 0;
};

}  // namespace kaisha::actors
