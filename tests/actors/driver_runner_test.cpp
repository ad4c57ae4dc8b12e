// DriverRunner on a real ledger: effects run in order and stop at the task's
// end, outcomes are fed back, an effect the strategy has no hook for fails
// the task saying so, and a resumed task is fed its kept outcomes instead of
// running their effects again.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>

#include "actors/caf/atoms.hpp"
#include "tests/actors/kit_host_fixture.hpp"
#include "actors/strategy_kit/driver_runner.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "actors/strategy_kit/task_handlers.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/driver/driven_strategy.hpp"
#include "runtime/driver/outcome_codec.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::actors {
namespace driver_runner_test {

using namespace driver;

// A driver whose three calls are the test's.
struct ScriptedDriver {
  std::function<Effects()> on_start;
  std::function<Effects(const Outcome&)> on_outcome = [](const Outcome&) { return Effects{}; };
  Effects start() { return on_start(); }
  Effects on(const Outcome& o) { return on_outcome(o); }
  Effects cancel(const std::string& why) { return {Finish{false, why}}; }
};

Report note(const std::string& text) {
  Report r;
  r.text = text;
  return r;
}

// The script for a task, by its input.
ScriptedDriver script(const std::string& input) {
  ScriptedDriver d;
  if (input == "stop-at-finish") {
    d.on_start = [] { return Effects{note("before"), Finish{true, "done"}, note("after")}; };
  } else if (input == "read-budget") {
    d.on_start = [] { return Effects{ReadBudget{1}}; };
    d.on_outcome = [](const Outcome& o) {
      const auto& b = std::get<BudgetRead>(o);
      return Effects{Finish{true, b.view.is_object() && b.view.contains("kept") ? "kept" : "asked the ledger"}};
    };
  } else if (input == "no-hook") {
    d.on_start = [] {
      RunTool t;
      t.id = 1;
      t.tool = "shell";
      t.arguments = "{}";
      return Effects{t};
    };
  }
  return d;
}

class Events : public company::ProgressSink {
 public:
  void emit(const msg::ProgressEvent& e) override {
    std::lock_guard<std::mutex> lock(mu_);
    texts_.push_back(e.text);
  }
  std::vector<std::string> texts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return texts_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> texts_;
};

struct HostState {
  std::unique_ptr<StrategyKit> kit;
  std::unique_ptr<AnyTaskDriver> driver;
  std::unique_ptr<DriverRunner> runner;
  static inline const char* name = "runner-host";
};
using Host = caf::stateful_actor<HostState>;

caf::behavior host(Host* self, KitDeps deps) {
  auto& st = self->state;
  st.kit = std::make_unique<StrategyKit>(self, std::move(deps));
  st.kit->fail_on_exception([self](const std::string&) { self->state.driver.reset(); });
  DriverHooks h;
  h.feed = [self](const Outcome& o) { return self->state.driver ? self->state.driver->on(o) : Effects{}; };
  h.finish = [self](Finish f) {
    self->state.driver.reset();
    self->state.kit->finish(std::move(f), std::nullopt);
  };
  st.runner = std::make_unique<DriverRunner>(self, *st.kit, std::move(h));
  auto make = [](const msg::TaskRequest& req) { return make_task_driver<ScriptedDriver>(script(req.input)); };
  return {task_handler(self, make), resume_handler(self, make), cancel_handler(self)};
}

struct Fixture : kit_testing::KitHostFixture {
  std::shared_ptr<Events> events;
  explicit Fixture(std::shared_ptr<Events> e = std::make_shared<Events>())
      : KitHostFixture(host, e), events(std::move(e)) {}
};

TEST(DriverRunner, EffectsAfterTheTasksEndAreDropped) {
  Fixture f;
  msg::TaskResult r = f.run("stop-at-finish");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "done");
  const auto texts = f.events->texts();
  EXPECT_NE(std::find(texts.begin(), texts.end(), "before"), texts.end());
  EXPECT_EQ(std::find(texts.begin(), texts.end(), "after"), texts.end());
}

TEST(DriverRunner, AnOutcomeIsFedBackToTheDriver) {
  Fixture f;
  msg::TaskResult r = f.run("read-budget");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "asked the ledger");
}

TEST(DriverRunner, AnEffectWithoutItsHookFailsTheTaskNamingIt) {
  Fixture f;
  msg::TaskResult r = f.run("no-hook");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("the strategy's driver asked for a tool, which it has no hook for"), std::string::npos)
      << r.error;
}

TEST(DriverRunner, AResumedTaskIsFedItsKeptOutcomeInsteadOfRunningItsEffect) {
  Fixture f;
  auto log = ReplayLog::from_records({encode(BudgetRead{1, json{{"kept", true}}})});
  ASSERT_TRUE(log.ok()) << log.error().message;
  msg::TaskResult r = f.ask(resume_atom::value, msg::TaskRequest{"s", "t", "read-budget"},
                            std::make_shared<ReplayLog>(std::move(log).value()));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "kept");
}

}  // namespace driver_runner_test
}  // namespace kaisha::actors
