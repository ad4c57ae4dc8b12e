// The two clocks, one per purpose.
//
// steady_ms() is monotonic: use it for every duration, latency, timeout and
// deadline. It never jumps, and it means nothing on another machine, so a
// deadline that crosses the network travels as a relative time budget
// (Envelope::budget_ms), never as a steady value.
//
// wall_ms() is calendar time (Unix epoch milliseconds): use it only for
// timestamps a person or another machine reads (journal rows, task info).
// It can jump when the system clock is set; nothing may expire by it.
#pragma once

#include <cstdint>

namespace kaisha {

int64_t steady_ms();
int64_t wall_ms();

// Moves wall_ms() by `delta_ms` (cumulative) in this process, so a test can
// show that a wall-clock jump expires nothing. Not for production code.
void shift_wall_clock_for_testing(int64_t delta_ms);

}  // namespace kaisha
