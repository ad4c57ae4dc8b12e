// HiVA's environment for a task set (hiva.md §2, §14 item 11): it judges an
// answer to one of the set's items by the item's format, as one of the
// paper's four kinds of environment —
//   unit_tests   (code): the item's tests run on the program in the sandbox;
//   interactive  (interactive): the scripted episode, played from its first
//                turn with the episode's answers so far;
//   math         (numeric, latex): the maths checker;
//   metric       (exact, multiple_choice, f1): the data metric.
// The answer matchers are the evaluation's (item_judge.hpp), so `kaisha
// evolve` and `kaisha eval` judge alike.
//
// Request: {"item": id, "answer": str, "answers"?: [str]} ("answers": an
// interactive episode's answers so far, the last being "answer").
// Answer: success with output {"kind", "text", "success" (bool or null),
// "score"?, "continues"}; "continues" is true while an interactive episode
// goes on (then "text" is its next observation). An error when the item is
// not in the set, a field has the wrong type, or the item could not be
// judged (the sandbox failed, a broken script) — which is not a wrong answer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "runtime/driver/environment.hpp"
#include "runtime/hiva/tools/hiva_tool_names.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::hiva {

// The kind of environment that judges an item of this format.
std::string_view environment_kind(std::string_view format);

class TaskSetEnvironment final : public driver::Environment {
 public:
  // `items` by id; `timeout_s` bounds each test run (App. G.2).
  TaskSetEnvironment(std::map<std::string, suite::SuiteItem> items, int64_t timeout_s);

  std::string name() const override { return kEnvironmentTool; }
  company::ToolResult judge(const json& request) override;

 private:
  const std::map<std::string, suite::SuiteItem> items_;
  const int64_t timeout_s_;
};

}  // namespace kaisha::hiva
