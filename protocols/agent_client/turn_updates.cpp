#include "protocols/agent_client/turn_updates.hpp"

#include "runtime/core/utf8.hpp"
#include "runtime/messages/strategy_event.hpp"

namespace kaisha::agent_client {
namespace {

using K = msg::EventKind;

std::string str(const json& d, const char* key) {
  if (!d.is_object()) return "";
  auto it = d.find(key);
  if (it == d.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// Arguments arrive as the model wrote them: JSON text, shown parsed when it is.
json parsed_arguments(const json& args) {
  if (!args.is_string()) return args;
  json j = json::parse(args.get<std::string>(), nullptr, false);
  return j.is_discarded() ? args : j;
}

json text_content(const std::string& text) {
  return json::array({json{{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}}});
}

// Who an ask is to, and which one: the pyramid's call id, else the employee
// (and effgen's job).
std::string ask_key(const msg::ProgressEvent& e) {
  if (e.data.is_object() && e.data.contains("call")) return "call:" + str(e.data, "call");
  std::string agent = str(e.data, "agent");
  if (agent.empty()) agent = e.agent;
  const std::string job = str(e.data, "job");
  return agent + (job.empty() ? "" : "#" + job);
}

// "Name: text" → "text" (answer events lead with the employee's name).
std::string after_name(const std::string& text, const std::string& name) {
  const std::string lead = name + ": ";
  return text.rfind(lead, 0) == 0 ? text.substr(lead.size()) : text;
}

}  // namespace

std::string TurnUpdates::new_id(const std::string& prefix) { return prefix + "-" + std::to_string(++next_id_); }

TurnUpdates::Entry* TurnUpdates::entry(const std::string& key) {
  for (auto& e : plan_)
    if (e.key == key) return &e;
  return nullptr;
}

json TurnUpdates::plan() const {
  json entries = json::array();
  for (const auto& e : plan_) entries.push_back({{"content", e.content}, {"priority", "medium"}, {"status", e.status}});
  return json{{"sessionUpdate", "plan"}, {"entries", std::move(entries)}};
}

std::vector<json> TurnUpdates::tool_call(const msg::ProgressEvent& e) {
  const std::string tool = str(e.data, "tool");
  if (tool.empty() || tool == "AskAgent") return {};  // an ask shows the AskAgent call
  const std::string agent = e.data.contains("agent") ? str(e.data, "agent") : e.agent;
  const std::string call = str(e.data, "call_id").empty() ? str(e.data, "call") : str(e.data, "call_id");
  const std::string id = new_id("tool");
  if (!call.empty()) tool_ids_[agent + "/" + call] = id;
  open_tools_.push_back({agent, tool, id});
  const std::string title = agent.empty() || agent == "CEO" ? tool : tool + " (" + agent + ")";
  json update{{"sessionUpdate", "tool_call"},
              {"toolCallId", id},
              {"title", title},
              {"kind", tool_kind(tool)},
              {"status", "in_progress"}};
  if (e.data.contains("arguments")) update["rawInput"] = parsed_arguments(e.data["arguments"]);
  return {update};
}

std::vector<json> TurnUpdates::tool_result(const msg::ProgressEvent& e) {
  const std::string tool = str(e.data, "tool");
  if (tool == "AskAgent") return {};
  const std::string agent = e.data.contains("agent") ? str(e.data, "agent") : e.agent;
  const std::string call = str(e.data, "call_id").empty() ? str(e.data, "call") : str(e.data, "call_id");
  std::string id;
  if (auto it = tool_ids_.find(agent + "/" + call); !call.empty() && it != tool_ids_.end()) id = it->second;
  for (auto it = open_tools_.rbegin(); it != open_tools_.rend(); ++it) {
    if (id.empty() ? (it->agent == agent && (tool.empty() || it->tool == tool)) : it->id == id) {
      id = it->id;
      open_tools_.erase(std::next(it).base());
      break;
    }
  }
  if (id.empty()) return {};
  const json result = e.data.value("result", json());
  const bool ok = !result.is_object() || result.value("status", "success") == "success";
  std::string text = result.is_object() ? result.value("message", "") : e.text;
  if (result.is_object() && result.contains("output") && !result["output"].is_null()) {
    const json& out = result["output"];
    text += (text.empty() ? "" : "\n") + (out.is_string() ? out.get<std::string>() : out.dump());
  }
  json update{{"sessionUpdate", "tool_call_update"}, {"toolCallId", id}, {"status", ok ? "completed" : "failed"}};
  if (!text.empty()) update["content"] = text_content(utf8::truncate(text, 4000));
  if (!result.is_null()) update["rawOutput"] = result;
  return {update};
}

std::vector<json> TurnUpdates::ask(const msg::ProgressEvent& e) {
  const std::string key = ask_key(e);
  std::string agent = str(e.data, "agent");
  if (agent.empty()) agent = e.agent;
  const std::string id = new_id("ask");
  ask_ids_[key] = id;
  std::vector<json> out;
  out.push_back({{"sessionUpdate", "tool_call"},
                 {"toolCallId", id},
                 {"title", "Ask " + agent},
                 {"kind", "other"},
                 {"status", "in_progress"},
                 {"content", text_content(utf8::truncate(e.text, 4000))}});
  if (key.rfind("call:", 0) == 0) {  // the pyramid's calls are its plan
    plan_.push_back({key, agent + ": " + utf8::truncate(after_name(e.text, agent), 200), "in_progress"});
    out.push_back(plan());
  }
  return out;
}

std::vector<json> TurnUpdates::answer(const msg::ProgressEvent& e, bool failed) {
  const std::string key = ask_key(e);
  auto it = ask_ids_.find(key);
  // Effgen's refusals and errors name the job, not the worker.
  if (const std::string job = "#" + str(e.data, "job"); it == ask_ids_.end() && job.size() > 1)
    for (it = ask_ids_.begin(); it != ask_ids_.end(); ++it)
      if (it->first.size() >= job.size() && it->first.compare(it->first.size() - job.size(), job.size(), job) == 0)
        break;
  if (it == ask_ids_.end()) return {};
  std::string agent = str(e.data, "agent");
  if (agent.empty()) agent = e.agent;
  std::vector<json> out;
  out.push_back({{"sessionUpdate", "tool_call_update"},
                 {"toolCallId", it->second},
                 {"status", failed ? "failed" : "completed"},
                 {"content", text_content(utf8::truncate(after_name(e.text, agent), 4000))}});
  ask_ids_.erase(it);
  if (Entry* p = entry(key)) {
    p->status = "completed";
    out.push_back(plan());
  }
  return out;
}

std::vector<json> TurnUpdates::on_event(const msg::ProgressEvent& e) {
  switch (e.kind) {
    case K::thinking:
      if (e.text.empty()) return {};
      return {text_chunk("agent_thought_chunk", e.text)};
    case K::tool_call:
      return tool_call(e);
    case K::tool_result:
      return tool_result(e);
    case K::ask:
      return ask(e);
    case K::answer:
      return answer(e, false);
    case K::refusal:
      refused_ = true;
      return answer(e, true);
    case K::error:
      return answer(e, true);
    case K::usage: {
      usd_ += e.usd;
      if (!e.agent.empty() && e.agent != "CEO") return {};
      last_finish_reason_ = str(e.data, "finish_reason");
      context_used_ = e.tokens_in + e.tokens_out;
      if (context_size_ <= 0) return {};
      return {usage_update(context_used_, context_size_, usd_)};
    }
    case K::plan: {
      const json subtasks = e.data.value("subtasks", json::array());
      if (!subtasks.is_array()) return {};
      for (const auto& s : subtasks) {
        if (!s.is_object()) continue;
        plan_.push_back({"subtask:" + str(s, "id"), str(s, "description"), "pending"});
      }
      return {plan()};
    }
    case K::subtask: {
      Entry* p = entry("subtask:" + str(e.data, "subtask"));
      if (!p) return {};
      const std::string state = str(e.data, "state");
      if (state == "running") p->status = "in_progress";
      if (state == "completed") p->status = "completed";
      if (state == "failed") p->status = "pending";  // the plan's status has no "failed": it waits for a retry
      return {plan()};
    }
    case K::strategy: {
      const auto name = msg::strategy_event_name(e.data);
      if (name.event != "subtask") return {};
      for (auto& p : plan_) p.status = "completed";  // HALO plans its next subtask once the last is done
      plan_.push_back(
          {"halo:" + std::to_string(++halo_subtasks_), utf8::truncate(str(e.data, "text"), 200), "in_progress"});
      return {plan()};
    }
    case K::final: {
      bool changed = false;
      for (auto& p : plan_)
        if (p.status != "completed" && p.key.rfind("halo:", 0) == 0) p.status = "completed", changed = true;
      if (changed) return {plan()};
      return {};
    }
    default:
      return {};
  }
}

void TurnUpdates::track_usage(int64_t context_size, double session_usd) {
  context_size_ = context_size;
  usd_ = session_usd;
}

std::string TurnUpdates::open_tool_call(const std::string& agent, const std::string& tool) const {
  for (auto it = open_tools_.rbegin(); it != open_tools_.rend(); ++it)
    if (it->tool == tool && (agent.empty() || it->agent == agent || (agent == "CEO" && it->agent.empty())))
      return it->id;
  return "";
}

StopReason TurnUpdates::stop_reason(const msg::TaskResult& r) const {
  if (r.canceled) return StopReason::cancelled;
  if (!r.ok && refused_) return StopReason::refusal;
  if (r.ok && last_finish_reason_ == "length") return StopReason::max_tokens;
  return StopReason::end_turn;
}

}  // namespace kaisha::agent_client
