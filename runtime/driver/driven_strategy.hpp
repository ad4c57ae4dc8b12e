// A strategy written without CAF: a pure driver (driver_shape.hpp's
// TaskDriver) and what kaisha's generic strategy actor needs to run it. A
// program that links kaisha, or a test, adds one with
// actors::register_strategy (actors/strategy_kit/strategy_registration.hpp):
// its catalog entry (name, config section, events, rendering) and a setup
// function that turns the configuration into a DrivenStrategy when a
// company starts.
//
// The generic actor runs one task at a time: `make` builds the task's driver,
// its effects run through the strategy kit (hires, asks, the strategy's own
// model calls, audits, journal steps, events), and a task interrupted by a
// dead process resumes by replaying its kept outcomes through a new driver,
// as for kaisha's own strategies (docs/strategies.md).
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/environment.hpp"
#include "runtime/driver/driver_shape.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::driver {

// Any TaskDriver behind one interface, so that one actor runs them all.
class AnyTaskDriver {
 public:
  virtual ~AnyTaskDriver() = default;
  virtual Effects start() = 0;
  virtual Effects on(const Outcome& o) = 0;
  virtual Effects cancel(const std::string& why) = 0;
};

template <TaskDriver D>
class TaskDriverOf final : public AnyTaskDriver {
 public:
  template <class... Args>
  explicit TaskDriverOf(Args&&... args) : driver_(std::forward<Args>(args)...) {}
  Effects start() override { return driver_.start(); }
  Effects on(const Outcome& o) override { return driver_.on(o); }
  Effects cancel(const std::string& why) override { return driver_.cancel(why); }

 private:
  D driver_;
};

// A new driver of type D, built from `args`, behind AnyTaskDriver.
template <TaskDriver D, class... Args>
std::unique_ptr<AnyTaskDriver> make_task_driver(Args&&... args) {
  return std::make_unique<TaskDriverOf<D>>(std::forward<Args>(args)...);
}

// What a strategy's setup is given when a company starts.
struct StrategySetup {
  const config::Config* config = nullptr;
  // The strategy's own config section (its catalog entry's config_section)
  // as JSON; null when the file has none.
  json section;
  // The same section as its entry's read_settings made it (empty when the
  // entry has no reader or the config was made in code).
  std::any settings;
  std::string session_id;
  // A model ref or cost-table name, priced from the company's cost table.
  std::function<economy::ModelCost(const std::string& model)> price;
  // Ok when a model ref can be called (its provider is configured).
  std::function<Status(const std::string& model_ref)> check_model;
  // Whether anybody listens to the company's progress events, so that a
  // driver builds its chattier events only then. Never null.
  std::function<bool()> listening;
};

// The latest value of every key of a strategy's state (docs/strategies.md,
// "State beyond a task").
using StateValues = std::map<std::string, json>;

// What the setup gives back: how the generic actor runs the strategy's tasks.
struct DrivenStrategy {
  std::string agent = "Strategy";    // who pays for its own model calls, in steps and events
  std::string who = "the strategy";  // how errors name it
  economy::ModelCost model;          // what a CallModel calls, and its prices
  bool closing_note = true;          // journal the task's end as a note with its metadata
  // The name its state is kept under ("" = it keeps none). The actor reads
  // the state before it takes a task, keeps it as SaveState effects change
  // it, and gives a resumed task the state as it was before that task.
  std::string state;
  // The tools a RunTool runs (null: a RunTool fails the task). Their calls
  // run on the source's own threads and may block there.
  std::shared_ptr<company::ToolSource> tools;
  // What its answers are judged against (null: none). A RunTool of
  // environment->name() goes to the strategy's environment actor, not to
  // `tools` (environment.hpp).
  std::shared_ptr<Environment> environment;
  // The driver of one task, given the strategy's state as the task starts
  // (empty when it keeps none).
  std::function<std::unique_ptr<AnyTaskDriver>(const msg::TaskRequest& task, const StateValues& state)> make;
};

using StrategySetupFn = std::function<Result<DrivenStrategy>(const StrategySetup& setup)>;

}  // namespace kaisha::driver
