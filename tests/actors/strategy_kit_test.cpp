// The strategy kit's task scope and hire/fire path, on a real ledger: a
// task's answer waits for the fires it sent, and a task agent whose hire the
// ledger answers after its task ended is given back, never placed. And what
// the kit does for every strategy actor: a driver's Finish with the task's
// accounting, a tool's answer brought back to the actor's thread, hired
// agents stopped when the actor is told to exit.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <chrono>
#include <memory>
#include <sstream>
#include <thread>

#include "actors/caf/atoms.hpp"
#include "tests/actors/kit_host_fixture.hpp"
#include "runtime/company/tool_source.hpp"
#include "actors/system/ledger_actor.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::actors {
namespace {

using namespace std::chrono_literals;
using hire_outcome_atom = caf::atom_constant<caf::atom("hireout")>;

// A tool source that answers from a thread of its own, as MCP servers and
// the sandbox do; it says which thread that was.
class ThreadedEcho : public company::ToolSource {
 public:
  ~ThreadedEcho() override {
    for (auto& t : threads_) t.join();
  }
  std::string origin() const override { return "test"; }
  std::vector<llm::ToolSpec> specs() const override { return {}; }
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override {
    threads_.emplace_back([name, args, ctx, done = std::move(done)] {
      std::ostringstream id;
      id << std::this_thread::get_id();
      done(company::ToolResult::success(name + " " + args.dump() + " for " + ctx.task_id, json{{"thread", id.str()}}));
    });
  }

 private:
  std::vector<std::thread> threads_;
};

struct HostState {
  std::unique_ptr<StrategyKit> kit;
  std::shared_ptr<ThreadedEcho> tools = std::make_shared<ThreadedEcho>();
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
        if (req.input == "finish-with-metadata") {
          kit.finish(driver::Finish{true, "planned", json{{"plan", 3}}}, std::nullopt);
          return promise;
        }
        if (req.input == "tool") {
          kit.call_tool(*self->state.tools, "echo", json{{"text", "こんにちは"}},
                        company::ToolCallContext{"s", tid, "Strategy", "", ""}, [self](company::ToolResult r) {
                          std::ostringstream here;
                          here << std::this_thread::get_id();
                          const bool same = r.output.value("thread", "") == here.str();
                          self->state.kit->finish(true, r.message + (same ? " on the tool's thread" : ""));
                        });
          return promise;
        }
        if (req.input == "hire-and-keep") {
          kit.hire(worker_spec(), worker_cost(), Tenure::session, kit.employee_deps(),
                   [self](HireResult h) { self->state.kit->finish(h.ok, h.ok ? "W stays" : h.error); });
          return promise;
        }
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
      self->state.kit->tool_handler(),
      // The hire's outcome so far, and whether W is hired.
      [=](hire_outcome_atom) { return self->state.hire_outcome + (self->state.kit->hired("W") ? " (W hired)" : ""); },
  };
}

struct Fixture : kit_testing::KitHostFixture {
  Fixture() : KitHostFixture(host) {}
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

TEST(StrategyKit, ADriversFinishCarriesTheTasksAccountingForEveryStrategy) {
  Fixture f;
  msg::TaskResult r = f.run("finish-with-metadata");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "planned");
  EXPECT_EQ(r.metadata.value("plan", 0), 3);
  ASSERT_TRUE(r.metadata.contains("execution_time_ms")) << r.metadata.dump();
  EXPECT_EQ(r.metadata["execution_time_ms"], r.wall_ms);
  EXPECT_EQ(r.metadata.value("total_tokens", -1), 0);
}

TEST(StrategyKit, AToolsAnswerFromAnotherThreadIsHandledOnTheActor) {
  Fixture f;
  msg::TaskResult r = f.run("tool");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, R"(echo {"text":"こんにちは"} for t)");
}

TEST(StrategyKit, AnActorToldToExitStopsTheAgentsItHired) {
  Fixture f;
  const size_t before = f.sys->registry().running();
  msg::TaskResult r = f.run("hire-and-keep");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(f.sys->registry().running(), before + 1);  // W runs after the task
  caf::anon_send_exit(f.strategy, caf::exit_reason::user_shutdown);
  // The strategy and W are gone (a W left running would hang here until the
  // test's timeout).
  f.sys->registry().await_running_count_equal(before - 1);
  EXPECT_EQ(f.sys->registry().running(), before - 1);
}

}  // namespace
}  // namespace kaisha::actors
