// The JSON form of a msg::ProgressEvent, in one place for every writer and
// reader: the lines of `kaisha run --json`, the `/events` stream of
// `kaisha serve`, and `kaisha watch`, which reads that stream. The fields are
// those docs/events.md lists: event, session, task, agent, node (only when
// set), tokens_in, tokens_out, usd, text, data, at_ms.
#pragma once

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::msg {

json progress_event_json(const ProgressEvent& e);
// The same as one line of text: what dump_text(progress_event_json(e))
// writes, byte for byte, without building the tree (every event of a
// watched company goes through it).
std::string progress_event_line(const ProgressEvent& e);

// The event a line holds. Missing fields keep their defaults; an error names
// the field that is there with the wrong type, or a kind outside the
// vocabulary.
Result<ProgressEvent> progress_event_from_json(const json& j);

}  // namespace kaisha::msg
