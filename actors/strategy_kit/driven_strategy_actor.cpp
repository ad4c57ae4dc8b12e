#include "actors/strategy_kit/driven_strategy_actor.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "actors/agents/environment_actor.hpp"
#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/driver_runner.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "actors/strategy_kit/task_handlers.hpp"

namespace kaisha::actors {
namespace {

struct DrivenState {
  driver::DrivenStrategy strategy;
  driver::StateValues state;  // the strategy's, as its tasks see it
  std::unique_ptr<StrategyKit> kit;
  std::unique_ptr<driver::AnyTaskDriver> driver;  // the running task's
  std::unique_ptr<DriverRunner> runner;
  caf::actor environment;  // the strategy's environment actor, when it has an environment
  size_t environment_waiting = 0;
  static inline const char* name = "driven-strategy";
};

using DrivenSelf = caf::stateful_actor<DrivenState>;

// Requests an environment actor holds at once; one more is refused at once.
constexpr size_t kMaxEnvironmentRequests = 64;

void ask_environment(DrivenSelf* self, const driver::RunTool& t, std::function<void(company::ToolResult)> done) {
  auto& st = self->state;
  const std::string name = st.strategy.environment->name();
  if (st.environment_waiting >= kMaxEnvironmentRequests)
    return done(company::ToolResult::error(name + ": not asked: " + std::to_string(st.environment_waiting) +
                                           " requests are already waiting for the environment"));
  ++st.environment_waiting;
  self->request(st.environment, caf::infinite, environment_atom::value, t.arguments)
      .then(
          [self, done](company::ToolResult& r) {
            --self->state.environment_waiting;
            done(std::move(r));
          },
          [self, done, name](caf::error& e) {
            --self->state.environment_waiting;
            done(company::ToolResult::error(name + ": the environment did not answer: " + self->system().render(e)));
          });
}

DriverHooks hooks(DrivenSelf* self) {
  DriverHooks h;
  h.feed = [self](const driver::Outcome& o) {
    auto& d = self->state.driver;
    return d ? d->on(o) : driver::Effects{};
  };
  h.model_role = [self](const driver::CallModel&) {
    const auto& s = self->state.strategy;
    return ModelRole{s.agent, s.model.model_ref, s.model};
  };
  h.run_as = [self](const msg::AgentSpec&) { return self->state.kit->employee_deps(); };
  h.tenure = Tenure::task;
  h.save_state = [self](driver::SaveState s) {
    auto& st = self->state;
    if (st.strategy.state.empty())
      throw std::runtime_error(st.strategy.who + " saves state but declares no state name (DrivenStrategy::state)");
    st.state[s.key] = s.value;
    st.kit->save_state(st.strategy.state, s.key, std::move(s.value), s.change);
  };
  if (self->state.strategy.tools || self->state.strategy.environment)
    h.run_tool = [self](const driver::RunTool& t, std::function<void(company::ToolResult)> done) {
      auto& st = self->state;
      if (st.strategy.environment && t.tool == st.strategy.environment->name())
        return ask_environment(self, t, std::move(done));
      if (!st.strategy.tools)
        return done(company::ToolResult::error(st.strategy.who + " has no tool named '" + t.tool + "'"));
      st.kit->run_tool(*st.strategy.tools, t, std::move(done));
    };
  h.repeatable = [self](const std::string& tool) {
    const auto& env = self->state.strategy.environment;
    if (env && tool == env->name()) return true;  // a judgment changes nothing outside it
    const auto& tools = self->state.strategy.tools;
    return tools ? tools->repeatable(tool) : company::repeatable_tool(tool);
  };
  h.finish = [self](driver::Finish f) {
    self->state.driver.reset();
    const bool note = self->state.strategy.closing_note;
    self->state.kit->finish(std::move(f),
                            note ? std::optional<StrategyKit::ClosingNote>(StrategyKit::ClosingNote{}) : std::nullopt);
  };
  return h;
}

caf::behavior driven_strategy(DrivenSelf* self, KitDeps deps, driver::DrivenStrategy strategy) {
  auto& st = self->state;
  st.strategy = std::move(strategy);
  st.strategy.model.invoke_resource_cost = 0;  // the strategy's own model is not an employee
  st.kit = std::make_unique<StrategyKit>(self, std::move(deps));
  st.kit->fail_on_exception([self](const std::string&) { self->state.driver.reset(); });
  st.runner = std::make_unique<DriverRunner>(self, *st.kit, hooks(self));
  if (st.strategy.environment) st.environment = spawn_environment(self, st.strategy.environment);
  if (!st.strategy.state.empty())
    // The state earlier runs left: the actor takes no task until it is in.
    st.kit->load_state(st.strategy.state, [self](std::vector<driver::StateValue> values) {
      for (auto& v : values) self->state.state[v.key] = std::move(v.value);
    });
  auto make = [self](const msg::TaskRequest& req) { return self->state.strategy.make(req, self->state.state); };
  // A resumed task starts from the state before it, not from what its first
  // run saved: replaying its outcomes saves those again.
  auto restore = [self](const driver::ReplayLog& log) {
    auto& st = self->state;
    if (st.strategy.state.empty()) return;
    st.state.clear();
    for (auto& v : log.state_at_start(st.strategy.state)) st.state[v.key] = std::move(v.value);
  };
  // One handler a line.
  // clang-format off
  return {
      cancel_handler(self),
      wait_handler(self),
      task_handler(self, make),
      resume_handler(self, make, restore),
      st.kit->tool_handler(),
  };
  // clang-format on
}

}  // namespace

caf::actor spawn_driven_strategy(StrategyContext& ctx, driver::DrivenStrategy strategy) {
  KitDeps deps{ctx.ledger, ctx.model_client, ctx.journal,    ctx.judge,      ctx.progress,
               ctx.placer, *ctx.config,      ctx.session_id, strategy.agent, strategy.who};
  return ctx.system->spawn(driven_strategy, std::move(deps), std::move(strategy));
}

}  // namespace kaisha::actors
