// An actor system with a real ledger and one strategy actor on the kit,
// spawned from `behavior(self, deps)`; the tests of the kit and of the
// driver runner drive it with task and resume requests.
#pragma once

#include <caf/all.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::actors::kit_testing {

struct KitHostFixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<economy::Budget> budget = std::make_shared<economy::Budget>(100.0, 10.0);
  caf::actor ledger;
  caf::actor strategy;

  template <class Behavior>
  explicit KitHostFixture(Behavior behavior, std::shared_ptr<company::ProgressSink> progress = nullptr) {
    cfg.set("logger.console", caf::atom("none"));
    sys = std::make_unique<caf::actor_system>(cfg);
    ledger = spawn_ledger(*sys, budget, caf::actor(), "s");
    KitDeps deps;
    deps.ledger = ledger;
    deps.progress = std::move(progress);
    deps.session_id = "s";
    deps.agent = "Strategy";
    deps.who = "the strategy";
    strategy = sys->spawn(behavior, std::move(deps));
  }

  ~KitHostFixture() {
    caf::anon_send_exit(strategy, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
  }

  // Sends `args` to the strategy actor and waits for its TaskResult (an
  // error's text in `error`).
  template <class... Args>
  msg::TaskResult ask(Args&&... args) {
    caf::scoped_actor self{*sys};
    msg::TaskResult out;
    self->request(strategy, std::chrono::seconds(30), std::forward<Args>(args)...)
        .receive([&](msg::TaskResult& r) { out = std::move(r); },
                 [&](caf::error& e) { out.error = self->system().render(e); });
    return out;
  }
  msg::TaskResult run(const std::string& input) { return ask(task_atom::value, msg::TaskRequest{"s", "t", input}); }
};

}  // namespace kaisha::actors::kit_testing
