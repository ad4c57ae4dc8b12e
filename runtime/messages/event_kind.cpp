#include "runtime/messages/event_kind.hpp"

namespace kaisha::msg {

const std::vector<EventKindInfo>& event_kinds() {
  using K = EventKind;
  using G = EventGroup;
  static const std::vector<EventKindInfo> all = {
      {K::task, "task", G::task, false},
      {K::final, "final", G::task, false},
      {K::canceled, "canceled", G::task, false},
      {K::error, "error", G::task, true},
      {K::agent_error, "agent_error", G::task, false},
      {K::ledgers, "ledgers", G::task, false},
      {K::hire, "hire", G::agent, true},
      {K::fire, "fire", G::agent, true},
      {K::ask, "ask", G::agent, true},
      {K::answer, "answer", G::agent, true},
      {K::refusal, "refusal", G::agent, true},
      {K::placed, "placed", G::agent, false},
      {K::node_down, "node_down", G::agent, false},
      {K::rehire, "rehire", G::agent, false},
      {K::thinking, "thinking", G::model, false},
      {K::usage, "usage", G::model, false},
      {K::retry, "retry", G::model, false},
      {K::llm_request, "llm_request", G::model, true},
      {K::llm_response, "llm_response", G::model, true},
      {K::tool_call, "tool_call", G::tool, true},
      {K::tool_result, "tool_result", G::tool, true},
      {K::verdict, "verdict", G::judge, false},
      {K::routing, "routing", G::strategy, false},
      {K::plan, "plan", G::strategy, false},
      {K::subtask, "subtask", G::strategy, false},
      {K::synthesis, "synthesis", G::strategy, false},
      {K::memories, "memories", G::strategy, false},
      {K::reflection, "reflection", G::strategy, false},
      {K::summary, "summary", G::strategy, false},
      {K::route, "route", G::strategy, false},
      {K::trigger, "trigger", G::strategy, false},
      {K::branches, "branches", G::strategy, false},
      {K::note, "note", G::journal, true},
      {K::input_required, "input_required", G::task, false},
      {K::strategy, "strategy", G::strategy, false},
      {K::breaker, "breaker", G::tool, false},
  };
  return all;
}

std::string_view event_kind_name(EventKind kind) {
  const auto& all = event_kinds();
  const auto i = static_cast<size_t>(kind);
  return i < all.size() ? all[i].name : std::string_view("unknown");
}

std::optional<EventKind> parse_event_kind(std::string_view name) {
  for (const EventKindInfo& k : event_kinds())
    if (k.name == name) return k.kind;
  return std::nullopt;
}

EventGroup event_kind_group(EventKind kind) {
  const auto& all = event_kinds();
  const auto i = static_cast<size_t>(kind);
  return i < all.size() ? all[i].group : EventGroup::journal;
}

void to_json(nlohmann::json& j, EventKind kind) { j = std::string(event_kind_name(kind)); }

void from_json(const nlohmann::json& j, EventKind& kind) {
  auto k = j.is_string() ? parse_event_kind(j.get_ref<const std::string&>()) : std::nullopt;
  if (!k) throw nlohmann::json::type_error::create(302, "not an event kind: " + j.dump(), &j);
  kind = *k;
}

}  // namespace kaisha::msg
