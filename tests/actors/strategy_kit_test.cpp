// The strategy kit's task scope and hire/fire path, on a real ledger: a
// task's answer waits for the fires it sent, and a task agent whose hire the
// ledger answers after its task ended is given back, never placed.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <chrono>
#include <memory>
#include <thread>

#include "actors/caf/atoms.hpp"
#include "actors/system/ledger_actor.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::actors {
namespace {

using namespace std::chrono_literals;
using hire_outcome_atom = caf::atom_constant<caf::atom("hireout")>;

struct HostState {
  std::unique_ptr<StrategyKit> kit;
  std::string hire_outcome;  // "ok" or the hire's error, once the kit has answered
  static inline const char* name = "kit-host";
};
using Host = caf::stateful_actor<HostState>;

economy::ModelCost worker_cost() {
  economy::ModelCost c;
  c.name = c.model_ref = "m";
  c.type = "local";
  c.create_resource_cost = 10;
  return c;
}

msg::AgentSpec worker_spec() {
  msg::AgentSpec spec;
  spec.name = "W";
  spec.base_model = spec.model_ref = "m";
  spec.type = "local";
  return spec;
}

// A strategy of two moves, chosen by the task's input: "hire-fire" hires W,
// fires it and finishes at once; "finish-first" hires W and finishes before
// the ledger has answered the hire.
caf::behavior host(Host* self, KitDeps deps) {
  self->state.kit = std::make_unique<StrategyKit>(self, std::move(deps));
  return {
      [=](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
        auto promise = self->make_response_promise<msg::TaskResult>();
        StrategyKit& kit = *self->state.kit;
        if (!kit.start(req, promise)) return promise;
        const std::string tid = req.task_id;
        kit.hire(worker_spec(), worker_cost(), Tenure::task, kit.employee_deps(), [self, tid](HireResult h) {
          StrategyKit& k = *self->state.kit;
          self->state.hire_outcome = h.ok ? "ok" : h.error;
          if (!k.current(tid)) return;
          if (!h.ok) return k.finish(false, h.error);
          k.fire("W", [](bool, std::string, economy::BudgetSummary) {});
          k.finish(true, "hired and fired");
        });
        if (req.input == "finish-first") kit.finish(false, "finished first");
        return promise;
      },
      // The hire's outcome so far, and whether W is hired.
      [=](hire_outcome_atom) { return self->state.hire_outcome + (self->state.kit->hired("W") ? " (W hired)" : ""); },
  };
}

struct Fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<economy::Budget> budget = std::make_shared<economy::Budget>(100.0, 10.0);
  caf::actor ledger;
  caf::actor strategy;

  Fixture() {
    cfg.set("logger.console", caf::atom("none"));
    sys = std::make_unique<caf::actor_system>(cfg);
    ledger = spawn_ledger(*sys, budget, caf::actor(), "s");
    KitDeps deps;
    deps.ledger = ledger;
    deps.session_id = "s";
    deps.agent = "Strategy";
    deps.who = "the strategy";
    strategy = sys->spawn(host, std::move(deps));
  }

  ~Fixture() {
    caf::anon_send_exit(strategy, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
  }

  msg::TaskResult run(const std::string& input) {
    caf::scoped_actor self{*sys};
    msg::TaskResult out;
    self->request(strategy, std::chrono::seconds(30), task_atom::value, msg::TaskRequest{"s", "t", input})
        .receive([&](msg::TaskResult& r) { out = std::move(r); },
                 [&](caf::error& e) { out.error = self->system().render(e); });
    return out;
  }
};

TEST(StrategyKit, ATasksAnswerWaitsForTheFiresItSent) {
  Fixture f;
  msg::TaskResult r = f.run("hire-fire");
  ASSERT_TRUE(r.ok) << r.error;
  // The answer came after the ledger's answer to the fire: the hire's
  // resource units are back, with no waiting.
  EXPECT_EQ(f.budget->resource().used(), 0.0);
  EXPECT_EQ(f.budget->hired_agents(), 0);
}

TEST(StrategyKit, ATaskAgentHiredAfterItsTaskEndedIsGivenBackAndNotPlaced) {
  Fixture f;
  msg::TaskResult r = f.run("finish-first");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "finished first");
  // The ledger answers the hire after the task's end (it charged it: the
  // outcome is recorded once it has): the kit gives it back, unplaced.
  caf::scoped_actor self{*f.sys};
  std::string outcome;
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (outcome.empty() && std::chrono::steady_clock::now() < until) {
    self->request(f.strategy, std::chrono::seconds(30), hire_outcome_atom::value)
        .receive([&](std::string& o) { outcome = o; }, [&](caf::error& e) { outcome = self->system().render(e); });
    if (outcome.empty()) std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(outcome, "the task ended");
  while ((f.budget->resource().used() != 0.0 || f.budget->hired_agents() != 0) &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(f.budget->resource().used(), 0.0);
  EXPECT_EQ(f.budget->hired_agents(), 0);
}

}  // namespace
}  // namespace kaisha::actors
