// The JSON form of a msg::TaskResult, in one place for every writer: the
// `result` line of kaisha run/chat/submit/feedback --json, and the totals in
// the data of a task's final progress event.
#pragma once

#include "runtime/core/json.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::msg {

// What the task used: {"tokens_in", "tokens_out", "expense", "wall_ms"}.
json task_totals_json(const TaskResult& r);

// The totals plus "task" (the task id), "ok", "answer", "error" and
// "metadata". `canceled` is not written: a canceled task has ok false and
// its error says why.
void to_json(json& j, const TaskResult& r);

}  // namespace kaisha::msg
