// HiVA's catalog entry (runtime/strategy/strategy_info.hpp): its name, help,
// config section and reader, events, rendering, tree and switches.
#pragma once

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::hiva {

strategy::StrategyInfo catalog_entry();

}  // namespace kaisha::hiva
