#include "runtime/company/tool_health_journal.hpp"

#include <algorithm>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/config/management_tools.hpp"

namespace kaisha::company {

namespace {

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The journaled result as the ToolResult it was (status, message, output).
ToolResult result_of(const json& j) {
  if (!j.is_object()) return ToolResult::error(j.is_string() ? j.get<std::string>() : j.dump());
  ToolResult r;
  r.ok = text_of(j, "status") == "success";
  r.message = text_of(j, "message");
  r.output = j.contains("output") ? j["output"] : json(nullptr);
  for (const auto& [key, value] : j.items())
    if (key != "status" && key != "message" && key != "output") r.extra[key] = value;
  return r;
}

std::optional<BreakerState> parse_state(const std::string& s) {
  for (BreakerState b : {BreakerState::closed, BreakerState::open, BreakerState::half_open})
    if (breaker_state_name(b) == s) return b;
  return std::nullopt;
}

}  // namespace

json ToolHealthRow::to_json() const {
  json j = view.to_json();
  j["tool"] = tool;
  j["refused"] = refused;
  j["last_call_ms"] = last_call_ms;
  j["breaker_changed_ms"] = breaker_changed_ms ? json(*breaker_changed_ms) : json(nullptr);
  if (view.state == BreakerState::open) j["cooldown_ms"] = cooldown_ms;
  return j;
}

void ToolHealthJournal::add(const JournaledStep& step) {
  const json& p = step.payload;
  if (step.kind == "note") {
    const std::string tool = text_of(p, "breaker");
    const auto to = parse_state(text_of(p, "to"));
    if (tool.empty() || !to) return;
    Tool& t = tools_[tool];
    t.state = *to;
    t.changed_ms = step.at_ms;
    t.cooldown_ms = p.is_object() ? p.value("cooldown_ms", int64_t{0}) : 0;
    return;
  }
  const std::string tool = text_of(p, "tool");
  if (tool.empty() || config::is_management_tool(tool)) return;
  const auto key = std::make_pair(step.agent, text_of(p, "call_id"));
  if (step.kind == "tool_call") {
    started_[key] = step.at_ms;
    Tool& t = tools_[tool];
    if (p.contains("metadata") && p["metadata"].is_object()) {
      const int64_t timeout = p["metadata"].value("timeout_ms", int64_t{0});
      if (timeout > 0) t.timeout_ms = timeout;
    }
    return;
  }
  if (step.kind != "tool_result") return;
  const ToolResult r = result_of(p.contains("result") ? p["result"] : json(nullptr));
  Tool& t = tools_[tool];
  std::optional<int64_t> started;
  if (auto it = started_.find(key); it != started_.end()) {
    started = it->second;
    started_.erase(it);
  }
  if (!r.ok && r.output.is_object() && r.output.contains("breaker")) {
    ++t.refused;  // refused at once: nothing ran
    return;
  }
  const auto kind = classify_tool_error(r);
  if (kind == ToolErrorClass::invalid_input) return;  // the caller's fault, not the tool's
  ++t.calls;
  t.last_call_ms = step.at_ms;
  if (started) {
    t.latency_sum_ms += static_cast<double>(std::max<int64_t>(0, step.at_ms - *started));
    ++t.timed;
  }
  if (kind) {
    ++t.failures;
    ++t.consecutive;
  } else {
    t.consecutive = 0;
  }
}

std::vector<ToolHealthRow> ToolHealthJournal::rows() const {
  std::vector<ToolHealthRow> out;
  for (const auto& [name, t] : tools_) {
    ToolHealthRow row;
    row.tool = name;
    row.view.calls = t.calls;
    row.view.failures = t.failures;
    row.view.consecutive_failures = t.consecutive;
    row.view.mean_latency_ms = t.timed > 0 ? t.latency_sum_ms / static_cast<double>(t.timed) : 0;
    row.view.health = tool_health_score(t.calls, t.failures, row.view.mean_latency_ms, t.timeout_ms);
    row.view.state = t.state;
    row.refused = t.refused;
    row.last_call_ms = t.last_call_ms;
    row.breaker_changed_ms = t.changed_ms;
    row.cooldown_ms = t.cooldown_ms;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace kaisha::company
