// HiVA as a strategy the generic actor runs (runtime/driver/
// driven_strategy.hpp): its setup loads the prompts, the initial agents'
// prompts and the knowledge graph once, prices the graph agents' model,
// and makes each task's driver from the strategy's state (the saved graph
// the task starts from).
#pragma once

#include "runtime/core/result.hpp"
#include "runtime/driver/driven_strategy.hpp"

namespace kaisha::hiva {

Result<driver::DrivenStrategy> make_hiva_strategy(const driver::StrategySetup& setup);

}  // namespace kaisha::hiva
