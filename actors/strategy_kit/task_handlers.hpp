// The task, resume and cancel handlers of a strategy actor, written once for
// both driver shapes (runtime/driver/driver_shape.hpp). The actor's state
// holds `kit` (StrategyKit), `runner` (DriverRunner) and `driver` (a
// unique_ptr to its driver): for a TaskDriver, made by `make(request)` when
// a task starts and null between tasks; for a SessionDriver, made by the
// actor when it starts and kept.
//
//   task:   (task_atom, msg::TaskRequest) -> msg::TaskResult, answered when
//           the task ends; a request while a task runs is refused by the kit.
//   resume: (resume_atom, msg::TaskRequest, shared_ptr<ReplayLog>): the same
//           for a task resumed from the journal.
//   cancel: (cancel_atom, task id, why) -> bool, whether that task was
//           running; its driver's cancel(why) effects then end it.
//   wait:   (tool_atom, wait): a RunTool's delay is over
//           (DriverRunner::on_wait_over).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <caf/stateful_actor.hpp>

#include "actors/caf/atoms.hpp"
#include "runtime/driver/driver_shape.hpp"
#include "runtime/driver/replay_log.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

// For a SessionDriver, which the actor makes once: nothing to make per task.
struct KeptDriver {};

// The running task's first effects: a TaskDriver is made for it (and kept in
// the state until the task ends), a SessionDriver begins it.
template <class State, class Make>
driver::Effects start_driver(State& s, const msg::TaskRequest& req, const Make& make) {
  using D = typename decltype(s.driver)::element_type;
  if constexpr (driver::SessionDriver<D>) {
    static_assert(std::is_same_v<Make, KeptDriver>, "a session driver is made by its actor, not per task");
    return s.driver->start(req.input);
  } else {
    static_assert(driver::TaskDriver<D>, "a driver has start(), on(outcome) and cancel(why), each returning Effects");
    s.driver = make(req);
    return s.driver->start();
  }
}

template <class State>
auto cancel_handler(caf::stateful_actor<State>* self) {
  return [self](cancel_atom, const std::string& tid, const std::string& why, bool failed) {
    auto& s = self->state;
    if (!s.kit->cancel(tid, why, failed) || !s.driver) return false;
    s.runner->run(s.driver->cancel(why));
    return true;
  };
}

template <class State>
auto wait_handler(caf::stateful_actor<State>* self) {
  return [self](tool_atom, uint64_t wait) { self->state.runner->on_wait_over(wait); };
}

// `make(request)` returns the task's driver (a unique_ptr); KeptDriver{} for
// a session driver.
template <class State, class Make>
auto task_handler(caf::stateful_actor<State>* self, Make make) {
  return [self, make = std::move(make)](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
    auto& s = self->state;
    auto promise = self->template make_response_promise<msg::TaskResult>();
    if (!s.kit->start(req, promise)) return promise;
    s.runner->run(start_driver(s, req, make));
    return promise;
  };
}

// The same for a task resumed after its process died: the driver is made
// again and fed `log` (DriverRunner::resume). `restore(log)`, before the
// driver is made, puts back the strategy's state as it was before the task
// changed it (ReplayLog::state_at_start), so the replay changes it once.
template <class State, class Make, class Restore>
auto resume_handler(caf::stateful_actor<State>* self, Make make, Restore restore) {
  return
      [self, make = std::move(make), restore = std::move(restore)](
          resume_atom, msg::TaskRequest& req, std::shared_ptr<driver::ReplayLog>& log) -> caf::result<msg::TaskResult> {
        auto& s = self->state;
        auto promise = self->template make_response_promise<msg::TaskResult>();
        if (!s.kit->start(req, promise)) return promise;
        restore(*log);
        s.runner->resume(start_driver(s, req, make), std::move(log));
        return promise;
      };
}

// For a strategy that keeps no state beyond a task.
template <class State, class Make>
auto resume_handler(caf::stateful_actor<State>* self, Make make) {
  return resume_handler(self, std::move(make), [](const driver::ReplayLog&) {});
}

}  // namespace kaisha::actors
