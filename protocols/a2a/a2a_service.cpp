#include "protocols/a2a/a2a_service.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

namespace kaisha::a2a {
namespace {

using jsonrpc::app_error;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

WireVersion version_of(const std::string& method) {
  auto m = classify_method(method);
  return m ? m->version : WireVersion::v1_0;
}

Result<std::string> task_id_param(const json& params) {
  auto it = params.find("id");
  if (it == params.end() || !it->is_string() || it->get<std::string>().empty())
    return app_error(jsonrpc::code::kInvalidParams, "params.id: the task id (a non-empty string) is required");
  return it->get<std::string>();
}

std::optional<int> history_length(const json& obj) {
  auto it = obj.find("historyLength");
  if (it != obj.end() && it->is_number_integer()) return std::max(0, it->get<int>());
  return std::nullopt;
}

Error not_found(const std::string& id) { return app_error(code::kTaskNotFound, "Task not found: " + id); }

// One open stream: turns the company's progress events for one task into A2A
// stream events. The listener may be called from any thread; the mutex keeps
// events in order and `done` single.
struct Stream {
  std::mutex mu;
  A2aService::EventSink sink;
  std::function<void()> done;
  json rpc_id;
  WireVersion v = WireVersion::v1_0;
  std::string task_id, context_id;
  bool working_sent = false;
  bool finished = false;
  int seq = 0;
  company::CompanyService* company = nullptr;
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
    if (subscription != 0) company->unsubscribe(task_id, subscription);
    subscription = 0;
  }
  json agent_text(const std::string& text) {
    return agent_message(task_id + "-m" + std::to_string(++seq), text, context_id, task_id, v);
  }

  void on_event(const msg::ProgressEvent& e) {
    std::lock_guard lock(mu);
    if (finished) return;
    const int64_t at = e.at_ms ? e.at_ms : now_ms();
    const company::TaskState state = company::state_after_event(e.kind);
    if (state == company::TaskState::completed) {
      // The final event's text is the answer (the service may hold its own
      // lock while calling us, so we do not call back into it here).
      if (!emit_locked(stream_artifact(task_id, context_id, answer_artifact_id(task_id), "answer", e.text, v))) return;
      emit_locked(stream_status(task_id, context_id, state, at, nullptr, v));
      return finish_locked();
    }
    if (company::is_final(state)) {
      emit_locked(stream_status(task_id, context_id, state, at, agent_text(e.text), v));
      return finish_locked();
    }
    if (!working_sent) {
      working_sent = true;
      if (!emit_locked(stream_status(task_id, context_id, company::TaskState::working, at, nullptr, v))) return;
    }
    json meta{{"kaisha", {{"kind", e.kind}, {"agent", e.agent}, {"data", e.data}}}};
    emit_locked(stream_status(task_id, context_id, company::TaskState::working, at,
                              e.text.empty() ? json(nullptr) : agent_text(e.text), v, meta));
  }
};

}  // namespace

A2aService::A2aService(company::CompanyService& company, A2aServiceOptions options)
    : company_(company), options_(options), dispatcher_(jsonrpc::Limits{options.body_limits}) {
  const json send_schema{{"type", "object"}, {"required", {"message"}}, {"properties", {{"message", {{"type", "object"}}}}}};
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
  for (const char* name : {"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
                           "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig",
                           "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
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

Result<std::string> A2aService::submit(const json& params) {
  auto msg = read_message(params.value("message", json()));
  if (!msg.ok()) {
    const int c = msg.error().code == "-32005" ? code::kContentTypeNotSupported : jsonrpc::code::kInvalidParams;
    return app_error(c, msg.error().message);
  }
  if (msg->role != "user") return app_error(jsonrpc::code::kInvalidParams, "params.message.role: must be the user's");
  if (!msg->task_id.empty()) {
    auto t = company_.task(msg->task_id);
    if (!t) return not_found(msg->task_id);
    return app_error(code::kUnsupportedOperation,
                     "task " + msg->task_id + " is " + company::to_string(t->state) +
                         " and takes no further input; send the message without a taskId to start a new task");
  }
  if (msg->text.empty()) return app_error(jsonrpc::code::kInvalidParams, "params.message.parts: no text to work on");
  auto id = company_.submit(msg->text, {});
  if (!id.ok()) return app_error(jsonrpc::code::kInternalError, "the company refused the task: " + id.error().message);
  return id;
}

Result<json> A2aService::send_message(const json& params, WireVersion v, bool blocking_default) {
  auto id = submit(params);
  if (!id.ok()) return id.error();
  const json cfg = params.value("configuration", json::object());
  bool blocking = blocking_default;
  if (cfg.is_object()) {
    if (cfg.value("returnImmediately", false) == true) blocking = false;  // v1.0
    if (cfg.contains("blocking") && cfg["blocking"].is_boolean()) blocking = cfg["blocking"].get<bool>();  // v0.3
  }
  std::optional<company::TaskInfo> info;
  if (blocking) {
    auto waited = company_.wait(*id, options_.blocking_wait);
    if (waited.ok()) info = *waited;
  }
  if (!info) info = company_.task(*id);
  if (!info) return not_found(*id);
  return send_result(task_json(*info, company_.session_id(), v, cfg.is_object() ? history_length(cfg) : std::nullopt), v);
}

Result<json> A2aService::get_task(const json& params, WireVersion v) {
  auto id = task_id_param(params);
  if (!id.ok()) return id.error();
  auto info = company_.task(*id);
  if (!info) return not_found(*id);
  return task_json(*info, company_.session_id(), v, history_length(params));
}

Result<json> A2aService::cancel_task(const json& params, WireVersion v) {
  auto id = task_id_param(params);
  if (!id.ok()) return id.error();
  auto info = company_.task(*id);
  if (!info) return not_found(*id);
  if (company::is_final(info->state))
    return app_error(code::kTaskNotCancelable,
                     "Task cannot be canceled: " + *id + " has already ended (" + company::to_string(info->state) + ")");
  if (Status s = company_.cancel(*id); !s.ok()) {
    // It may have ended between the check and the cancel.
    return app_error(code::kTaskNotCancelable, "Task cannot be canceled: " + s.error().message);
  }
  auto waited = company_.wait(*id, options_.cancel_wait);
  if (waited.ok()) info = *waited;
  else info = company_.task(*id);
  if (!info) return not_found(*id);
  return task_json(*info, company_.session_id(), v);
}

Result<json> A2aService::list_tasks(const json& params) {
  int page_size = 50;
  if (auto it = params.find("pageSize"); it != params.end() && it->is_number_integer())
    page_size = std::clamp(it->get<int>(), 1, 100);
  std::string status_filter = params.value("status", std::string());
  if (status_filter == "TASK_STATE_UNSPECIFIED") status_filter.clear();
  const std::string context = params.value("contextId", std::string());
  json tasks = json::array();
  if (context.empty() || context == company_.session_id()) {
    for (const auto& t : company_.tasks(static_cast<size_t>(page_size))) {
      if (!status_filter.empty() && state_name(t.state, WireVersion::v1_0) != status_filter) continue;
      tasks.push_back(task_json(t, company_.session_id(), WireVersion::v1_0, history_length(params)));
    }
  }
  const size_t n = tasks.size();
  return json{{"tasks", std::move(tasks)}, {"nextPageToken", ""}, {"pageSize", page_size}, {"totalSize", n}};
}

std::function<void()> A2aService::stream(const jsonrpc::Request& request, EventSink sink, std::function<void()> done) {
  auto st = std::make_shared<Stream>();
  st->sink = std::move(sink);
  st->done = std::move(done);
  st->company = &company_;
  std::function<void()> stop = [weak = std::weak_ptr<Stream>(st)] {
    if (auto s = weak.lock()) {
      std::lock_guard lock(s->mu);
      s->finish_locked();
    }
  };
  st->rpc_id = request.id;
  st->context_id = company_.session_id();
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

  std::optional<company::TaskInfo> info;
  if (method->canonical == "SendStreamingMessage") {
    if (!params.contains("message") || !params["message"].is_object())
      return fail(app_error(jsonrpc::code::kInvalidParams, "params.message: is required (an object)"));
    auto id = submit(params);
    if (!id.ok()) return fail(id.error());
    st->task_id = *id;
    info = company_.task(*id);
    if (!info) return fail(not_found(*id));
    // The first event is the task as created; what happened since comes as
    // updates when subscribe replays it.
    info->state = company::TaskState::submitted;
    info->answer.clear();
    info->error.clear();
  } else {
    auto id = task_id_param(params);
    if (!id.ok()) return fail(id.error());
    st->task_id = *id;
    info = company_.task(*id);
    if (!info) return fail(not_found(*id));
    if (company::is_final(info->state))
      return fail(app_error(code::kUnsupportedOperation, "task " + *id + " has already ended (" +
                                                             company::to_string(info->state) + "); use GetTask"));
  }
  {
    std::lock_guard lock(st->mu);
    if (!st->emit_locked(stream_task(task_json(*info, st->context_id, st->v), st->v))) return stop;
  }
  auto sub = company_.subscribe(st->task_id, [st](const msg::ProgressEvent& e) { st->on_event(e); });
  std::lock_guard lock(st->mu);
  if (!sub.ok()) {
    if (!st->finished) {
      st->sink(jsonrpc::make_error(st->rpc_id, jsonrpc::to_rpc_error(not_found(st->task_id))));
      st->finish_locked();
    }
  } else if (st->finished) {
    company_.unsubscribe(st->task_id, *sub);  // it ended during the replay
  } else {
    st->subscription = *sub;
  }
  return stop;
}

}  // namespace kaisha::a2a
