// The pyramid's spawner (strategy_actors.hpp): the agent library, its prompts
// and texts, the level-0 tools, the router and the pyramid's actor.
#pragma once

#include <caf/actor.hpp>

#include "actors/strategy_kit/strategy_actors.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::actors {

Result<caf::actor> spawn_pyramid_strategy(StrategyContext& ctx);

}  // namespace kaisha::actors
