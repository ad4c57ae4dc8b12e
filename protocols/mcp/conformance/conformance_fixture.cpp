#include "protocols/mcp/conformance/conformance_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <regex>
#include <thread>

#include "protocols/mcp/server/input_exchange.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/jsonrpc/dispatcher.hpp"

namespace kaisha::mcp {

namespace {

void sleep_ms(const json& tool) {
  int ms = tool.value("delay_ms", 0);
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// "test://template/{id}/data" -> regex and the variable names, in order.
bool match_template(const std::string& tmpl, const std::string& uri, json& vars) {
  std::string re;
  std::vector<std::string> names;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c == '{') {
      size_t end = tmpl.find('}', i);
      if (end == std::string::npos) return false;
      names.push_back(tmpl.substr(i + 1, end - i - 1));
      re += "([^/]+)";
      i = end;
    } else if (std::string(".^$|()[]*+?\\").find(c) != std::string::npos) {
      re += '\\';
      re += c;
    } else {
      re += c;
    }
  }
  std::smatch m;
  if (!std::regex_match(uri, m, std::regex(re))) return false;
  for (size_t i = 0; i < names.size(); ++i) vars[names[i]] = m[i + 1].str();
  return true;
}

// The "ask" behaviour: every round of `rounds` asked in turn, from the round
// a modern retry's state names; the answers by key, or the Error that ends
// the call (input required, a missing capability, a legacy refusal).
Result<json> ask_rounds(const json& rounds, McpCallContext& ctx) {
  json answers = ctx.state.is_object() ? ctx.state.value("answers", json::object()) : json::object();
  size_t round = ctx.state.is_object() ? ctx.state.value("round", size_t{0}) : 0;
  for (; round < rounds.size(); ++round) {
    json requests = json::object();
    for (const auto& [key, req] : rounds[round].items()) {
      const std::string cap = capability_for(req.value("method", ""));
      if (req.value("optional", false) && !cap.empty() && !ctx.client_capabilities.contains(cap)) continue;
      requests[key] = json{{"method", req.value("method", "")},
                           {"params", fill_template(req.value("params", json::object()), answers)}};
    }
    if (requests.empty()) continue;
    auto r = ctx.ask_client(requests, json{{"round", round}, {"answers", answers}});
    if (!r) return r.error();
    answers.update(*r);
  }
  return answers;
}

// The answers and their keys, for "result" templates.
json answer_vars(json answers, const json& args) {
  std::string keys;
  for (const auto& [key, _] : answers.items()) keys += (keys.empty() ? "" : ",") + key;
  json vars = args.is_object() ? args : json::object();
  vars.update(answers);
  vars["answered"] = keys;
  return vars;
}

}  // namespace

Result<std::unique_ptr<ConformanceFixture>> ConformanceFixture::load(const std::string& path) {
  const std::string file = path.empty() ? data_file("data/mcp/conformance_fixture.json") : path;
  auto text = read_text_file(file);
  if (!text) return text.error();
  json d = json::parse(*text, nullptr, false);
  if (d.is_discarded() || !d.is_object()) return Error{"fixture", file + ": not a JSON object"};
  for (const char* k : {"tools", "resources", "resource_templates", "prompts"})
    if (!d.contains(k) || !d[k].is_array()) return Error{"fixture", file + ": '" + k + "' must be a list"};
  return std::unique_ptr<ConformanceFixture>(new ConformanceFixture(std::move(d)));
}

const json* ConformanceFixture::find(const char* list, const char* key, const std::string& value) const {
  for (const auto& e : data_[list]) {
    auto k = e.find(key);
    if (k != e.end() && k->is_string() && k->get_ref<const std::string&>() == value) return &e;
  }
  return nullptr;
}

json ConformanceFixture::server_info() const {
  auto info = data_.find("server_info");  // in every modern result: not built from a default each time
  return info != data_.end() ? *info : json{{"name", "kaisha"}};
}

namespace {

jsonrpc::CapabilityDescriptor descriptor_of(const json& tool) {
  jsonrpc::CapabilityDescriptor d;
  d.name = tool.value("name", "");
  d.description = tool.value("description", "");
  if (auto schema = tool.find("inputSchema"); schema != tool.end()) d.input_schema = *schema;
  return d;
}

}  // namespace

std::vector<jsonrpc::CapabilityDescriptor> ConformanceFixture::tools() {
  std::vector<jsonrpc::CapabilityDescriptor> out;
  for (const auto& t : data_["tools"]) out.push_back(descriptor_of(t));
  return out;
}

bool ConformanceFixture::answers_at_once(const std::string& name) {
  const json* t = find("tools", "name", name);
  if (!t) return false;
  const std::string behaviour = t->value("behaviour", "");
  return behaviour.empty() || behaviour == "echo_args";
}

std::optional<jsonrpc::CapabilityDescriptor> ConformanceFixture::find_tool(const std::string& name) {
  const json* t = find("tools", "name", name);
  if (!t) return std::nullopt;
  return descriptor_of(*t);
}

Result<json> ConformanceFixture::call_tool(const std::string& name, const json& args, McpCallContext& ctx) {
  const json* t = find("tools", "name", name);
  if (!t) return Error{"invalid_params", "Unknown tool: " + name};
  const std::string behaviour = t->value("behaviour", "");
  if (behaviour.empty()) return fill_template(t->value("result", json::object()), args);

  if (behaviour == "logging") {
    const std::string logger = data_.value("logger", "");
    bool first = true;
    for (const auto& line : t->value("log", json::array())) {
      if (!first) sleep_ms(*t);
      first = false;
      ctx.log("info", line, logger);
    }
    return t->value("result", json::object());
  }
  if (behaviour == "progress") {
    double total = t->value("total", 100.0);
    bool first = true;
    json token = ctx.progress_token.is_null() ? json(0) : ctx.progress_token;
    for (const auto& step : t->value("steps", json::array())) {
      if (!first) sleep_ms(*t);
      first = false;
      json vars{{"progress", step}, {"total", static_cast<int64_t>(total)}};
      std::string msg = fill_template(t->value("step_message", ""), vars).get<std::string>();
      if (ctx.notify) {
        json p{{"progressToken", token}, {"progress", step}, {"total", total}, {"message", msg}};
        ctx.notify(jsonrpc::make_notification("notifications/progress", p));
      }
    }
    return text_result(token.is_string() ? token.get<std::string>() : token.dump());
  }
  if (behaviour == "echo_args") return text_result(t->value("text_prefix", "") + args.dump());
  if (behaviour == "sampling") {
    json params{
        {"messages",
         json::array({json{{"role", "user"}, {"content", {{"type", "text"}, {"text", args.value("prompt", "")}}}}})},
        {"maxTokens", 100}};
    auto r = ctx.ask_client(json{{"sampling", {{"method", "sampling/createMessage"}, {"params", params}}}}, nullptr);
    if (!r && ends_the_call(r.error())) return r.error();
    if (!r) return text_result("Sampling not supported or error: " + r.error().message);
    const json& answer = (*r)["sampling"];
    std::string text = "No response";
    if (answer.contains("content") && answer["content"].is_object()) text = answer["content"].value("text", text);
    return text_result("LLM response: " + text);
  }
  if (behaviour == "elicitation") {
    json ask{
        {"elicitation",
         {{"method", "elicitation/create"}, {"params", fill_template(t->value("request", json::object()), args)}}}};
    auto r = ctx.ask_client(ask, nullptr);
    if (!r && ends_the_call(r.error())) return r.error();
    if (!r) return text_result("Elicitation not supported or error: " + r.error().message);
    const json& answer = (*r)["elicitation"];
    json content = answer.contains("content") && !answer["content"].is_null() ? answer["content"] : json::object();
    return text_result(t->value("text_prefix", "") + "action=" + answer.value("action", "") +
                       ", content=" + content.dump());
  }
  if (behaviour == "ask") {
    auto answers = ask_rounds(t->value("rounds", json::array()), ctx);
    if (!answers && ends_the_call(answers.error())) return answers.error();
    if (!answers) return text_result("Asking the client failed: " + answers.error().message, true);
    if (answers->empty() && t->contains("result_if_none")) return (*t)["result_if_none"];
    return fill_template(t->value("result", json::object()), answer_vars(*answers, args));
  }
  if (behaviour == "list_changed") {
    changed("notifications/" + t->value("list", "tools") + "/list_changed");
    return t->value("result", json::object());
  }
  if (behaviour == "task") return run_task_tool(*t, args, ctx);
  if (behaviour == "reconnect") {
    if (ctx.close_stream) ctx.close_stream();
    sleep_ms(*t);
    return t->value("result", json::object());
  }
  return Error{"internal", "fixture tool " + name + " has unknown behaviour '" + behaviour + "'"};
}

TaskSupport ConformanceFixture::task_support(const std::string& name) {
  const json* t = find("tools", "name", name);
  const std::string s = t ? t->value("task_support", "") : "";
  return s == "required" ? TaskSupport::kRequired : s == "optional" ? TaskSupport::kOptional : TaskSupport::kForbidden;
}

Result<json> ConformanceFixture::run_task_tool(const json& t, const json& args, McpCallContext& ctx) {
  // What a client answers before the task exists comes back with its retry.
  auto before = ask_rounds(t.value("rounds_before", json::array()), ctx);
  if (!before) return before.error();
  ctx.go_async_if_offered();
  std::chrono::milliseconds wait{t.value("delay_ms", 0)};
  if (t.contains("wait_seconds_arg") && args.is_object()) {
    const json& secs = args.value(t["wait_seconds_arg"].get<std::string>(), json(0));
    if (secs.is_number() && secs.get<double>() > 0)
      wait = std::chrono::milliseconds(static_cast<int64_t>(std::min(secs.get<double>(), 3600.0) * 1000));
  }
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until && !ctx.cancelled())
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(50), until - std::chrono::steady_clock::now()));
  if (ctx.cancelled()) return Error{"cancelled", "cancelled"};
  auto during = ask_rounds(t.value("rounds", json::array()), ctx);
  if (!during) return during.error();
  if (t.contains("error"))
    return jsonrpc::app_error(t["error"].value("code", -32603), t["error"].value("message", "error"));
  json answers = *before;
  answers.update(*during);
  return fill_template(t.value("result", json::object()), answer_vars(answers, args));
}

std::vector<json> ConformanceFixture::resources() {
  std::vector<json> out;
  for (auto r : data_["resources"]) {
    r.erase("contents");
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<json> ConformanceFixture::resource_templates() {
  std::vector<json> out;
  for (auto r : data_["resource_templates"]) {
    r.erase("contents");
    out.push_back(std::move(r));
  }
  return out;
}

Result<json> ConformanceFixture::read_resource(const std::string& uri) {
  if (const json* r = find("resources", "uri", uri)) return json{{"contents", (*r)["contents"]}};
  for (const auto& t : data_["resource_templates"]) {
    json vars = json::object();
    if (match_template(t.value("uriTemplate", ""), uri, vars)) {
      vars["uri"] = uri;
      return json{{"contents", fill_template(t["contents"], vars)}};
    }
  }
  return Error{"not_found", "Resource not found: " + uri};
}

std::vector<json> ConformanceFixture::prompts() {
  std::vector<json> out;
  for (auto p : data_["prompts"]) {
    p.erase("messages");
    p.erase("rounds");
    out.push_back(std::move(p));
  }
  return out;
}

Result<json> ConformanceFixture::get_prompt(const std::string& name, const json& args, McpCallContext& ctx) {
  const json* p = find("prompts", "name", name);
  if (!p) return Error{"invalid_params", "Unknown prompt: " + name};
  for (const auto& a : p->value("arguments", json::array()))
    if (a.value("required", false) && !(args.is_object() && args.contains(a.value("name", ""))))
      return Error{"invalid_params", "Prompt " + name + " needs argument '" + a.value("name", "") + "'"};
  json vars = args;
  if (p->contains("rounds")) {
    auto answers = ask_rounds((*p)["rounds"], ctx);
    if (!answers) return answers.error();
    vars = answer_vars(*answers, args);
  }
  json r{{"messages", fill_template((*p)["messages"], vars)}};
  if (p->contains("description")) r["description"] = (*p)["description"];
  return r;
}

}  // namespace kaisha::mcp
