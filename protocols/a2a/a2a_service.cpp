#include "protocols/a2a/a2a_service.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <memory>
#include <mutex>
#include <utility>

#include "protocols/a2a/company_agent.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::a2a {
namespace {

using jsonrpc::app_error;

WireVersion version_of(const std::string& method) {
  auto m = classify_method(method);
  return m ? m->version : WireVersion::v1_0;
}

// An agent's refusal as the A2A error it stands for.
Error rpc_error(const Error& e) {
  int c = jsonrpc::code::kInternalError;
  if (e.code == agent_error::kTaskNotFound)
    c = code::kTaskNotFound;
  else if (e.code == agent_error::kTaskNotCancelable)
    c = code::kTaskNotCancelable;
  else if (e.code == agent_error::kUnsupportedOperation)
    c = code::kUnsupportedOperation;
  else if (e.code == agent_error::kContentTypeNotSupported)
    c = code::kContentTypeNotSupported;
  else if (e.code == agent_error::kInvalidParams || e.code == "invalid_params")
    c = jsonrpc::code::kInvalidParams;
  else if (e.code == agent_error::kBusy)
    c = code::kServerBusy;
  return app_error(c, e.message);
}

Result<std::string> task_id_param(const json& params) {
  auto it = params.find("id");
  if (it == params.end() || !it->is_string() || it->get<std::string>().empty())
    return app_error(jsonrpc::code::kInvalidParams, "params.id: the task id (a non-empty string) is required");
  return it->get<std::string>();
}

// An optional integer member; anything else there is an error naming it.
Result<std::optional<int>> int_param(const json& obj, const char* key, const std::string& where) {
  const json* v = proto_field(obj, key);
  if (!v || v->is_null()) return std::optional<int>{};
  if (!v->is_number_integer())
    return app_error(jsonrpc::code::kInvalidParams, where + "." + key + ": must be an integer");
  return std::optional<int>{static_cast<int>(std::clamp<int64_t>(v->get<int64_t>(), -1, 1'000'000))};
}

// An optional member of one JSON type (by either name, see proto_field).
Result<json> typed_param(const json& obj, const char* key, json::value_t type, const char* what, json fallback) {
  const json* v = proto_field(obj, key);
  if (!v || v->is_null()) return fallback;
  if (v->type() != type)
    return app_error(jsonrpc::code::kInvalidParams, std::string("params.") + key + ": must be " + what);
  return *v;
}

Result<std::optional<int>> history_length(const json& obj, const std::string& where) {
  auto n = int_param(obj, "historyLength", where);
  if (n.ok() && *n && **n < 0)
    return app_error(jsonrpc::code::kInvalidParams, where + ".historyLength: must not be negative");
  return n;
}

Error not_found(const std::string& id) { return app_error(code::kTaskNotFound, "Task not found: " + id); }

// One open stream: turns an agent's updates for one task into A2A stream
// events. The listener may be called from any thread; the mutex keeps
// events in order and `done` single.
struct Stream {
  std::mutex mu;
  A2aService::EventSink sink;
  std::function<void()> done;
  json rpc_id;
  WireVersion v = WireVersion::v1_0;
  std::string task_id, context_id;
  // A stream that started a turn ends when the task is interrupted (it
  // waits for the client's next message); a subscription to an existing
  // task follows it across turns, to its end.
  bool ends_when_interrupted = true;
  bool finished = false;
  A2aAgent* agent = nullptr;
  uint64_t subscription = 0;  // 0: not (or no longer) subscribed

  bool emit_locked(json result) {
    if (finished) return false;
    if (!sink(jsonrpc::make_result(rpc_id, std::move(result)))) {
      finish_locked();
      return false;
    }
    return true;
  }
  // Also when the peer went away: the task subscription is released then,
  // not when the task ends.
  void finish_locked() {
    if (finished) return;
    finished = true;
    if (done) done();
    sink = nullptr;
    done = nullptr;
    if (subscription != 0) agent->unsubscribe(task_id, subscription);
    subscription = 0;
  }

  // The agent may hold its own lock while calling us, so we do not call
  // back into it here (but for unsubscribe, which agents must allow).
  void on_update(const TaskUpdate& u) {
    std::lock_guard lock(mu);
    if (finished) return;
    if (u.kind == TaskUpdate::Kind::artifact) {
      emit_locked(stream_artifact(task_id, context_id, u.artifact, u.append, u.last_chunk, v));
      return;
    }
    emit_locked(stream_status(task_id, context_id, u.state, u.at_ms ? u.at_ms : wall_ms(), u.message, v, u.metadata));
    if (is_terminal(u.state) || (ends_when_interrupted && is_interrupted(u.state))) finish_locked();
  }
};

}  // namespace

A2aService::A2aService(company::CompanyService& company, A2aServiceOptions options)
    : A2aService(std::make_shared<CompanyAgent>(company), options) {}

A2aService::A2aService(std::shared_ptr<A2aAgent> agent, A2aServiceOptions options)
    : agent_(std::move(agent)), options_(options), dispatcher_(jsonrpc::Limits{options.body_limits}) {
  const json send_schema{
      {"type", "object"}, {"required", {"message"}}, {"properties", {{"message", {{"type", "object"}}}}}};
  const json id_schema{{"type", "object"}, {"required", {"id"}}, {"properties", {{"id", {{"type", "string"}}}}}};
  for (const char* name : {"SendMessage", "message/send"}) {
    dispatcher_.handle(
        name, [this](const json& p, jsonrpc::Context& ctx) { return send_message(p, version_of(ctx.method), true); },
        send_schema);
  }
  for (const char* name : {"GetTask", "tasks/get"}) {
    dispatcher_.handle(
        name, [this](const json& p, jsonrpc::Context& ctx) { return get_task(p, version_of(ctx.method)); }, id_schema);
  }
  for (const char* name : {"CancelTask", "tasks/cancel"}) {
    dispatcher_.handle(
        name, [this](const json& p, jsonrpc::Context& ctx) { return cancel_task(p, version_of(ctx.method)); },
        id_schema);
  }
  dispatcher_.handle("ListTasks", [this](const json& p, jsonrpc::Context&) { return list_tasks(p); });
  for (const char* name : {"GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"}) {
    dispatcher_.handle(name, [](const json&, jsonrpc::Context&) -> Result<json> {
      return app_error(code::kExtendedCardNotConfigured, "this agent has no extended agent card");
    });
  }
  for (const char* name :
       {"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete"}) {
    dispatcher_.handle(name, [](const json&, jsonrpc::Context&) -> Result<json> {
      return app_error(-32003, "push notifications are not supported (capabilities.pushNotifications is false)");
    });
  }
  // Streaming methods reached through the plain dispatcher (e.g. a body
  // that is a batch) cannot stream; say so rather than "method not found".
  for (const char* name : {"SendStreamingMessage", "message/stream", "SubscribeToTask", "tasks/resubscribe"}) {
    dispatcher_.handle(name, [](const json&, jsonrpc::Context& ctx) -> Result<json> {
      return app_error(code::kUnsupportedOperation, ctx.method + " must be sent alone, not in a batch");
    });
  }
}

bool A2aService::is_streaming(std::string_view method) {
  auto m = classify_method(method);
  return m && (m->canonical == "SendStreamingMessage" || m->canonical == "SubscribeToTask");
}

Result<SendOutcome> A2aService::send(const json& params) {
  auto msg = read_message(params.value("message", json()));
  if (!msg.ok()) return app_error(jsonrpc::code::kInvalidParams, msg.error().message);
  if (msg->role != "user") return app_error(jsonrpc::code::kInvalidParams, "params.message.role: must be the user's");
  auto outcome = agent_->send(*msg);
  if (!outcome.ok()) return rpc_error(outcome.error());
  return outcome;
}

Result<json> A2aService::send_message(const json& params, WireVersion v, bool blocking_default) {
  const json cfg = params.value("configuration", json::object());
  if (!cfg.is_object() && !cfg.is_null())
    return app_error(jsonrpc::code::kInvalidParams, "params.configuration: must be an object");
  auto hl = cfg.is_object() ? history_length(cfg, "params.configuration") : Result<std::optional<int>>(std::nullopt);
  if (!hl.ok()) return hl.error();
  auto outcome = send(params);
  if (!outcome.ok()) return outcome.error();
  if (!outcome->message.is_null()) return message_result(outcome->message, v);
  const std::string& id = outcome->task_id;
  bool blocking = blocking_default;
  if (cfg.is_object()) {
    if (const json* r = proto_field(cfg, "returnImmediately"); r && *r == true) blocking = false;          // v1.0
    if (cfg.contains("blocking") && cfg["blocking"].is_boolean()) blocking = cfg["blocking"].get<bool>();  // v0.3
  }
  std::optional<AgentTask> task;
  if (blocking) {
    auto waited = agent_->wait(id, options_.blocking_wait);
    if (waited.ok()) task = std::move(*waited);
  }
  if (!task) task = agent_->task(id);
  if (!task) return not_found(id);
  return send_result(task_json(*task, v, *hl), v);
}

Result<json> A2aService::get_task(const json& params, WireVersion v) {
  auto id = task_id_param(params);
  if (!id.ok()) return id.error();
  auto hl = history_length(params, "params");
  if (!hl.ok()) return hl.error();
  auto task = agent_->task(*id);
  if (!task) return not_found(*id);
  return task_json(*task, v, *hl);
}

Result<json> A2aService::cancel_task(const json& params, WireVersion v) {
  auto id = task_id_param(params);
  if (!id.ok()) return id.error();
  if (Status s = agent_->cancel(*id); !s.ok()) return rpc_error(s.error());
  std::optional<AgentTask> task;
  if (auto waited = agent_->wait(*id, options_.cancel_wait); waited.ok())
    task = std::move(*waited);
  else
    task = agent_->task(*id);
  if (!task) return not_found(*id);
  return task_json(*task, v);
}

// How many of the most recent tasks ListTasks filters and pages through.
constexpr size_t kListScanLimit = 1000;

Result<json> A2aService::list_tasks(const json& params) {
  auto size = int_param(params, "pageSize", "params");
  if (!size.ok()) return size.error();
  auto hl = history_length(params, "params");
  if (!hl.ok()) return hl.error();
  auto status = typed_param(params, "status", json::value_t::string, "a string", "");
  auto context = typed_param(params, "contextId", json::value_t::string, "a string", "");
  auto token = typed_param(params, "pageToken", json::value_t::string, "a string", "");
  auto after = typed_param(params, "statusTimestampAfter", json::value_t::string, "an ISO-8601 date-time", "");
  // A2A 1.0: artifacts are left out unless asked for, to keep lists small.
  auto artifacts = typed_param(params, "includeArtifacts", json::value_t::boolean, "a boolean", false);
  for (const auto* r : {&status, &context, &token, &after, &artifacts})
    if (!r->ok()) return r->error();
  if (*size && (**size < 1 || **size > 100))
    return app_error(jsonrpc::code::kInvalidParams,
                     "params.pageSize: must be between 1 and 100 (got " + std::to_string(**size) + ")");
  const size_t page_size = static_cast<size_t>(size->value_or(50));
  std::string status_filter = status->get<std::string>();
  if (status_filter == "TASK_STATE_UNSPECIFIED") status_filter.clear();
  std::optional<int64_t> after_ms;
  if (const auto& text = after->get_ref<const std::string&>(); !text.empty()) {
    after_ms = parse_iso_timestamp(text);
    if (!after_ms)
      return app_error(jsonrpc::code::kInvalidParams, "params.statusTimestampAfter: '" + text +
                                                          "' is not an ISO-8601 date-time with a zone, such as "
                                                          "2026-11-29T10:00:00Z");
  }
  const std::string& context_filter = context->get_ref<const std::string&>();
  if (!status_filter.empty()) {
    if (auto known = parse_state(json(status_filter)); !known.ok())
      return app_error(jsonrpc::code::kInvalidParams, "params.status: unknown task state '" + status_filter + "'");
  }
  // The cursor is the last task of the previous page as "UPDATED_MS.ID".
  // Pages follow the order (last update, newest first; then id), so a task
  // created or updated since moves ahead of the cursor instead of shifting
  // the pages after it.
  struct Key {
    int64_t updated_ms;
    std::string id;
  };
  auto before = [](const Key& a, const Key& b) {  // a is listed before b
    return a.updated_ms != b.updated_ms ? a.updated_ms > b.updated_ms : a.id > b.id;
  };
  std::optional<Key> cursor;
  if (const auto& text = token->get_ref<const std::string&>(); !text.empty()) {
    const size_t dot = text.find('.');
    int64_t ms = 0;
    const char* end_ms = text.data() + (dot == std::string::npos ? 0 : dot);
    auto [ptr, ec] = std::from_chars(text.data(), end_ms, ms);
    if (dot == std::string::npos || dot == 0 || ec != std::errc() || ptr != end_ms || dot + 1 == text.size())
      return app_error(jsonrpc::code::kInvalidParams,
                       "params.pageToken: '" + text + "' is not a token this agent gave (use nextPageToken)");
    cursor = Key{ms, text.substr(dot + 1)};
  }
  auto matches = [&](const AgentTask& t) {
    if (!context_filter.empty() && t.context_id != context_filter) return false;
    if (!status_filter.empty() && state_name(t.state, WireVersion::v1_0) != status_filter &&
        state_name(t.state, WireVersion::v0_3) != status_filter)
      return false;
    return !after_ms || t.updated_ms >= *after_ms;
  };
  std::vector<AgentTask> found;
  for (auto& t : agent_->tasks(kListScanLimit))
    if (matches(t)) found.push_back(std::move(t));
  std::stable_sort(found.begin(), found.end(), [&](const AgentTask& a, const AgentTask& b) {
    return before(Key{a.updated_ms, a.id}, Key{b.updated_ms, b.id});
  });
  size_t first = 0;
  if (cursor)
    while (first < found.size() && !before(*cursor, Key{found[first].updated_ms, found[first].id})) ++first;
  const size_t end = std::min(found.size(), first + page_size);
  json tasks = json::array();
  for (size_t i = first; i < end; ++i)
    tasks.push_back(task_json(found[i], WireVersion::v1_0, *hl, artifacts->get<bool>()));
  std::string next_token;
  if (end < found.size()) next_token = std::to_string(found[end - 1].updated_ms) + "." + found[end - 1].id;
  return json{{"tasks", std::move(tasks)},
              {"nextPageToken", std::move(next_token)},
              {"pageSize", page_size},
              {"totalSize", found.size()}};
}

std::function<void()> A2aService::stream(const jsonrpc::Request& request, EventSink sink, std::function<void()> done) {
  auto st = std::make_shared<Stream>();
  st->sink = std::move(sink);
  st->done = std::move(done);
  st->agent = agent_.get();
  std::function<void()> stop = [weak = std::weak_ptr<Stream>(st)] {
    if (auto s = weak.lock()) {
      std::lock_guard lock(s->mu);
      s->finish_locked();
    }
  };
  st->rpc_id = request.id;
  auto fail = [&](const Error& e) {
    std::lock_guard lock(st->mu);
    st->sink(jsonrpc::make_error(request.id, jsonrpc::to_rpc_error(e)));
    st->finish_locked();
    return stop;
  };
  const json params = request.params.is_object() ? request.params : json::object();
  auto method = classify_method(request.method);
  if (!method || !is_streaming(request.method))
    return fail(app_error(jsonrpc::code::kMethodNotFound, "Method not found: " + request.method));
  st->v = method->version;

  std::optional<AgentTask> task;
  if (method->canonical == "SendStreamingMessage") {
    if (!params.contains("message") || !params["message"].is_object())
      return fail(app_error(jsonrpc::code::kInvalidParams, "params.message: is required (an object)"));
    const bool new_task = !params["message"].contains("taskId") || params["message"]["taskId"].is_null();
    auto outcome = send(params);
    if (!outcome.ok()) return fail(outcome.error());
    if (!outcome->message.is_null()) {
      std::lock_guard lock(st->mu);
      st->emit_locked(message_result(outcome->message, st->v));
      st->finish_locked();
      return stop;
    }
    st->task_id = outcome->task_id;
    task = agent_->task(st->task_id);
    if (!task) return fail(not_found(st->task_id));
    if (new_task) {
      // The first event is the task as created; what happened since comes as
      // updates when subscribe replays it.
      task->state = TaskState::submitted;
      task->status_message = nullptr;
      task->artifacts.clear();
    }
  } else {
    auto id = task_id_param(params);
    if (!id.ok()) return fail(id.error());
    st->task_id = *id;
    st->ends_when_interrupted = false;
    task = agent_->task(*id);
    if (!task) return fail(not_found(*id));
    if (is_terminal(task->state))
      return fail(app_error(code::kUnsupportedOperation, "task " + *id + " has already ended (" +
                                                             state_name(task->state, st->v) + "); use GetTask"));
  }
  st->context_id = task->context_id;
  {
    std::lock_guard lock(st->mu);
    if (!st->emit_locked(stream_task(task_json(*task, st->v), st->v))) return stop;
  }
  auto sub = agent_->subscribe(st->task_id, [st](const TaskUpdate& u) { st->on_update(u); });
  std::lock_guard lock(st->mu);
  if (!sub.ok()) {
    if (!st->finished) {
      st->sink(jsonrpc::make_error(st->rpc_id, jsonrpc::to_rpc_error(not_found(st->task_id))));
      st->finish_locked();
    }
  } else if (st->finished) {
    agent_->unsubscribe(st->task_id, *sub);  // it ended during the replay
  } else {
    st->subscription = *sub;
  }
  return stop;
}

}  // namespace kaisha::a2a
