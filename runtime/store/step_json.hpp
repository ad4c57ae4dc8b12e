// One journal step (StepRow) as JSON, the same wherever kaisha shows steps:
//   {"seq", "agent", "kind", "payload", "tokens_in", "tokens_out", "expense",
//    <time_key>: milliseconds since the Unix epoch}
// Only the time's key differs between the released outputs that carry steps:
// `kaisha history --json` names it "at"; the MCP resource
// kaisha://tasks/<id>/journal names it "at_ms", as every event does
// (docs/events.md). A listing of several tasks' steps adds "task" itself.
#pragma once

#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/store/journal_rows.hpp"

namespace kaisha::store {

json step_to_json(const StepRow& step, std::string_view time_key);

}  // namespace kaisha::store
