// A strategy's own event kinds travel as one kind, EventKind::strategy, with
// the strategy's name and the sub-kind in the event's data:
//   {"strategy": "halo", "event": "rollout", ...the event's own data}
// so two strategies' names never collide (HALO's reflection is not
// hashiru's), and a node or a client that does not know the strategy passes
// the event on as it came. A sub-kind the strategy journals is written as a
// note step with the same payload (the journal's step kinds stay fixed).
// The strategies' catalog entries list their sub-kinds
// (strategy::StrategyInfo::events) and render them.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/messages/event_kind.hpp"

namespace kaisha::msg {

// The data of strategy `strategy`'s event `event` carrying `data` (an
// object's keys are kept beside the two; anything else goes under "value").
inline json strategy_event_data(const std::string& strategy, const std::string& event, json data = json::object()) {
  json out = data.is_object() ? std::move(data) : json{{"value", std::move(data)}};
  out["strategy"] = strategy;
  out["event"] = event;
  return out;
}

// The strategy and sub-kind of an event or note payload `data` (empty
// strings when it is not a strategy's event).
struct StrategyEventName {
  std::string strategy;
  std::string event;
};
inline StrategyEventName strategy_event_name(const json& data) {
  if (!data.is_object()) return {};
  auto s = data.find("strategy");
  auto e = data.find("event");
  if (s == data.end() || e == data.end() || !s->is_string() || !e->is_string()) return {};
  return {s->get<std::string>(), e->get<std::string>()};
}

}  // namespace kaisha::msg
