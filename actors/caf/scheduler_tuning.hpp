// How kaisha's actor systems schedule: CAF 0.17's work-stealing scheduler,
// tuned for messages that come from threads outside CAF (a socket's I/O
// thread, the HTTP client's thread) and for actors that make many requests
// with timeouts.
//
// Three changes against CAF's defaults, each measured in bench/README.md:
// 1. Idle workers block on their condition variable right after the short
//    spin phase. By default they first spend 25 ms or more in 50 µs sleeps,
//    and a message enqueued from outside CAF meanwhile waits for the end of
//    the current sleep (50–100 µs with the kernel's timer slack) at every hop
//    into CAF.
// 2. A message from outside CAF wakes a sleeping worker after the enqueuing
//    thread has released the worker's mutex. CAF signals while holding it, so
//    the woken worker, preempting the signaller on a busy machine, finds the
//    mutex taken and blocks once more: two context switches per hand-off.
// 3. The actor clock (LazyActorClock) wakes its thread only when a timer is
//    due or a new one is due earlier than what it waits for, instead of on
//    every request's set and cancel.
// Work stealing between workers still happens in the spin phase and at each
// relaxed-phase timeout.
#pragma once

#include <caf/fwd.hpp>

#include <cstddef>

namespace kaisha::actors {

// Configures `cfg` so that an actor system built from it schedules as above.
void use_prompt_wakeups(caf::actor_system_config& cfg);

// What the clock of a system configured by use_prompt_wakeups has done:
// wake-ups of its thread and how many of them a new timer asked for.
// Both are 0 for any other system. For tests and benchmarks.
struct ClockActivity {
  size_t wakeups = 0;
  size_t notifications = 0;
  bool lazy = false;  // the system uses LazyActorClock
};
ClockActivity clock_activity(caf::actor_system& system);

}  // namespace kaisha::actors
