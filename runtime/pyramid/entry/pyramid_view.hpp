// How the pyramid shows itself to a person: the summary line of a finished
// task, the transcript lines of its own events and the tree of one of its
// tasks from the journal. Its catalog entry (pyramid_entry.hpp) points at
// these. None throws, whatever the metadata, the event's data or the steps
// hold.
#pragma once

#include <string>
#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::strategy {

// "pyramid: entered at lead, 7 agent calls by 3 agents, largest prompt ...".
std::string summarise_pyramid_result(const nlohmann::json& metadata, NumberText number);
// The pyramid's route event.
std::string render_pyramid_event(const msg::ProgressEvent& event, NumberText number);

// The call tree: each agent's call under the call that called it as a tool,
// with its level-0 tool calls and the judge's audits.
TaskTree pyramid_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
