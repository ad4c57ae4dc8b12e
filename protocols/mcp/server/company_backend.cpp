#include "protocols/mcp/server/company_backend.hpp"

#include <algorithm>
#include <mutex>
#include <sstream>

#include "protocols/mcp/server/input_exchange.hpp"
#include "protocols/mcp/server/json_template.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::mcp {

namespace {

constexpr const char* kTaskPrefix = "kaisha://tasks/";
constexpr size_t kListedTasks = 50;

json json_result(const json& value, bool is_error = false) {
  json r = text_result(dump_text(value, 2), is_error);
  r["structuredContent"] = value.is_object() ? value : json{{"result", value}};
  return r;
}

// A CEO tool's {status, message, output} as an MCP result.
json from_tool_result(const json& r) {
  const bool error = r.value("status", "") == "error";
  std::string text;
  if (r.contains("output") && r["output"].is_string())
    text = r["output"].get<std::string>();
  else if (r.contains("output") && !r["output"].is_null())
    text = dump_text(r["output"], 2);
  if (text.empty() || error) text = r.value("message", text);
  json out = text_result(text, error);
  out["structuredContent"] = r;
  return out;
}

// Listener state outliving the call: events that arrive after run_task
// returned are dropped instead of touching a dead context.
struct ProgressRelay {
  std::mutex mu;
  bool active = true;
  double count = 0;
  std::function<void(const json&)> notify;
  json token;
};

}  // namespace

Result<std::unique_ptr<CompanyBackend>> CompanyBackend::load(company::CompanyService& company,
                                                             const std::string& path) {
  const std::string file = path.empty() ? data_file("data/mcp/company_server.json") : path;
  auto text = read_text_file(file);
  if (!text) return text.error();
  json d = json::parse(*text, nullptr, false);
  if (d.is_discarded() || !d.is_object() || !d.contains("tools") || !d["tools"].is_array())
    return Error{"config", file + ": expected a JSON object with a 'tools' list"};
  const std::string question_file = data_file("data/mcp/run_task_question.json");
  auto question_text = read_text_file(question_file);
  if (!question_text) return question_text.error();
  json question = json::parse(*question_text, nullptr, false);
  if (question.is_discarded() || !question.is_object() || !question.contains("requestedSchema"))
    return Error{"config", question_file + ": expected a JSON object with 'message' and 'requestedSchema'"};
  std::vector<jsonrpc::CapabilityDescriptor> tools;
  for (const auto& t : d["tools"]) {
    auto desc = jsonrpc::from_mcp_tool(t);
    if (!desc) return Error{"config", file + ": " + desc.error().message};
    tools.push_back(std::move(*desc));
  }
  return std::unique_ptr<CompanyBackend>(
      new CompanyBackend(company, std::move(d), std::move(tools), std::move(question)));
}

json CompanyBackend::server_info() const { return data_.value("server_info", json{{"name", "kaisha"}}); }
std::string CompanyBackend::instructions() const { return data_.value("instructions", ""); }
std::vector<jsonrpc::CapabilityDescriptor> CompanyBackend::tools() { return tools_; }

std::optional<jsonrpc::CapabilityDescriptor> CompanyBackend::find_tool(const std::string& name) {
  for (const auto& d : tools_)
    if (d.name == name) return d;
  return std::nullopt;
}

std::string CompanyBackend::text(const std::string& key, const json& vars) const {
  json t = data_.value("texts", json::object()).value(key, key);
  return fill_template(t, vars).get<std::string>();
}

Result<json> CompanyBackend::run_task(const std::string& task, McpCallContext& ctx) {
  auto relay = std::make_shared<ProgressRelay>();
  relay->notify = ctx.notify;
  relay->token = ctx.progress_token;
  // A 2026-07-28 client retrying with its user's answer: the task it started
  // is in the request state (sealed by the server), not started again.
  std::string resumed;
  if (ctx.state.is_object()) resumed = ctx.state.value("task_id", "");
  auto on_event = [relay](const msg::ProgressEvent& e) {
    std::lock_guard lock(relay->mu);
    if (!relay->active || relay->token.is_null() || !relay->notify) return;
    relay->count += 1;
    const std::string kind(msg::event_kind_name(e.kind));
    std::string message = e.agent.empty() ? kind : e.agent + " " + kind;
    if (!e.text.empty()) message += ": " + utf8::truncate(e.text, 500);
    relay->notify(jsonrpc::make_notification(
        "notifications/progress",
        json{{"progressToken", relay->token}, {"progress", relay->count}, {"message", message}}));
  };
  Result<std::string> id =
      resumed.empty() ? company_.submit_in(ctx.conversation, task, on_event) : Result<std::string>(resumed);
  if (!id) return text_result(id.error().message, true);
  auto stop_relay = [&] {
    std::lock_guard lock(relay->mu);
    relay->active = false;
  };
  // A client of the tasks extension gets a task now and polls it; the
  // company's questions then reach it as the task's inputRequests. A task
  // has no progress notifications: its request has been answered.
  // The task is kept with its company task's id: a restarted server takes
  // it back (resume_task).
  if (resumed.empty() && ctx.go_async_if_offered(json{{"company_task", *id}})) stop_relay();
  bool cancel_sent = false;
  company::TaskInfo info;
  while (true) {
    auto r = company_.wait(*id, std::chrono::milliseconds(200));
    if (!r) {
      stop_relay();
      return text_result(r.error().message, true);
    }
    info = *r;
    if (company::is_final(info.state)) break;
    if (ctx.cancelled() && !cancel_sent) {
      company_.cancel(*id);  // the next wait sees it canceled
      cancel_sent = true;
    }
    if (info.state == company::TaskState::input_required && !cancel_sent) {
      // The company asks its user: the client is asked by elicitation
      // (2025-11-25: a request on this stream; 2026-07-28: an
      // InputRequiredResult the client answers by retrying).
      json params = fill_template(question_, json{{"question", info.question}});
      params.erase("_comment");
      json requests{{"answer", {{"method", "elicitation/create"}, {"params", std::move(params)}}}};
      auto got = ctx.ask_client ? ctx.ask_client(requests, json{{"task_id", *id}})
                                : Result<json>(Error{"unsupported", "this client cannot be asked"});
      if (!got) {
        stop_relay();
        if (got.error().code == kInputRequired) return got.error();  // the client asks its user and retries
        company_.cancel(*id);                                // nobody can answer: the task would wait for its timeout
        if (ends_the_call(got.error())) return got.error();  // e.g. no elicitation capability declared
        return text_result("the company asked: " + info.question + " — and the client could not answer (" +
                               got.error().message + "), so the task was canceled",
                           true);
      }
      const json& reply = (*got)["answer"];
      const std::string action = reply.value("action", "");
      const json content = reply.value("content", json::object());
      if (action != "accept" || !content.is_object() || !content.contains("answer") || !content["answer"].is_string()) {
        stop_relay();
        company_.cancel(*id);
        const std::string did = action == "decline"  ? "declined to answer"
                                : action == "cancel" ? "canceled the question"
                                                     : "gave no answer";
        return text_result(
            "the company asked: " + info.question + " — and the user " + did + ", so the task was canceled", true);
      }
      if (Status s = company_.provide_input(*id, content["answer"].get<std::string>()); !s.ok()) {
        stop_relay();
        return text_result(s.error().message, true);
      }
    }
  }
  stop_relay();
  json vars = info.to_json();
  json result;
  switch (info.state) {
    case company::TaskState::completed:
      result = text_result(info.answer.empty() ? text("no_answer", vars) : info.answer);
      break;
    case company::TaskState::canceled:
      result = text_result(text("task_canceled", vars), true);
      break;
    default:
      result = text_result(text("task_failed", vars), true);
  }
  result["structuredContent"] = info.to_json();
  return result;
}

namespace {

constexpr const char* kMcpTask = "mcp_task";

int64_t to_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
std::chrono::system_clock::time_point from_ms(int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

}  // namespace

Status CompanyBackend::keep_task(const KeptTask& k) {
  const json& company_task = k.work.is_object() ? k.work.value("company_task", json()) : json();
  if (!company_task.is_string()) return Error{"internal", "a run_task task names no company task"};
  const std::string task_id = company_task.get<std::string>();
  auto info = company_.task(task_id);
  json data{
      {"status", k.task.status}, {"updated_ms", to_ms(k.task.updated)}, {"client_capabilities", k.client_capabilities}};
  if (!k.task.status_message.empty()) data["status_message"] = k.task.status_message;
  if (!k.task.result.is_null()) data["result"] = k.task.result;
  if (!k.task.error.is_null()) data["error"] = k.task.error;
  return company_.save_handle(company::ProtocolHandle{kMcpTask, k.task.id, task_id,
                                                      info ? info->session_id : company_.session_id(),
                                                      to_ms(k.task.created), k.task.ttl.count(), std::move(data)});
}

std::vector<KeptTask> CompanyBackend::kept_tasks() {
  std::vector<KeptTask> out;
  const int64_t now = to_ms(std::chrono::system_clock::now());
  for (auto& h : company_.live_handles(kMcpTask, now, 1000)) {
    const json& d = h.data;
    KeptTask k;
    k.task.id = h.handle;
    k.task.status = d.value("status", std::string("working"));
    k.task.status_message = d.value("status_message", std::string());
    k.task.created = from_ms(h.created_ms);
    k.task.updated = from_ms(d.value("updated_ms", h.created_ms));
    k.task.ttl = std::chrono::milliseconds(h.ttl_ms);
    k.task.result = d.value("result", json());
    k.task.error = d.value("error", json());
    k.work = json{{"company_task", h.task_id}};
    k.client_capabilities = d.value("client_capabilities", json::object());
    if (!TaskTable::terminal(k.task.status) && h.session_id != company_.session_id()) {
      // Another server's session runs it, unless it has ended.
      auto info = company_.task(h.task_id);
      if (!info || !company::is_final(info->state)) continue;
    }
    out.push_back(std::move(k));
  }
  return out;
}

Result<json> CompanyBackend::resume_task(const json& work, McpCallContext& ctx) {
  const std::string id = work.is_object() ? work.value("company_task", std::string()) : std::string();
  if (id.empty() || !company_.task(id)) return text_result(text("task_never_started", json{{"id", id}}), true);
  ctx.state = json{{"task_id", id}};  // run_task follows the company's task, as it did before the restart
  return run_task("", ctx);
}

TaskSupport CompanyBackend::task_support(const std::string& name) {
  return name == "run_task" ? TaskSupport::kOptional : TaskSupport::kForbidden;
}

Result<json> CompanyBackend::call_tool(const std::string& name, const json& args, McpCallContext& ctx) {
  if (name == "run_task") return run_task(args.value("task", ""), ctx);
  if (name == "ask_agent")
    return from_tool_result(company_.call_tool(
        "AskAgent", json{{"agent_name", args.value("agent_name", "")}, {"prompt", args.value("prompt", "")}}));
  if (name == "list_agents") return json_result(company_.agents());
  if (name == "get_budget") return json_result(company_.budget());
  if (name == "search_memory") {
    json r = company_.call_tool("MemoryManager", json{{"action", "get_all_memories"}});
    if (r.value("status", "") == "error") return from_tool_result(r);
    std::vector<std::string> words;
    std::istringstream in(ascii_lower(args.value("query", "")));
    for (std::string w; in >> w;) words.push_back(w);
    json hits = json::array();
    json all = r.value("output", json::array());
    if (!all.is_array()) all = json::array({all});
    for (const auto& m : all) {
      std::string hay = ascii_lower(m.is_string() ? m.get<std::string>() : dump_text(m));
      if (std::all_of(words.begin(), words.end(),
                      [&](const std::string& w) { return hay.find(w) != std::string::npos; }))
        hits.push_back(m);
    }
    return json_result(json{{"query", args.value("query", "")}, {"memories", hits}});
  }
  return Error{"invalid_params", "Unknown tool: " + name};
}

std::vector<json> CompanyBackend::resources() {
  std::vector<json> out;
  for (const auto& t : company_.tasks(kListedTasks)) {
    std::string title = utf8::truncate(t.input, 80);
    out.push_back(json{{"uri", kTaskPrefix + t.id},
                       {"name", "task-" + t.id},
                       {"title", title},
                       {"description", std::string("Task (") + company::to_string(t.state) + "): " + title},
                       {"mimeType", "application/json"}});
  }
  return out;
}

std::vector<json> CompanyBackend::resource_templates() {
  return data_.value("resource_templates", json::array()).get<std::vector<json>>();
}

Result<json> CompanyBackend::read_resource(const std::string& uri) {
  std::string rest = uri.rfind(kTaskPrefix, 0) == 0 ? uri.substr(std::string(kTaskPrefix).size()) : "";
  if (rest.empty()) return Error{"not_found", "Resource not found: " + uri};
  const bool journal = rest.size() > 8 && rest.compare(rest.size() - 8, 8, "/journal") == 0;
  const std::string id = journal ? rest.substr(0, rest.size() - 8) : rest;
  json body;
  if (journal) {
    auto j = company_.journal(id);
    if (!j) return Error{"not_found", "Resource not found: " + uri + " (" + j.error().message + ")"};
    body = *j;
  } else {
    auto t = company_.task(id);
    if (!t) return Error{"not_found", "Resource not found: " + uri + " (no such task)"};
    body = t->to_json();
  }
  return json{
      {"contents", json::array({json{{"uri", uri}, {"mimeType", "application/json"}, {"text", dump_text(body, 2)}}})}};
}

std::vector<json> CompanyBackend::prompts() {
  std::vector<json> out;
  for (auto p : data_.value("prompts", json::array())) {
    p.erase("messages");
    out.push_back(std::move(p));
  }
  return out;
}

Result<json> CompanyBackend::get_prompt(const std::string& name, const json& args, McpCallContext&) {
  for (const auto& p : data_.value("prompts", json::array())) {
    if (p.value("name", "") != name) continue;
    for (const auto& a : p.value("arguments", json::array()))
      if (a.value("required", false) && !(args.is_object() && args.contains(a.value("name", ""))))
        return Error{"invalid_params", "Prompt " + name + " needs argument '" + a.value("name", "") + "'"};
    return json{{"description", p.value("description", "")}, {"messages", fill_template(p["messages"], args)}};
  }
  return Error{"invalid_params", "Unknown prompt: " + name};
}

}  // namespace kaisha::mcp
