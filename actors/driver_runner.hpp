// DriverRunner executes a pure driver's effects (runtime/driver/) through the
// strategy kit and feeds every answer back to the driver, so a strategy actor
// only says what is its own: whose model a CallModel calls, how a hired agent
// runs, what finishing means, and which tools it has.
//
// Effects run in order; once the task has ended (a Finish, a cancel, a
// failed hire) the rest of the list is dropped, and so are answers that
// arrive for a task that has ended. Every callback runs on the actor's
// thread. The runner lives in the actor's state next to the kit and must not
// outlive it.
#pragma once

#include <functional>

#include <caf/fwd.hpp>

#include "actors/strategy_kit.hpp"
#include "runtime/driver/driver_effects.hpp"

namespace kaisha::actors {

struct DriverHooks {
  // The running task's driver: takes an outcome, returns what to do next.
  std::function<driver::Effects(const driver::Outcome&)> feed;
  // Whose model a CallModel calls, and who pays.
  std::function<ModelRole(const driver::CallModel&)> model_role;
  // How a hired agent runs (its EmployeeDeps) and how long it stays.
  std::function<EmployeeDeps(const msg::AgentSpec&)> run_as;
  Tenure tenure = Tenure::task;
  // Ends the task (the strategy adds what it reports, then kit.finish).
  std::function<void(driver::Finish)> finish;
  // Runs a tool for RunTool; null: a RunTool fails the task.
  std::function<void(const driver::RunTool&, std::function<void(company::ToolResult)>)> run_tool;
};

class DriverRunner {
 public:
  DriverRunner(caf::event_based_actor* self, StrategyKit& kit, DriverHooks hooks);

  // Executes `effects` for the running task.
  void run(driver::Effects effects);

 private:
  void execute(const std::string& tid, driver::Effect& e);
  // Feeds `o` to the driver while task `tid` runs, and runs what it returns.
  void answer(const std::string& tid, driver::Outcome o);

  caf::event_based_actor* self_;
  StrategyKit& kit_;
  DriverHooks hooks_;
};

}  // namespace kaisha::actors
