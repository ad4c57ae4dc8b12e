#include "protocols/a2a/tck_scenario_agent.hpp"

#include <array>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "protocols/a2a/a2a_wire.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::a2a {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

json file_part() {
  // "tck" in base64, as the kit's reference agents send it.
  return json{{"raw", "dGNr"}, {"filename", "output.txt"}, {"mediaType", "text/plain"}};
}

Artifact artifact_of(std::string id, json part) { return Artifact{std::move(id), "", json::array({std::move(part)})}; }

}  // namespace

std::chrono::milliseconds TckScenarioAgent::long_task_from_env() {
  double seconds = 2.0;
  if (const char* v = std::getenv("TCK_STREAMING_TIMEOUT"); v && *v) {
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    if (end && *end == '\0' && d > 0 && d < 3600) seconds = d;
  }
  return std::chrono::milliseconds(static_cast<int64_t>(2 * seconds * 1000));
}

TckScenarioAgent::~TckScenarioAgent() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : timers_) t.join();
}

Result<SendOutcome> TckScenarioAgent::send(const IncomingMessage& message) {
  const std::string& mid = message.message_id;
  if (starts_with(mid, "tck-message-response")) {
    std::lock_guard lock(mu_);
    const std::string context =
        message.context_id.empty() ? "tck-context-" + std::to_string(++next_task_) : message.context_id;
    return SendOutcome{"", agent_message("tck-reply-" + std::to_string(++next_message_), "Direct message response",
                                         context, "", WireVersion::v1_0)};
  }
  std::string id;
  {
    std::lock_guard lock(mu_);
    if (!message.task_id.empty()) {
      auto it = tasks_.find(message.task_id);
      if (it == tasks_.end()) return Error{agent_error::kTaskNotFound, "Task not found: " + message.task_id};
      AgentTask& t = it->second.task;
      if (!message.context_id.empty() && message.context_id != t.context_id)
        return Error{agent_error::kInvalidParams, "params.message.contextId: '" + message.context_id +
                                                      "' is not the context of task " + t.id + " ('" + t.context_id +
                                                      "')"};
      if (!is_interrupted(t.state))
        return Error{agent_error::kUnsupportedOperation,
                     "task " + t.id + " is " + state_name(t.state, WireVersion::v1_0) +
                         " and takes no further input; send the message without a taskId to start a new task"};
      id = t.id;
      it->second.turn.clear();  // a new turn: subscribers from now on see it alone
    } else {
      id = "tck-task-" + std::to_string(++next_task_);
      Entry e;
      e.task.id = id;
      e.task.context_id = message.context_id.empty() ? "tck-context-" + std::to_string(next_task_) : message.context_id;
      e.task.updated_ms = wall_ms();
      tasks_[id] = std::move(e);
      order_.push_back(id);
    }
    AgentTask& t = tasks_[id].task;
    json user{{"messageId", mid},
              {"role", "ROLE_USER"},
              {"parts", message.parts},
              {"contextId", t.context_id},
              {"taskId", id}};
    if (!message.metadata.is_null()) user["metadata"] = message.metadata;
    t.history.push_back(std::move(user));
  }
  play(id, mid);
  return SendOutcome{id, nullptr};
}

void TckScenarioAgent::play(const std::string& id, const std::string& mid) {
  // Longer prefixes first where one starts another.
  if (starts_with(mid, "tck-stream-artifact-chunked")) {
    status(id, TaskState::working);
    artifact(id, artifact_of(id + "-chunked", json{{"text", "chunk-1 "}}), false, false);
    artifact(id, artifact_of(id + "-chunked", json{{"text", "chunk-2"}}), true, true);
    return status(id, TaskState::completed);
  }
  if (starts_with(mid, "test-resubscribe-message-id")) {
    status(id, TaskState::working);
    std::lock_guard lock(mu_);
    if (stopping_) return;
    timers_.emplace_back([this, id] {
      {
        std::unique_lock lock(mu_);
        if (changed_.wait_for(lock, long_task_, [this] { return stopping_; })) return;
      }
      status(id, TaskState::completed);  // dropped if it was canceled meanwhile
    });
    return;
  }
  struct Streamed {
    const char* prefix;
    const char* text;  // the artifact's text; null: a file part
  };
  static constexpr std::array<Streamed, 5> kStreamed{{
      {"tck-stream-artifact-text", "Streamed text content"},
      {"tck-stream-artifact-file", nullptr},
      {"tck-stream-ordering-001", "Ordered output"},
      {"tck-stream-001", "Stream hello from TCK"},
      {"tck-stream-003", "Stream task lifecycle"},
  }};
  for (const auto& s : kStreamed) {
    if (!starts_with(mid, s.prefix)) continue;
    status(id, TaskState::working);
    artifact(id, artifact_of(id + "-artifact", s.text ? json{{"text", s.text}} : file_part()));
    return status(id, TaskState::completed);
  }
  if (starts_with(mid, "tck-stream-002")) return status(id, TaskState::completed);
  if (starts_with(mid, "tck-artifact-file-url")) {
    artifact(id, artifact_of(id + "-artifact", json{{"url", "https://example.com/output.txt"},
                                                    {"filename", "output.txt"},
                                                    {"mediaType", "text/plain"}}));
    return status(id, TaskState::completed);
  }
  if (starts_with(mid, "tck-artifact-file")) {
    artifact(id, artifact_of(id + "-artifact", file_part()));
    return status(id, TaskState::completed);
  }
  if (starts_with(mid, "tck-artifact-text")) {
    artifact(id, artifact_of(id + "-artifact", json{{"text", "Generated text content"}}));
    return status(id, TaskState::completed);
  }
  if (starts_with(mid, "tck-artifact-data")) {
    artifact(id, artifact_of(id + "-artifact", json{{"data", {{"key", "value"}, {"count", 42}}}}));
    return status(id, TaskState::completed);
  }
  if (starts_with(mid, "tck-input-required")) return status(id, TaskState::input_required);
  if (starts_with(mid, "tck-complete-task")) return status(id, TaskState::completed, "Hello from TCK");
  if (starts_with(mid, "tck-reject-task")) return status(id, TaskState::rejected, "rejected");
  status(id, TaskState::completed, "Unhandled messageId prefix: " + mid);
}

void TckScenarioAgent::status(const std::string& id, TaskState state, const std::string& text) {
  TaskUpdate u;
  u.kind = TaskUpdate::Kind::status;
  u.state = state;
  if (!text.empty()) {
    std::string context;
    uint64_t n = 0;
    {
      std::lock_guard lock(mu_);
      context = tasks_[id].task.context_id;
      n = ++next_message_;
    }
    u.message = agent_message("tck-status-" + std::to_string(n), text, context, id, WireVersion::v1_0);
  }
  apply(id, std::move(u));
}

void TckScenarioAgent::artifact(const std::string& id, Artifact a, bool append, bool last_chunk) {
  TaskUpdate u;
  u.kind = TaskUpdate::Kind::artifact;
  u.artifact = std::move(a);
  u.append = append;
  u.last_chunk = last_chunk;
  apply(id, std::move(u));
}

void TckScenarioAgent::apply(const std::string& id, TaskUpdate u) {
  std::lock_guard deliver(deliver_mu_);
  std::vector<UpdateListener> listeners;
  {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(id);
    if (it == tasks_.end() || is_terminal(it->second.task.state)) return;
    AgentTask& t = it->second.task;
    u.at_ms = wall_ms();
    if (u.kind == TaskUpdate::Kind::status) {
      t.state = u.state;
      t.status_message = u.message;
      t.updated_ms = u.at_ms;
      if (!u.message.is_null()) t.history.push_back(u.message);
    } else {
      Artifact* same = nullptr;
      for (auto& a : t.artifacts)
        if (a.id == u.artifact.id) same = &a;
      if (u.append && same) {
        for (const auto& p : u.artifact.parts) same->parts.push_back(p);
      } else if (same) {
        *same = u.artifact;
      } else {
        t.artifacts.push_back(u.artifact);
      }
    }
    it->second.turn.push_back(u);
    for (const auto& [sub, l] : it->second.listeners) listeners.push_back(l);
    const bool ends = u.kind == TaskUpdate::Kind::status && is_terminal(u.state);
    if (ends) it->second.listeners.clear();
  }
  changed_.notify_all();
  for (const auto& l : listeners) l(u);
}

std::optional<AgentTask> TckScenarioAgent::task(const std::string& task_id) {
  std::lock_guard lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return std::nullopt;
  return it->second.task;
}

Result<AgentTask> TckScenarioAgent::wait(const std::string& task_id, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return Error{agent_error::kTaskNotFound, "Task not found: " + task_id};
  const AgentTask& t = it->second.task;
  changed_.wait_for(lock, timeout, [&] { return stopping_ || is_terminal(t.state) || is_interrupted(t.state); });
  return t;
}

Status TckScenarioAgent::cancel(const std::string& task_id) {
  {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) return Error{agent_error::kTaskNotFound, "Task not found: " + task_id};
    if (is_terminal(it->second.task.state))
      return Error{agent_error::kTaskNotCancelable, "Task cannot be canceled: " + task_id + " has already ended (" +
                                                        state_name(it->second.task.state, WireVersion::v1_0) + ")"};
  }
  status(task_id, TaskState::canceled, "canceled by the client");
  return Status::Ok();
}

std::vector<AgentTask> TckScenarioAgent::tasks(size_t limit) {
  std::lock_guard lock(mu_);
  std::vector<AgentTask> out;
  for (auto it = order_.rbegin(); it != order_.rend() && out.size() < limit; ++it) out.push_back(tasks_[*it].task);
  return out;
}

Result<uint64_t> TckScenarioAgent::subscribe(const std::string& task_id, UpdateListener listener) {
  std::lock_guard deliver(deliver_mu_);
  std::vector<TaskUpdate> replay;
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) return Error{agent_error::kTaskNotFound, "Task not found: " + task_id};
    replay = it->second.turn;
    id = ++next_subscription_;
    if (!is_terminal(it->second.task.state)) it->second.listeners[id] = listener;
  }
  for (const auto& u : replay) listener(u);
  return id;
}

void TckScenarioAgent::unsubscribe(const std::string& task_id, uint64_t subscription) {
  std::lock_guard lock(mu_);
  if (auto it = tasks_.find(task_id); it != tasks_.end()) it->second.listeners.erase(subscription);
}

std::vector<jsonrpc::CapabilityDescriptor> TckScenarioAgent::skills() {
  jsonrpc::CapabilityDescriptor d;
  d.kind = jsonrpc::CapabilityKind::agent;
  d.name = "tck";
  d.title = "TCK Conformance";
  d.description = "Answers the A2A TCK's scenario messages (test fixture: acts on the messageId prefix)";
  d.tags = {"tck"};
  return {d};
}

}  // namespace kaisha::a2a
