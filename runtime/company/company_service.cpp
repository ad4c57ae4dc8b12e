#include "runtime/company/company_service.hpp"

namespace kaisha::company {

const char* to_string(TaskState s) {
  switch (s) {
    case TaskState::submitted: return "submitted";
    case TaskState::working: return "working";
    case TaskState::completed: return "completed";
    case TaskState::failed: return "failed";
    case TaskState::canceled: return "canceled";
  }
  return "unknown";
}

TaskState state_after_event(const std::string& kind) {
  if (kind == "final") return TaskState::completed;
  if (kind == "error") return TaskState::failed;
  if (kind == "canceled") return TaskState::canceled;
  return TaskState::working;
}

const char* terminal_event_kind(TaskState s) {
  return s == TaskState::completed ? "final" : s == TaskState::canceled ? "canceled" : "error";
}

json TaskInfo::to_json() const {
  json j{{"id", id},
         {"input", input},
         {"state", to_string(state)},
         {"tokens_in", tokens_in},
         {"tokens_out", tokens_out},
         {"expense", expense},
         {"created_ms", created_ms},
         {"updated_ms", updated_ms}};
  if (state == TaskState::completed) j["answer"] = answer;
  if (!error.empty()) j["error"] = error;
  return j;
}

}  // namespace kaisha::company
