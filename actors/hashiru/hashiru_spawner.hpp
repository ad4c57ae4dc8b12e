// hashiru's spawner (strategy_actors.hpp): the CEO is the company's standing
// actor and runs hashiru's tasks itself.
#pragma once

#include <caf/actor.hpp>

#include "actors/strategy_kit/strategy_actors.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::actors {

Result<caf::actor> spawn_hashiru(StrategyContext& ctx);

}  // namespace kaisha::actors
