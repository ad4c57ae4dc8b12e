// HALO's entry in the strategy catalog (runtime/catalog/strategy_catalog.hpp):
// everything kaisha knows about HALO without running it.
#pragma once

#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::halo {

strategy::StrategyInfo catalog_entry();

}  // namespace kaisha::halo
