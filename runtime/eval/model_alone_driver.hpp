// ModelAloneDriver: a task answered by one model call and nothing else — no
// CEO, no employees, no tools, no plan — as the papers' "model alone"
// baselines are (HASHIRU's "Gemini alone", effGen's base model). `kaisha
// eval --baseline MODEL` runs the suite through it (strategy
// "model-alone") and compares the strategy's run with it, answer by answer.
//
// Effects: one CallModel with the task's input as the only user message
// (and `system_prompt` when set), then Finish with the model's answer, or
// Finish{!ok} saying why the call failed.
#pragma once

#include <string>

#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/driver_shape.hpp"

namespace kaisha::eval {

// The strategy's name in the catalog, and its one agent's.
inline constexpr const char* kModelAloneStrategy = "model-alone";
inline constexpr const char* kModelAloneAgent = "Model";

class ModelAloneDriver {
 public:
  ModelAloneDriver(std::string input, std::string system_prompt, int64_t max_tokens);

  driver::Effects start();
  driver::Effects on(const driver::Outcome& outcome);
  driver::Effects cancel(const std::string& why);

 private:
  std::string input_;
  std::string system_prompt_;
  int64_t max_tokens_;
  bool finished_ = false;
};

static_assert(driver::TaskDriver<ModelAloneDriver>);

}  // namespace kaisha::eval
