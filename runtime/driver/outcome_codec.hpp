// Outcomes as JSON text, so the journal can keep every answer a driver was
// fed and a resumed task can feed them again (replay_log.hpp). The text
// names its type ({"type": "model", ...}); decode() refuses text it cannot
// read with an error saying what was wrong, never a half-filled outcome.
#pragma once

#include <string>

#include "runtime/core/result.hpp"
#include "runtime/driver/driver_effects.hpp"

namespace kaisha::driver {

std::string encode(const Outcome& o);
Result<Outcome> decode(const std::string& text);

// `o` as the answer to effect `id` instead (ids are kept relative to a
// task's first effect: a driver that runs many tasks numbers on).
Outcome with_id(Outcome o, CallId id);

}  // namespace kaisha::driver
