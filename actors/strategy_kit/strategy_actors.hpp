// The actors that run each strategy's tasks. Every strategy of the catalog
// (runtime/catalog/strategy_catalog.hpp) that runs tasks has one spawner in
// the table of strategy_actors.cpp, under its catalog name; each of kaisha's
// own strategies keeps its spawner in its actor folder
// (actors/<strategy>/<strategy>_spawner.hpp), and a strategy written without
// CAF gets the generic actor's (register_strategy). CompanyRuntime::start
// spawns the actor of every name in the configured strategy's `runs_on` (for
// `auto`: hashiru's and effgen's) and hands each task to the one
// runner_choice() picks.
//
// The CEO is the company's standing actor (it keeps the session's employees,
// tools and memory between tasks) and is hashiru's runner: hashiru's spawner
// returns it. Other strategies spawn an actor of their own on the kit.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/company/chat_client.hpp"
#include "runtime/company/guarded_tool_source.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/driver/driven_strategy.hpp"
#include "runtime/economy/cost_table.hpp"
#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::actors {

class EmployeePlacer;  // employee_placer.hpp

// What a strategy's actor is built from: the company's shared actors and
// settings, all set before the first spawner runs.
struct StrategyContext {
  caf::actor_system* system = nullptr;
  const config::Config* config = nullptr;
  std::string session_id;
  std::shared_ptr<const economy::CostTable> cost_table;
  // Checks that the models a strategy calls are configured.
  std::shared_ptr<company::ChatClient> chat;
  caf::actor ledger, model_client, journal;
  caf::actor judge;  // invalid when the configuration audits nothing
  caf::actor ceo;
  std::shared_ptr<company::ProgressSink> progress;
  std::shared_ptr<EmployeePlacer> placer;  // null = employees run in this process
  // Wraps every tool source a strategy runs its agents' work with, as the
  // company's own are (RuntimeOptions::wrap_tool_source: `kaisha editor`
  // asks its user first); unset: used as they are.
  std::function<std::shared_ptr<company::ToolSource>(std::shared_ptr<company::ToolSource>)> wrap_tool_source;
  // The company's tool health and breakers, shared with the CEO and the
  // employees, and whom to tell of a breaker's change: the strategy's tools
  // go through them too (null: not guarded).
  std::shared_ptr<company::ToolHealth> tool_health;
  company::GuardedToolSource::BreakerFn on_breaker;
  // The company's long-term memory: its MemoryManager tool, and the
  // retrieval of memories for a message (the injection payload of
  // memory/memory_injection.hpp; null when memory.auto_retrieve is off).
  std::shared_ptr<company::ToolSource> memory_tools;
  std::function<void(const std::string& message, std::function<void(json)> done)> recall;
  std::shared_ptr<company::ToolSource> wrapped(std::shared_ptr<company::ToolSource> source) const {
    if (source && tool_health)
      source = std::make_shared<company::GuardedToolSource>(std::move(source), tool_health, on_breaker);
    return source && wrap_tool_source ? wrap_tool_source(std::move(source)) : source;
  }
};

// Spawns (or returns) the actor that runs the strategy's tasks; an error
// names what in the configuration stops it (an unknown model, a bad file).
using StrategySpawner = std::function<Result<caf::actor>(StrategyContext& context)>;

// The spawner of strategy `name`, or an empty function when the catalog's
// name has no actor here (`auto` runs on other strategies' actors).
StrategySpawner find_strategy_spawner(std::string_view name);

// Which of a strategy's runners (its catalog entry's runs_on) takes a task.
using RunnerChoice = std::function<std::string(const std::string& input)>;

// The choice for strategy `info`, made when a company starts: a strategy
// that runs on one actor always takes it; `auto` asks effGen's router (a
// task it gives one agent goes to the CEO, others to the planner). An error
// names what in the configuration stops it.
Result<RunnerChoice> runner_choice(const strategy::StrategyInfo& info, const config::Config& config);

// The spawner of a strategy written without CAF: the generic actor
// (driven_strategy_actor.hpp) running the DrivenStrategy that `setup` makes
// from the company's configuration (its section `section`, as JSON and as
// its entry read it).
StrategySpawner driven_spawner(const std::string& name, const std::string& section, driver::StrategySetupFn setup);

// The names that have a spawner, in table order.
std::vector<std::string> spawnable_strategies();

}  // namespace kaisha::actors
