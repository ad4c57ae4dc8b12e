#include "runtime/company/company_service.hpp"

namespace kaisha::company {

const char* to_string(TaskState s) {
  switch (s) {
    case TaskState::submitted:
      return "submitted";
    case TaskState::working:
      return "working";
    case TaskState::input_required:
      return "input_required";
    case TaskState::completed:
      return "completed";
    case TaskState::failed:
      return "failed";
    case TaskState::canceled:
      return "canceled";
  }
  return "unknown";
}

TaskState state_after_event(msg::EventKind kind) {
  if (kind == msg::EventKind::final) return TaskState::completed;
  if (kind == msg::EventKind::error) return TaskState::failed;
  if (kind == msg::EventKind::canceled) return TaskState::canceled;
  if (kind == msg::EventKind::input_required) return TaskState::input_required;
  return TaskState::working;
}

msg::EventKind terminal_event_kind(TaskState s) {
  return s == TaskState::completed  ? msg::EventKind::final
         : s == TaskState::canceled ? msg::EventKind::canceled
                                    : msg::EventKind::error;
}

msg::ProgressEvent terminal_event(const TaskInfo& info) {
  msg::ProgressEvent e;
  e.session_id = info.session_id;
  e.task_id = info.id;
  e.agent = "CEO";
  e.kind = terminal_event_kind(info.state);
  e.text = info.state == TaskState::completed ? info.answer : info.error;
  e.data = info.to_json();
  e.tokens_in = info.tokens_in;
  e.tokens_out = info.tokens_out;
  e.usd = info.expense;
  e.at_ms = info.updated_ms;
  return e;
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
  if (state == TaskState::input_required) j["question"] = question;
  if (!session_id.empty()) j["session_id"] = session_id;
  if (!conversation.empty()) j["conversation"] = conversation;
  return j;
}

}  // namespace kaisha::company
