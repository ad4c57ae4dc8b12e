// effGen's spawner (strategy_actors.hpp): the router, the prompt optimizer,
// the judge (when judge.subtasks is on) and the planner; and effGen's router as
// the way `auto` picks between the CEO and the planner.
#pragma once

#include <caf/actor.hpp>

#include "actors/strategy_kit/strategy_actors.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::actors {

Result<caf::actor> spawn_effgen(StrategyContext& ctx);

// A task the router gives one agent goes to `single`, others to `decomposed`.
Result<RunnerChoice> effgen_router_choice(const std::string& single, const std::string& decomposed,
                                          const config::Config& c);

}  // namespace kaisha::actors
