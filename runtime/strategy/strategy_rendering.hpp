// How each strategy shows itself to a person: the summary line of a finished
// task and the transcript lines of the events only it reports. The catalog
// (strategy_catalog.cpp) points at these; nothing else calls them directly.
// Every function never throws, whatever the metadata or event data holds.
#pragma once

#include <string>

#include "runtime/strategy/strategy_catalog.hpp"

namespace kaisha::strategy {

// effgen: "effgen: parallel, 3 subtasks on 3 workers, speedup 2.1, ...".
std::string summarise_effgen_result(const nlohmann::json& metadata, NumberText number);
// effgen's routing, plan, subtask and synthesis events.
std::string render_effgen_event(const msg::ProgressEvent& event, NumberText number);

// pyramid: "pyramid: entered at lead, 7 agent calls by 3 agents, largest prompt ...".
std::string summarise_pyramid_result(const nlohmann::json& metadata, NumberText number);
// pyramid's route event.
std::string render_pyramid_event(const msg::ProgressEvent& event, NumberText number);

// hashiru's memories, reflection and summary events.
std::string render_hashiru_event(const msg::ProgressEvent& event, NumberText number);

}  // namespace kaisha::strategy
