// How HALO shows itself to a person: the transcript lines of its own events
// and the tree of one of its tasks from the journal. Its catalog entry
// (halo_entry.hpp) points at these. Neither throws, whatever the event's
// data or the steps hold.
#pragma once

#include <string>
#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::strategy {

// "halo: early stop after 3 subtasks, 41 model calls, ...".
std::string summarise_halo_result(const nlohmann::json& metadata, NumberText number);

// HALO's events (halo_events.hpp), one line each: "[HALO] <event>: <text>".
std::string render_halo_event(const msg::ProgressEvent& event, NumberText number);

// Per subtask its roles and its search tree (each agent node with its role,
// the judge's label, the backpropagated value v and visits n), the winning
// path marked; the model calls' numbers in the subtask they were made for.
TaskTree halo_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
