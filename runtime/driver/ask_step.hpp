// One finished step of an employee's tool loop inside an ask: a model
// answer or a tool's result. An employee keeps each step of an ask a task's
// driver made (AskRequest::call) as it finishes, so that when the process
// running the task dies during the ask, the ask run again on resume is fed
// its steps (AskRequest::replay) instead of calling the model and the tools
// again: the employee's conversation is rebuilt as it was, and only the step
// that was in flight runs again.
//
// The text names its kind ({"kind": "model", ...}); decode() refuses text it
// cannot read with an error saying what was wrong, never a half-filled step.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::driver {

struct AskStep {
  enum class Kind { model, tool } kind = Kind::model;
  // model: the answer, and whether the employee reserved and settled it
  // itself (a further call of the loop) or the asker did (the first call,
  // settled with the ask's reply).
  llm::ChatResponse response;
  bool paid_by_employee = false;
  // tool: the call it answers and the result the model was given.
  std::string call_id;
  std::string tool;
  json result;
  // What the employee charged for it, in USD (a further call, a priced tool).
  double expense = 0;
};

std::string encode(const AskStep& s);
Result<AskStep> decode_ask_step(const std::string& text);

}  // namespace kaisha::driver
