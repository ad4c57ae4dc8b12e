// The planner: the effgen strategy (effgen.md §23 A–E) on the runtime. For
// each task it scores complexity with zero model calls and routes: a simple
// task goes to one worker; a complex one is decomposed by the planner's model
// into a 2–5 subtask DAG that workers run concurrently (dependents get their
// predecessors' outputs), then synthesised. Every worker result is audited by
// the judge when judge.subtasks is on, with up to judge.max_retries retries.
// Workers are employees hired for the task and fired at its end; a plan that
// cannot be afforded is refused before any worker is hired.
//
// Protocol: (task_atom, msg::TaskRequest) -> msg::TaskResult, one at a time.
// TaskResult.metadata holds effgen.md §23 item 4's fields.
#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agents/employee_placer.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/config/config.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::routing {
class Router;
}
namespace kaisha::prompt {
class PromptOptimizer;
}

namespace kaisha::actors {

struct PlannerDeps {
  caf::actor ledger;
  caf::actor model_client;
  caf::actor journal;
  caf::actor judge;  // invalid: results are not audited
  std::shared_ptr<company::ProgressSink> progress;
  // Where workers run, as for the CEO's employees; null = in this process.
  std::shared_ptr<EmployeePlacer> placer;
  std::shared_ptr<const routing::Router> router;
  std::shared_ptr<const prompt::PromptOptimizer> optimizer;
  config::Config config;
  std::string session_id;
  std::string planner_model;  // model ref of decomposition and synthesis calls
  economy::ModelCost planner_cost;
  economy::ModelCost worker_cost;  // workers' model (its model_ref) and prices
  int max_concurrent = 5;          // effgen.max_concurrent
  int max_subtask_retries = 1;     // effgen.max_subtask_retries
  // Prompt texts (prompts/effgen/): the workers' system prompt, a worker's
  // subtask message ({{task}} {{subtask}} {{expected_output}} {{context}}) and
  // the synthesis request ({{task}} {{results}}).
  std::string worker_system;
  std::string worker_task;
  std::string synthesis;
  std::string memory_note;  // a task's memory ({{task}} {{how}} {{answer}})
  // The company's memory (StrategyContext's): memories recalled for the
  // task before it is planned, and what a task that succeeded did, stored
  // through the MemoryManager tool. Either null: not used.
  std::function<void(const std::string& message, std::function<void(json)> done)> recall;
  std::shared_ptr<company::ToolSource> memory_tools;
};

caf::actor spawn_planner(caf::actor_system& sys, PlannerDeps deps);

}  // namespace kaisha::actors
