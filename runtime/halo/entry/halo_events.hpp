// HALO's own progress events: sub-kinds of msg::EventKind::strategy with
// {"strategy": "halo", "event": <name>} in their data (driver::
// add_strategy_event). The journaled ones are written as note steps too, so
// that `kaisha history TASK --tree` rebuilds every subtask's search tree
// from the journal alone: each carries "subtask" (k, from 1) and search
// node ids, which are per subtask (node 0 is the dummy root).
#pragma once

#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::halo {

inline constexpr const char* kHaloStrategy = "halo";

namespace event {
inline constexpr const char* refined = "refined";
inline constexpr const char* subtask = "subtask";
inline constexpr const char* roles = "roles";
inline constexpr const char* selection = "selection";
inline constexpr const char* expansion = "expansion";
inline constexpr const char* rollout = "rollout";
inline constexpr const char* backpropagated = "backpropagated";
inline constexpr const char* search_ended = "search_ended";
inline constexpr const char* early_stop = "early_stop";
inline constexpr const char* cap_reached = "cap_reached";
inline constexpr const char* problem = "problem";
}  // namespace event

// Every sub-kind, with whether it is journaled and a line of help, for the
// catalog entry (StrategyInfo::events).
const std::vector<strategy::StrategyEvent>& halo_events();

}  // namespace kaisha::halo
