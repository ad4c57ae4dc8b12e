#include "actors/caf/lazy_actor_clock.hpp"

#include <chrono>
#include <vector>

namespace kaisha::actors {

namespace {
using Clock = caf::detail::simple_actor_clock;
constexpr auto kIdlePeriod = std::chrono::seconds(10);
}  // namespace

// Events are destroyed only outside mutex_: an event holds a strong reference
// to its actor, and the last reference going away runs the actor's clean-up,
// which may call back into the clock.

bool LazyActorClock::must_wake(time_point t) {
  if (!waiting_) return false;  // awake: it re-reads the schedule before sleeping
  if (t < sleeping_until_) {
    ++notifications_;
    return true;
  }
  return false;
}

template <class AddEntry>
void LazyActorClock::add(time_point t, AddEntry add_entry) {
  bool wake;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    add_entry();
    wake = must_wake(t);
  }
  if (wake) cv_.notify_one();
}

void LazyActorClock::set_ordinary_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type, uint64_t id) {
  // Replaces the actor's earlier timeout of this type; that event's actor is
  // `self`, which is alive, so destroying it under the mutex runs no clean-up.
  add(t, [&] { Clock::set_ordinary_timeout(t, self, type, id); });
}

void LazyActorClock::set_multi_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type, uint64_t id) {
  add(t, [&] { Clock::set_multi_timeout(t, self, type, id); });
}

void LazyActorClock::set_request_timeout(time_point t, caf::abstract_actor* self, caf::message_id id) {
  add(t, [&] { Clock::set_request_timeout(t, self, id); });
}

void LazyActorClock::schedule_message(time_point t, caf::strong_actor_ptr receiver, caf::mailbox_element_ptr content) {
  add(t, [&] { Clock::schedule_message(t, std::move(receiver), std::move(content)); });
}

void LazyActorClock::schedule_message(time_point t, caf::group target, caf::strong_actor_ptr sender,
                                      caf::message content) {
  add(t, [&] { Clock::schedule_message(t, std::move(target), std::move(sender), std::move(content)); });
}

template <class Predicate>
LazyActorClock::unique_delayed_event_ptr LazyActorClock::take(caf::actor_id aid, Predicate pred) {
  auto i = lookup(aid, pred);
  if (i == actor_lookup_.end()) return nullptr;
  auto entry = i->second;
  unique_delayed_event_ptr event = std::move(entry->second);
  schedule_.erase(entry);
  actor_lookup_.erase(i);
  return event;
}

void LazyActorClock::cancel_ordinary_timeout(caf::abstract_actor* self, caf::atom_value type) {
  unique_delayed_event_ptr event;
  std::lock_guard<std::mutex> guard(mutex_);
  event = take(self->id(), [&](const actor_lookup_map::value_type& kvp) {
    auto& x = *kvp.second->second;
    return x.subtype == ordinary_timeout_type && static_cast<const ordinary_timeout&>(x).type == type;
  });
  // No wake-up: the thread finds nothing due at the old deadline and sleeps on.
}

void LazyActorClock::cancel_request_timeout(caf::abstract_actor* self, caf::message_id id) {
  unique_delayed_event_ptr event;
  std::lock_guard<std::mutex> guard(mutex_);
  event = take(self->id(), [&](const actor_lookup_map::value_type& kvp) {
    auto& x = *kvp.second->second;
    return x.subtype == request_timeout_type && static_cast<const request_timeout&>(x).id == id;
  });
}

void LazyActorClock::cancel_timeouts(caf::abstract_actor* self) {
  std::vector<unique_delayed_event_ptr> events;
  std::lock_guard<std::mutex> guard(mutex_);
  auto range = actor_lookup_.equal_range(self->id());
  for (auto i = range.first; i != range.second; ++i) {
    events.push_back(std::move(i->second->second));
    schedule_.erase(i->second);
  }
  actor_lookup_.erase(range.first, range.second);
}

void LazyActorClock::cancel_all() {
  schedule_map dropped;
  std::lock_guard<std::mutex> guard(mutex_);
  actor_lookup_.clear();
  dropped.swap(schedule_);
}

void LazyActorClock::run() {
  std::vector<unique_delayed_event_ptr> due;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    waiting_ = true;
    // With nothing scheduled, sleep for kIdlePeriod rather than until notified:
    // a request answered before this thread got here left the schedule empty,
    // and waking for every next request's timer would be CAF's cost again.
    // Timers due after the planned wake-up are picked up when it comes.
    sleeping_until_ = schedule_.empty() ? now() + kIdlePeriod : schedule_.begin()->first;
    cv_.wait_until(lock, sleeping_until_);
    waiting_ = false;
    ++wakeups_;
    auto t = now();
    for (auto i = schedule_.begin(); i != schedule_.end() && i->first <= t;) {
      auto& event = i->second;
      if (event->backlink != actor_lookup_.end()) actor_lookup_.erase(event->backlink);
      due.push_back(std::move(event));
      i = schedule_.erase(i);
    }
    if (due.empty()) continue;
    lock.unlock();
    for (auto& event : due) ship(*event);
    due.clear();
    lock.lock();
  }
  schedule_map dropped;
  actor_lookup_.clear();
  dropped.swap(schedule_);
  lock.unlock();
}

void LazyActorClock::stop() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
}

size_t LazyActorClock::wakeups() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return wakeups_;
}

size_t LazyActorClock::notifications() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return notifications_;
}

}  // namespace kaisha::actors
