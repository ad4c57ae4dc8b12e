// How long a request may take, across machines whose clocks differ.
//
// A sender knows its timeout on its own steady clock; a steady value means
// nothing on another machine and a wall-clock deadline moves when either
// machine's clock is set. So the envelope carries the timeout itself
// (Envelope::budget_ms, version 2) and the receiver starts its own steady
// deadline from the moment the envelope arrived. The transit time is not
// subtracted: the receiver's deadline is never earlier than the sender's.
// For a version-1 envelope only the epoch `deadline_ms` exists; it is turned
// into a budget with the receiver's wall clock once, at arrival.
#pragma once

#include <cstdint>

#include "runtime/messages/envelope.hpp"

namespace kaisha::msg {

// Gives `e` a time budget of `timeout_ms` (0 = none): budget_ms, and the
// version-1 epoch deadline from `wall_now_ms` for older readers.
void set_time_budget(Envelope& e, int64_t timeout_ms, int64_t wall_now_ms);

// The receiver's steady-clock deadline for `e`, which arrived at
// `steady_now_ms` (`wall_now_ms` on the wall clock); 0 = none. A budget that
// is already used up gives `steady_now_ms` itself: the deadline has passed.
int64_t receive_deadline(const Envelope& e, int64_t steady_now_ms, int64_t wall_now_ms);

}  // namespace kaisha::msg
