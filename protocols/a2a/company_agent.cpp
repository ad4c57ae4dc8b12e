#include "protocols/a2a/company_agent.hpp"

#include <memory>
#include <utility>

#include "protocols/a2a/a2a_wire.hpp"
#include "runtime/core/uuid.hpp"
#include "runtime/jsonrpc/company_capabilities.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::a2a {
namespace {

Error task_not_found(const std::string& id) { return Error{agent_error::kTaskNotFound, "Task not found: " + id}; }

// Turns one subscription's progress events into A2A updates; the state is
// per subscription (the "working" status is sent once, message ids count up).
struct EventTranslator {
  std::string task_id, context_id;
  UpdateListener listener;
  bool working_sent = false;
  int seq = 0;

  json agent_text(const std::string& text) {
    return agent_message(task_id + "-m" + std::to_string(++seq), text, context_id, task_id, WireVersion::v1_0);
  }
  void status(TaskState state, int64_t at, json message, json metadata = json::object()) {
    TaskUpdate u;
    u.kind = TaskUpdate::Kind::status;
    u.state = state;
    u.at_ms = at;
    u.message = std::move(message);
    u.metadata = std::move(metadata);
    listener(u);
  }

  void on_event(const msg::ProgressEvent& e) {
    const int64_t at = e.at_ms ? e.at_ms : wall_ms();
    const company::TaskState state = company::state_after_event(e.kind);
    if (state == company::TaskState::completed) {
      // The final event's text is the answer.
      TaskUpdate art;
      art.kind = TaskUpdate::Kind::artifact;
      art.artifact =
          Artifact{answer_artifact_id(task_id), "answer", json::array({text_part(e.text, WireVersion::v1_0)})};
      listener(art);
      return status(TaskState::completed, at, nullptr);
    }
    if (company::is_final(state)) return status(a2a_state(state), at, agent_text(e.text));
    if (state == company::TaskState::input_required) {
      working_sent = false;  // the answer makes it work again
      return status(TaskState::input_required, at, agent_text(e.text));
    }
    if (!working_sent) {
      working_sent = true;
      status(TaskState::working, at, nullptr);
    }
    json meta{{"kaisha", {{"kind", e.kind}, {"agent", e.agent}, {"data", e.data}}}};
    status(TaskState::working, at, e.text.empty() ? json(nullptr) : agent_text(e.text), std::move(meta));
  }
};

}  // namespace

std::string answer_artifact_id(std::string_view task_id) { return std::string(task_id) + "-answer"; }

AgentTask company_task(const company::TaskInfo& info, std::string_view context_id) {
  constexpr WireVersion v1 = WireVersion::v1_0;
  AgentTask t;
  t.id = info.id;
  t.context_id = context_id;
  t.state = a2a_state(info.state);
  t.updated_ms = info.updated_ms ? info.updated_ms : info.created_ms;
  if (!info.error.empty() && (info.state == company::TaskState::failed || info.state == company::TaskState::canceled))
    t.status_message = agent_message(info.id + "-status", info.error, context_id, info.id, v1);
  if (info.state == company::TaskState::input_required)
    t.status_message = agent_message(info.id + "-question", info.question, context_id, info.id, v1);
  if (info.state == company::TaskState::completed)
    t.artifacts.push_back(Artifact{answer_artifact_id(info.id), "answer", json::array({text_part(info.answer, v1)})});
  t.history.push_back(user_message(info.id + "-input", info.input, context_id, info.id, v1));
  // Each question the task asked and the answer it got, in order.
  for (size_t i = 0; i < info.exchanges.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    t.history.push_back(agent_message(info.id + "-question" + n, info.exchanges[i].question, context_id, info.id, v1));
    t.history.push_back(user_message(info.id + "-answer" + n, info.exchanges[i].answer, context_id, info.id, v1));
  }
  // camelCase like every A2A field name (A2A 1.0 section 5.5).
  t.metadata = {
      {"kaisha", {{"tokensIn", info.tokens_in}, {"tokensOut", info.tokens_out}, {"expenseUsd", info.expense}}}};
  return t;
}

Result<SendOutcome> CompanyAgent::send(const IncomingMessage& message) {
  for (size_t i = 0; i < message.parts.size(); ++i) {
    const json& p = message.parts[i];
    if (!p.contains("text") && !p.contains("data"))
      return Error{agent_error::kContentTypeNotSupported,
                   "params.message.parts[" + std::to_string(i) + "]: only text and data parts are supported"};
  }
  if (!message.task_id.empty()) {
    auto t = company_.task(message.task_id);
    if (!t) return task_not_found(message.task_id);
    if (t->state == company::TaskState::input_required) {
      // The user's answer to the question the task waits on.
      if (!message.context_id.empty() && message.context_id != context_of(*t))
        return Error{agent_error::kInvalidParams, "params.message.contextId: task " + message.task_id +
                                                      " belongs to context " + context_of(*t) + ", not " +
                                                      message.context_id};
      if (message.text.empty()) return Error{agent_error::kInvalidParams, "params.message.parts: no answer in it"};
      if (Status s = company_.provide_input(message.task_id, message.text); !s.ok())
        return Error{agent_error::kUnsupportedOperation, s.error().message};
      return SendOutcome{message.task_id, nullptr};
    }
    return Error{agent_error::kUnsupportedOperation,
                 "task " + message.task_id + " is " + company::to_string(t->state) +
                     " and takes no further input; send the message without a taskId to start a new task"};
  }
  if (message.text.empty()) return Error{agent_error::kInvalidParams, "params.message.parts: no text to work on"};
  // A message without a contextId starts a new conversation (A2A 1.0
  // section 3.4.1): the server names it.
  const std::string context = message.context_id.empty() ? new_uuid() : message.context_id;
  auto id = company_.submit_in(context, message.text, {});
  if (!id.ok()) {
    // A limit of kaisha serve keeps its code: the client may try again later.
    const bool busy = id.error().code == agent_error::kBusy;
    return Error{busy ? agent_error::kBusy : agent_error::kInternal,
                 "the company refused the task: " + id.error().message};
  }
  return SendOutcome{*id, nullptr};
}

std::string CompanyAgent::context_of(const company::TaskInfo& info) const {
  return info.conversation.empty() ? company_.session_id() : info.conversation;
}

std::optional<AgentTask> CompanyAgent::task(const std::string& task_id) {
  auto info = company_.task(task_id);
  if (!info) return std::nullopt;
  return company_task(*info, context_of(*info));
}

Result<AgentTask> CompanyAgent::wait(const std::string& task_id, std::chrono::milliseconds timeout) {
  auto waited = company_.wait(task_id, timeout);
  if (waited.ok()) return company_task(*waited, context_of(*waited));
  auto now = task(task_id);
  if (!now) return task_not_found(task_id);
  return *now;
}

Status CompanyAgent::cancel(const std::string& task_id) {
  auto info = company_.task(task_id);
  if (!info) return task_not_found(task_id);
  if (company::is_final(info->state))
    return Error{agent_error::kTaskNotCancelable, "Task cannot be canceled: " + task_id + " has already ended (" +
                                                      company::to_string(info->state) + ")"};
  // It may end between the check and the cancel.
  if (Status s = company_.cancel(task_id); !s.ok())
    return Error{agent_error::kTaskNotCancelable, "Task cannot be canceled: " + s.error().message};
  return Status::Ok();
}

std::vector<AgentTask> CompanyAgent::tasks(size_t limit) {
  std::vector<AgentTask> out;
  for (const auto& t : company_.tasks(limit)) out.push_back(company_task(t, context_of(t)));
  return out;
}

Result<uint64_t> CompanyAgent::subscribe(const std::string& task_id, UpdateListener listener) {
  auto tr = std::make_shared<EventTranslator>();
  tr->task_id = task_id;
  auto info = company_.task(task_id);
  if (!info) return task_not_found(task_id);
  tr->context_id = context_of(*info);
  tr->listener = std::move(listener);
  auto sub = company_.subscribe(task_id, [tr](const msg::ProgressEvent& e) { tr->on_event(e); });
  if (!sub.ok()) return task_not_found(task_id);
  return *sub;
}

void CompanyAgent::unsubscribe(const std::string& task_id, uint64_t subscription) {
  company_.unsubscribe(task_id, subscription);
}

std::vector<jsonrpc::CapabilityDescriptor> CompanyAgent::skills() {
  return jsonrpc::company_capabilities(company_.agents(), company_.strategy());
}

}  // namespace kaisha::a2a
