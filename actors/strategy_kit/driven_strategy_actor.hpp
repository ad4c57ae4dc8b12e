// The generic strategy actor: runs the tasks of a strategy written without
// CAF (runtime/driver/driven_strategy.hpp) on the strategy kit, one task at a
// time, with the task, resume and cancel handlers every strategy actor has
// (task_handlers.hpp). Its hired agents stay for their task.
#pragma once

#include <caf/actor.hpp>

#include "actors/strategy_kit/strategy_actors.hpp"
#include "runtime/driver/driven_strategy.hpp"

namespace kaisha::actors {

caf::actor spawn_driven_strategy(StrategyContext& ctx, driver::DrivenStrategy strategy);

}  // namespace kaisha::actors
