// How hashiru shows itself to a person: the transcript lines of its own
// events and the tree of one of its tasks from the journal. Its catalog
// entry (hashiru_entry.hpp) points at these. Neither throws, whatever the
// event's data or the steps hold.
#pragma once

#include <string>
#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::strategy {

// hashiru's memories, reflection and summary events.
std::string render_hashiru_event(const msg::ProgressEvent& event, NumberText number);

// The CEO's turns; under each, the tools it called, its asks to employees
// (and under those the employees' own tool calls), hires, fires.
TaskTree hashiru_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
