// The two shapes a strategy's driver comes in, checked at compile time where
// an actor runs one (actors/strategy_kit/task_handlers.hpp), so that the
// task, resume and cancel handlers are written once for every strategy.
//
//   TaskDriver     made for one task and dropped at its end (effgen's,
//                  the pyramid's): start() gives the task's first effects.
//   SessionDriver  lives as long as its actor and runs its tasks one after
//                  another (hashiru's CEO, whose hires outlive a task):
//                  start(input) begins each task.
//
// Both take outcomes with on(outcome) and end the running task's work with
// cancel(why); every call returns the effects to execute, in order.
#pragma once

#include <concepts>
#include <string>

#include "runtime/driver/driver_effects.hpp"

namespace kaisha::driver {

template <class D>
concept AnsweringDriver = requires(D& d, const Outcome& o, const std::string& why) {
  { d.on(o) } -> std::same_as<Effects>;
  { d.cancel(why) } -> std::same_as<Effects>;
};

template <class D>
concept TaskDriver = AnsweringDriver<D> && requires(D& d) {
  { d.start() } -> std::same_as<Effects>;
};

template <class D>
concept SessionDriver = AnsweringDriver<D> && requires(D& d, const std::string& input) {
  { d.start(input) } -> std::same_as<Effects>;
};

}  // namespace kaisha::driver
