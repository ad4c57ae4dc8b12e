// Adding a strategy written without CAF to kaisha: its catalog entry and the
// setup that makes its DrivenStrategy (runtime/driver/driven_strategy.hpp).
// No CAF type appears here: a program that links kaisha as a library, or a
// test, registers a strategy from plain C++.
#pragma once

#include "runtime/core/result.hpp"
#include "runtime/driver/driven_strategy.hpp"
#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::actors {

// Adds strategy `info` (its name becomes a value of `--strategy` and of the
// config's `strategy:`; its config_section a section the loader accepts and
// hands to `setup` as JSON) and the generic actor that runs its tasks with
// the DrivenStrategy `setup` makes when a company starts. An error when the
// name or section is taken. Register before loading a config or starting a
// company; not thread-safe.
Status register_strategy(strategy::StrategyInfo info, driver::StrategySetupFn setup);

// The strategy whose tasks the CEO runs itself (hashiru), for a task that
// must be the CEO's whatever the configured strategy (`kaisha feedback`).
std::string ceo_strategy();

}  // namespace kaisha::actors
