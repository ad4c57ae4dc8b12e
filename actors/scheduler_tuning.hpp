// How CAF 0.17's work-stealing workers wait when they run out of work, tuned
// for messages that come from threads outside CAF (a socket's I/O thread, an
// HTTP client's thread).
//
// By default an idle worker polls its queue 100 times, then 500 times with a
// 50 µs sleep in between (25 ms or more), and only then blocks on a condition
// variable. A message enqueued from outside CAF during the sleeping phase
// waits for the end of the current sleep — 50–100 µs with the kernel's timer
// slack — at every hop into CAF, and keeps a core half-busy meanwhile. An
// external enqueue does signal a worker blocked on its condition variable,
// so after the short spin phase the worker blocks right away and is woken as
// soon as work arrives. Work stealing between workers still happens in the
// spin phase and at each relaxed-phase timeout.
#pragma once

#include <caf/actor_system_config.hpp>

namespace kaisha::actors {

inline void use_prompt_wakeups(caf::actor_system_config& cfg) {
  cfg.set("work-stealing.moderate-poll-attempts", 0);
}

}  // namespace kaisha::actors
