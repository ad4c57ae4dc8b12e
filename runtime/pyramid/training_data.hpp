// D(B_main), InfiAgent's training data (infiagent.md §3.11, Eq. 13; §10
// item 53): the validated operations of a pyramid task's main branch, one
// record per agent call — its instruction, its actions (tool calls with
// their arguments and results), its result and the judge's verdict.
//
// A call is on the main branch when it ran on no branch, or its branch was
// merged; it is validated when the judge's last verdict on it approved it and
// the call ended in success. Everything is read from the task's journal steps
// (runtime/pyramid/pyramid_driver.cpp writes them): nothing else is needed,
// so a journal made by any earlier kaisha can be exported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/strategy/task_tree.hpp"

namespace kaisha::pyramid {

struct TrainingRecord {
  struct Action {
    std::string tool;
    std::string arguments;  // as the model gave them (JSON text)
    std::string result;     // as the tool answered ("" when the journal holds none)
  };
  // The tool calls of one model turn, in their order.
  using Turn = std::vector<Action>;

  std::string task_id;
  int64_t call = 0;
  std::string agent;  // the library's agent ("coder_agent")
  std::string staff;  // who ran the call ("coder_agent__2", a candidate's employee)
  std::string model;  // the model ref that ran it; "" when the journal does not say
  std::string instruction;
  std::vector<Turn> turns;
  json result;   // the call's final_output, without the judge's verdict the runtime attaches
  json verdict;  // the judge's last verdict on the call
  // Verdicts that rejected the call before the approval. The actions of
  // every attempt stay in the record: together they are what led to the
  // approved result.
  int rejections = 0;
  int64_t at = 0;  // when the call answered, ms since the epoch

  // One line of chat-format JSONL, as fine-tuning tools read it:
  // {"messages": [user: the instruction, then per turn an assistant message
  // with its tool calls and a tool message per result, and last an assistant
  // message calling final_output with the result]}. `with_metadata` adds
  // "metadata" (task, call, agent, staff, model, verdict, rejections, at)
  // beside them.
  json chat(bool with_metadata) const;
};

// The validated main-branch records of `agent`'s calls in one task's steps,
// in the order the calls answered. `agent` "" takes every agent's.
std::vector<TrainingRecord> main_branch_records(const std::vector<strategy::TaskStep>& steps,
                                                const std::string& task_id, const std::string& agent);

}  // namespace kaisha::pyramid
