// HiVA's own progress events: sub-kinds of msg::EventKind::strategy with
// {"strategy": "hiva", "event": <name>} in their data (driver::
// add_strategy_event). The journaled ones are written as note steps too, so
// that `kaisha history TASK --tree` and `kaisha graphs` rebuild every
// iteration from the journal alone: each carries "iteration".
#pragma once

#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::hiva {

inline constexpr const char* kHivaStrategy = "hiva";

namespace event {
inline constexpr const char* routed = "routed";
inline constexpr const char* forward_pass = "forward_pass";
inline constexpr const char* loss = "loss";
inline constexpr const char* gradient = "gradient";
inline constexpr const char* reward = "reward";
inline constexpr const char* prompt_updated = "prompt_updated";
inline constexpr const char* tool_updated = "tool_updated";
inline constexpr const char* tool_rejected = "tool_rejected";
inline constexpr const char* topology_edit = "topology_edit";
inline constexpr const char* repair = "repair";
inline constexpr const char* iteration = "iteration";
inline constexpr const char* cap_reached = "cap_reached";
inline constexpr const char* problem = "problem";
}  // namespace event

// Every sub-kind, with whether it is journaled and a line of help, for the
// catalog entry (StrategyInfo::events).
const std::vector<strategy::StrategyEvent>& hiva_events();

}  // namespace kaisha::hiva
