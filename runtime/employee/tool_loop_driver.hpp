// ToolLoopDriver: the tool-calling (ReAct) loop of an employee with tools,
// as a pure driver (driver/driver_shape.hpp's TaskDriver) for one ask.
//
// It calls the model with the conversation, runs the tool calls of each
// answer one after the other in the model's order, gives the model their
// results, and calls it again until it answers without tool calls: at most
// `max_tool_iterations` model calls and `max_malformed_tool_calls` answers
// with unreadable arguments (company::Conversation). It then finishes with
// the answer, or with what stopped it.
//
// Effects, in order: CallModel and RunTool (one at a time, ids 1, 2, 3, …
// in the order they are asked for, so effect n is the ask's step n - 1),
// Journal and Report of what came back, and one Finish:
//   Finish{ok, text}   the final answer, or "<agent> stopped before a final
//                      answer: <why>" (the loop went on past its first call,
//                      which the asker has paid for, so the ask answers).
//   Finish{!ok, error} the first model call failed: the ask fails.
// A CallModel's request carries the conversation, temperature and output
// cap but no tools: the executor offers the tools the employee has when the
// call is sent (a source may add or withdraw tools during the loop), and
// journals the request it sends. A RunTool names the tool and its
// arguments, not where it runs; tool_call(id) gives the model's call it
// answers. Outcomes of ids it does not wait for, and anything after its
// Finish, are ignored.
//
// A tool call that fails with a transient error (company/tool_error_class.hpp)
// is asked for again under `retry` when `repeatable` says the tool is safe
// to run twice: a Journal note {"tool_retry", "call_id", "attempt",
// "error_class", "delay_ms", "error"}, a Report of kind retry, and a RunTool
// of the same call with the next id and delay_ms set (the backoff less a
// jitter drawn from the task, the agent, the call's id and the attempt, so
// that a resumed loop asks for the same wait). Every attempt's result
// is journaled as a tool_result; the model is given the last one only.
//
// On a resume the executor feeds a new driver the outcomes the ask kept
// (driver/ask_step.hpp) under driver::ResumePolicy, as a strategy's runner
// does: the driver asks for the same effects with the same ids.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/company/conversation.hpp"
#include "runtime/company/tool_retry.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/driver_shape.hpp"

namespace kaisha::employee {

struct ToolLoopSettings {
  std::string agent;  // the employee's name: its journal steps and events
  // The task's id: with the agent and the call's id, the key the retries'
  // jitter is drawn from (the same on a resume).
  std::string task_id;
  std::string system_prompt;
  std::string prompt;  // the ask
  int max_tool_iterations = 10;
  int max_malformed_tool_calls = 3;
  double temperature = 0.2;
  int64_t max_output_tokens = 1024;
  // Whether anybody listens to progress events (null: nobody): the tool
  // results' events are built only then.
  std::function<bool()> listening;
  // Failed tool calls tried again (tools.failures); only tools `repeatable`
  // says are safe to run twice (null: none).
  company::ToolRetryPolicy retry;
  std::function<bool(const std::string& tool)> repeatable;
};

class ToolLoopDriver {
 public:
  explicit ToolLoopDriver(ToolLoopSettings settings);

  driver::Effects start();
  driver::Effects on(const driver::Outcome& outcome);
  // Stops the loop: it finishes with `why` as what stopped it.
  driver::Effects cancel(const std::string& why);

  // The model's tool call RunTool `id` runs (null: not one of its RunTools).
  const llm::ToolCall* tool_call(driver::CallId id) const;
  // Tool calls asked for so far (AskReply::tool_calls).
  int tool_calls() const { return tool_calls_; }
  bool finished() const { return finished_; }

 private:
  driver::Effects on_answer(const driver::ModelAnswered& a);
  driver::Effects on_tool(const driver::ToolRan& t);
  // Asks for `call` again after a transient failure, when the policy allows.
  bool retry(driver::Effects& out, const llm::ToolCall& call, const company::ToolResult& result);
  void run_tool(driver::Effects& out, const llm::ToolCall& call, int64_t delay_ms);
  // The next tool call of the answer being worked on, or the next model call.
  void next(driver::Effects& out);
  void call_model(driver::Effects& out);
  void stop(driver::Effects& out, const std::string& why);
  void finish(driver::Effects& out, bool ok, std::string text);
  bool listening() const { return settings_.listening && settings_.listening(); }

  ToolLoopSettings settings_;
  company::Conversation conversation_;
  driver::CallId last_id_ = 0;
  std::optional<driver::CallId> waiting_;  // the effect whose outcome is due
  bool waiting_model_ = false;             // a CallModel's (else a RunTool's)
  std::vector<llm::ToolCall> calls_;       // of the answer being worked on
  size_t next_call_ = 0;
  int attempt_ = 1;                                              // of the tool call being run
  std::vector<std::pair<driver::CallId, llm::ToolCall>> asked_;  // every RunTool's call
  int tool_calls_ = 0;
  bool finished_ = false;
};

static_assert(driver::TaskDriver<ToolLoopDriver>);

}  // namespace kaisha::employee
