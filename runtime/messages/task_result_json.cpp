#include "runtime/messages/task_result_json.hpp"

namespace kaisha::msg {

json task_totals_json(const TaskResult& r) {
  return json{{"tokens_in", r.tokens_in}, {"tokens_out", r.tokens_out}, {"expense", r.expense}, {"wall_ms", r.wall_ms}};
}

void to_json(json& j, const TaskResult& r) {
  j = task_totals_json(r);
  j["task"] = r.task_id;
  j["ok"] = r.ok;
  j["answer"] = r.answer;
  j["error"] = r.error;
  j["metadata"] = r.metadata;
}

}  // namespace kaisha::msg
