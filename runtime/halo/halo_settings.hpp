// HALO's settings (halo.md §9, §12 items 5, 7–9, 16, 20): what the `halo:`
// section of a config file sets (runtime/halo/entry reads it). The defaults
// are the paper's and its reference code's; the caps are the ones the
// reference lacks.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/answers/equivalence.hpp"
#include "runtime/halo/search/search_settings.hpp"

namespace kaisha::halo {

// What a subtask's answer is compared and returned as (halo.md §7, §8 item
// 11): the text itself, or the choice (A-D) or the final formula an answer
// parser reads out of it with one more model call per subtask.
enum class AnswerFormat { text, multiple_choice, math };

struct HaloSettings {
  // The backbone every HALO call uses (refinement, planner, role design,
  // prompt builders, role agents, judge, scorer): a model ref or cost-table
  // name; "" = ceo.model.
  std::string model;
  double temperature = 0.8;
  int64_t max_tokens = 2048;
  uint64_t seed = 10;  // the rollouts' random streams and the model's sampling seed

  bool use_prompt_refinement = true;  // off: P1 only, Q* = the raw query (item 5)
  bool use_planner = true;            // off: one subtask, Q* itself, no planner call (item 9)
  int max_subtasks = 5;               // K (item 7)
  int max_roles = 5;                  // roles the role designer may name per subtask; more are dropped

  AnswerFormat answer_format = AnswerFormat::text;

  // Item 21: the role agents may run Python in the sandbox (the built-in
  // PythonSandboxTool), off by default as in the paper's setup but for code
  // tasks. A node's agent then answers after at most max_tool_rounds rounds of
  // tool calls (each round one more ask of the agent).
  bool code_tool = false;
  int max_tool_rounds = 3;

  // Early stop over the subtasks' answers (item 8).
  answers::Equivalence equivalence = answers::Equivalence::bleu;
  double consistency_threshold = 0.66;

  // The answer when K subtasks end without a stop or an agreement (item 19).
  std::string failure_answer = "Failed to complete the task";

  SearchSettings search;  // one search per subtask (items 10–17)

  // Hard caps per task; 0 = none. When one is reached the best answer so far
  // is returned and the reason is journaled.
  int64_t max_model_calls = 0;
  double max_usd = 0;
  // The resource units the task's role agents may hold at once (each holds
  // its hire's create cost until the task ends).
  double max_resource_units = 0;
};

}  // namespace kaisha::halo
