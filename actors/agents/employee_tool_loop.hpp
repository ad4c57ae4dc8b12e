// EmployeeToolLoop: the tool-calling (ReAct) loop of an employee with a tool
// grant (see employee_actor.hpp for the protocol and how it is charged).
// Owned by the employee actor's state; every method runs on its thread.
// Several asks may run at once, each with its own conversation.
//
// Resuming: each finished step of an ask that names its call
// (AskRequest::call) — a model answer, a tool's result — is kept, through
// the ledger behind its charge. An ask that carries kept steps
// (AskRequest::replay) is fed them in place of the model and the tools, and
// they are accounted as they were paid, not charged again; from the first
// step not kept it runs as usual, once, journaled as run again — but a tool
// call there that is not safe to repeat is answered with an error saying so.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agents/employee_actor.hpp"
#include "actors/strategy_kit/sourced_tools.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/driver/ask_step.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::actors {

class EmployeeToolLoop {
 public:
  EmployeeToolLoop(caf::event_based_actor* self, msg::AgentSpec spec, EmployeeDeps deps);

  // Answers `ask` through the loop; `reply` is called exactly once.
  void ask(msg::AskRequest ask, std::function<void(msg::AskReply)> reply);
  // A source's tool result (the actor's tool_done_atom message).
  void on_tool_done(uint64_t id, company::ToolResult result);

 private:
  struct Run;
  void sync();
  void call_model(const std::shared_ptr<Run>& run);
  void on_answer(const std::shared_ptr<Run>& run, const llm::ChatResponse& response);
  void run_calls(const std::shared_ptr<Run>& run, size_t i);
  void stop(const std::shared_ptr<Run>& run, const std::string& why);
  void deliver(const std::shared_ptr<Run>& run, msg::AskReply reply);
  // Keeps `step` of the ask for a resume (AskRequest::call).
  void keep(const std::shared_ptr<Run>& run, driver::AskStep step);
  // Runs `then` once the steps kept so far are on disk, at once when the
  // run keeps none: a tool never starts before the answer that asked for it
  // is kept, so a resume knows the tool was in flight.
  void after_kept(const std::shared_ptr<Run>& run, std::function<void()> then);
  // Leaves the kept steps: journals `note` (what runs again, or is not).
  void resume_live(const std::shared_ptr<Run>& run, json note);
  void journal(const std::shared_ptr<Run>& run, msg::EventKind kind, json payload, int64_t in = 0, int64_t out = 0,
               double usd = 0);
  void emit(const std::shared_ptr<Run>& run, msg::EventKind kind, const std::string& text, json data);

  caf::event_based_actor* self_;
  msg::AgentSpec spec_;
  EmployeeDeps deps_;
  economy::ModelCost cost_;  // the further calls' prices (no resource hold)
  company::ToolRegistry registry_;
  std::unique_ptr<SourcedTools> sourced_tools_;
  company::ToolGrant visible_;   // the registry's tools: anything else gets the grant listing
  SourcedTools::CallSite site_;  // of the tool call being started
};

}  // namespace kaisha::actors
