// The task and cancel handlers of a strategy actor that runs one task at a
// time with a pure driver made for each task (the planner's, the pyramid's).
// The actor's state holds `kit` (StrategyKit), `runner` (DriverRunner) and
// `driver` (a unique_ptr to its driver, null between tasks).
//
//   task:   (task_atom, msg::TaskRequest) -> msg::TaskResult, answered when
//           the task ends; a request while a task runs is refused by the kit.
//   resume: (resume_atom, msg::TaskRequest, shared_ptr<ReplayLog>): the same
//           for a task resumed from the journal.
//   cancel: (cancel_atom, task id, why) -> bool, whether that task was
//           running; its driver's cancel(why) effects then end it.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <caf/stateful_actor.hpp>

#include "actors/caf/atoms.hpp"
#include "runtime/driver/replay_log.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

template <class State>
auto cancel_handler(caf::stateful_actor<State>* self) {
  return [self](cancel_atom, const std::string& tid, const std::string& why, bool failed) {
    auto& s = self->state;
    if (!s.kit->cancel(tid, why, failed) || !s.driver) return false;
    s.runner->run(s.driver->cancel(why));
    return true;
  };
}

// `make(request)` returns the task's driver (a unique_ptr).
template <class State, class Make>
auto task_handler(caf::stateful_actor<State>* self, Make make) {
  return [self, make = std::move(make)](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
    auto& s = self->state;
    auto promise = self->template make_response_promise<msg::TaskResult>();
    if (!s.kit->start(req, promise)) return promise;
    s.driver = make(req);
    s.runner->run(s.driver->start());
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
        s.driver = make(req);
        s.runner->resume(s.driver->start(), std::move(log));
        return promise;
      };
}

// For a strategy that keeps no state beyond a task.
template <class State, class Make>
auto resume_handler(caf::stateful_actor<State>* self, Make make) {
  return resume_handler(self, std::move(make), [](const driver::ReplayLog&) {});
}

}  // namespace kaisha::actors
