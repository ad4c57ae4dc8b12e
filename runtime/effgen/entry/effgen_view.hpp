// How effgen shows itself to a person: the summary line of a finished task,
// the transcript lines of its own events and the tree of one of its tasks
// from the journal. Its catalog entry (effgen_entry.hpp) points at these.
// None throws, whatever the metadata, the event's data or the steps hold.
#pragma once

#include <string>
#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::strategy {

// "effgen: parallel, 3 subtasks on 3 workers, speedup 2.1, ...".
std::string summarise_effgen_result(const nlohmann::json& metadata, NumberText number);
// effgen's routing, plan, subtask and synthesis events.
std::string render_effgen_event(const msg::ProgressEvent& event, NumberText number);

// Routing, the decomposition call, the plan with one node per subtask (the
// worker that ran it, its attempts, the judge's verdicts), synthesis.
TaskTree effgen_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
