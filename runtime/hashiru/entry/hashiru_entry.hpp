// hashiru's entry in the strategy catalog (runtime/catalog/strategy_catalog.hpp):
// everything kaisha knows about hashiru without running it.
#pragma once

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::hashiru {

strategy::StrategyInfo catalog_entry();

}  // namespace kaisha::hashiru
