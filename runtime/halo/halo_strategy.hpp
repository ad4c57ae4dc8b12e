// HALO as kaisha runs it: the setup that turns a company's configuration
// into the generic strategy actor's DrivenStrategy (runtime/driver/
// driven_strategy.hpp) running one HaloDriver per task. No CAF here: HALO is
// written as a strategy registered without actor code is, and its spawner is
// the generic actor's (actors/strategy_kit/strategy_actors.cpp).
#pragma once

#include "runtime/core/result.hpp"
#include "runtime/driver/driven_strategy.hpp"

namespace kaisha::halo {

// The halo: section's settings (from the entry's reader; the defaults for a
// config made in code), the backbone (halo.model, else ceo.model) priced by
// the cost table and checked to be callable, and the prompts loaded once.
// An error names what stops it: a model nobody configured, a prompt file.
Result<driver::DrivenStrategy> make_halo_strategy(const driver::StrategySetup& setup);

}  // namespace kaisha::halo
