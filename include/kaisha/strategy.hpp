// kaisha/strategy.hpp: a strategy of your own, registered from outside
// kaisha, that companies run like kaisha's own (docs/strategies.md).
//
// A strategy is a catalog entry (StrategyInfo: its name, help, config
// section, events) and a setup that, when a company starts, reads its
// config section and returns a DrivenStrategy whose `make` builds one task's
// driver. A driver is a plain class: start() returns the task's first
// effects (ask a model, hire, ask an employee, run a tool, journal, report
// an event, finish), and on(outcome) the next ones when each answer comes
// back; cancel(why) ends the task. kaisha performs every effect, journals
// it, charges the budget and, when a process dies, resumes the task by
// replaying the kept outcomes through a new driver.
//
// Threading: register before loading a configuration or starting a
// company, from one thread (registration is not thread-safe). A driver's
// calls are made one at a time, on a company thread: they must not block.
// Ownership: the catalog keeps the entry and the setup for the process's
// life; each task's driver is owned by the company and dropped at its end.
// Errors: register_strategy returns an Error when the name or section is
// taken or not a plain lower-case name; a setup returns an Error naming the
// config key that was wrong, and the company does not start.
#pragma once

#include "actors/strategy_kit/strategy_registration.hpp"
#include "runtime/driver/driven_strategy.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/strategy/strategy_info.hpp"

namespace kaisha {

using strategy::StrategyEvent;
using strategy::StrategyInfo;

using driver::DrivenStrategy;
using driver::make_task_driver;
using driver::StateValues;
using driver::StrategySetup;
using driver::StrategySetupFn;
using TaskRequest = msg::TaskRequest;  // the task a driver is made for: id, input, ...

// Adds strategy `info`, and `setup`, which makes its DrivenStrategy when a
// company starts (see above).
using actors::register_strategy;

// The effects a driver returns and the outcomes it is given are those of
// namespace kaisha::driver (runtime/driver/driver_effects.hpp), e.g.
// driver::CallModel -> driver::ModelAnswered, driver::Finish, and
// driver::add_strategy_event for an event of the strategy's own.

}  // namespace kaisha
