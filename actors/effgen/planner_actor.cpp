#include "actors/effgen/planner_actor.hpp"

#include <utility>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/driver_runner.hpp"
#include "actors/strategy_kit/task_handlers.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/effgen/effgen_driver.hpp"
#include "runtime/effgen/decomposition/decomposition_prompts.hpp"

namespace kaisha::actors {
namespace {

constexpr const char* kPlanner = "Planner";

struct PlannerState {
  PlannerDeps deps;
  std::unique_ptr<StrategyKit> kit;  // the task scope, the workers, the charged calls
  std::unique_ptr<effgen::EffgenPlaybook> playbook;
  std::unique_ptr<effgen::EffgenDriver> driver;  // the running task's
  std::unique_ptr<DriverRunner> runner;
  static inline const char* name = "planner";
};

using PlannerSelf = caf::stateful_actor<PlannerState>;

effgen::EffgenSetup setup_of(const PlannerDeps& d, const StrategyKit& kit) {
  effgen::EffgenSetup s;
  s.router = d.router;
  s.optimizer = d.optimizer;
  s.planner_cost = d.planner_cost;
  s.planner_cost.model_ref = d.planner_model;
  s.worker_cost = d.worker_cost;
  s.worker_system = d.worker_system;
  s.worker_task = d.worker_task;
  s.synthesis = d.synthesis;
  s.memory_note = d.memory_note;
  // Read once at start: a missing file fails each task that needs it, with the path.
  for (routing::Strategy st : {routing::Strategy::hybrid, routing::Strategy::hierarchical})
    s.decompose.emplace(st, planning::load_decomposition_prompt(st));
  s.temperature = d.config.ceo.temperature;
  s.max_concurrent = d.max_concurrent;
  s.max_subtask_retries = d.max_subtask_retries;
  s.audit = d.judge && d.config.judge.subtasks;
  s.max_judge_retries = d.config.judge.max_retries;
  s.worker_max_output_tokens = d.config.employee.max_output_tokens;
  s.recall = static_cast<bool>(d.recall);
  s.remember = static_cast<bool>(d.memory_tools);
  s.now_ms = [] { return steady_ms(); };
  s.listening = [&kit] { return kit.listening(); };
  return s;
}

// Ends the task with effgen's metadata plus the kit's accounting; the routing
// decision has its own note at the task's start, so the closing note omits it.
void finish(PlannerSelf* self, driver::Finish f) {
  self->state.driver.reset();
  self->state.kit->finish(std::move(f), StrategyKit::ClosingNote{{"routing"}});
}

DriverHooks hooks(PlannerSelf* self) {
  DriverHooks h;
  h.feed = [self](const driver::Outcome& o) {
    auto& d = self->state.driver;
    return d ? d->on(o) : driver::Effects{};
  };
  h.model_role = [self](const driver::CallModel&) {
    const auto& d = self->state.deps;
    return ModelRole{kPlanner, d.planner_model, d.planner_cost};
  };
  h.run_as = [self](const msg::AgentSpec&) { return self->state.kit->employee_deps(); };
  h.tenure = Tenure::task;
  h.finish = [self](driver::Finish f) { finish(self, std::move(f)); };
  // Retrieval may wait for an embedding model: its answer comes back as a message.
  if (self->state.deps.recall)
    h.recall = [self](const driver::Recall& r, const std::string& tid) {
      caf::actor me = caf::actor_cast<caf::actor>(self);
      self->state.deps.recall(r.query, [me, tid, id = r.id](json found) {
        caf::anon_send(me, recall_atom::value, tid, id, std::move(found));
      });
    };
  // The one tool the planner calls itself: the memory's, to store what a task did.
  if (self->state.deps.memory_tools) {
    h.run_tool = [self](const driver::RunTool& t, std::function<void(company::ToolResult)> done) {
      self->state.kit->run_tool(*self->state.deps.memory_tools, t, std::move(done));
    };
    h.repeatable = [self](const std::string& tool) { return self->state.deps.memory_tools->repeatable(tool); };
  }
  return h;
}

caf::behavior planner(PlannerSelf* self, PlannerDeps deps) {
  auto& st = self->state;
  st.deps = std::move(deps);
  st.kit = std::make_unique<StrategyKit>(self, kit_deps_of(st.deps, kPlanner, "the planner"));
  st.kit->fail_on_exception([self](const std::string&) { self->state.driver.reset(); });
  st.playbook = std::make_unique<effgen::EffgenPlaybook>(setup_of(st.deps, *st.kit));
  st.runner = std::make_unique<DriverRunner>(self, *st.kit, hooks(self));
  // A canceled task's workers are fired on the way out; their late results find no task.
  auto make = [self](const msg::TaskRequest& req) {
    return std::make_unique<effgen::EffgenDriver>(*self->state.playbook, req.input);
  };
  return {
      cancel_handler(self),
      wait_handler(self),
      task_handler(self, make),
      resume_handler(self, make),
      [=](recall_atom, const std::string& tid, uint64_t id, json& found) {
        self->state.runner->answer(tid, driver::Recalled{id, std::move(found)});
      },
      st.kit->tool_handler(),
  };
}

}  // namespace

caf::actor spawn_planner(caf::actor_system& sys, PlannerDeps deps) { return sys.spawn(planner, std::move(deps)); }

}  // namespace kaisha::actors
