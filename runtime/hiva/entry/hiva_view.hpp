// How HiVA shows itself to a person: the one-line summary of a finished
// task, the transcript lines of its own events and the tree of one of its
// tasks from the journal. Its catalog entry (hiva_entry.hpp) points at
// these. None throws, whatever the event's data or the steps hold.
#pragma once

#include <string>
#include <vector>

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::strategy {

// "hiva: done, iterations 3-4, 5 agents, 41 model calls".
std::string summarise_hiva_result(const nlohmann::json& metadata, NumberText number);

// HiVA's events (hiva_events.hpp), one line each: "[HiVA] <event>: <text>".
std::string render_hiva_event(const msg::ProgressEvent& event, NumberText number);

// Per forward pass (iteration) the graph that ran: each agent with its role,
// the successors it routed to marked "*", the agents skipped marked; the
// model calls counted in the iteration they were made in.
TaskTree hiva_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
