// EmployeeToolLoop runs the tool-calling (ReAct) loop of an employee with a
// tool grant (see employee_actor.hpp for the protocol and how it is
// charged): each ask gets its own pure driver (employee/tool_loop_driver.hpp),
// whose effects this executes — model calls charged as below, the granted
// tools through the employee's registry, journal steps, progress events, the
// reply — feeding every answer back. Owned by the employee actor's state;
// every method runs on its thread. Several asks may run at once.
//
// Charging: the asker reserved the ask's first model call; when that
// reservation is smaller than the request's bound (tool schemas make it
// bigger), or for every further call, the call is reserved and settled here
// (charged_chat). The reply's usage and extra_* say what each came to.
//
// Resuming: each finished step of an ask that names its call
// (AskRequest::call) — a model answer, a tool's result — is kept, through
// the ledger behind its charge. An ask that carries kept steps
// (AskRequest::replay) feeds them to its new driver under the strategies'
// resume policy (driver/resume_policy.hpp): they are accounted as they were
// paid, not charged, journaled or reported again; from the first step not
// kept it runs as usual, noted as run again — but a tool call there that is
// not safe to repeat is answered with an error saying so.
//
// Tools that fail (tools.failures): the driver asks for a retry as a RunTool
// with a delay, which waits on the actor's clock (a delayed message, never a
// sleep) before it runs; the failed attempt is kept as its own step, so a
// resume neither runs nor charges it again. Every call goes through the
// company's circuit breakers (SourcedTools::handle_failures): a call an
// open breaker refuses is journaled and reported as a refusal, and a
// breaker's change of state is journaled as a note.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agents/employee_actor.hpp"
#include "actors/strategy_kit/sourced_tools.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/driver/ask_step.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::actors {

class EmployeeToolLoop {
 public:
  EmployeeToolLoop(caf::event_based_actor* self, msg::AgentSpec spec, EmployeeDeps deps);

  // Answers `ask` through the loop; `reply` is called exactly once.
  void ask(msg::AskRequest ask, std::function<void(msg::AskReply)> reply);
  // A source's tool result (the actor's tool_done_atom message).
  void on_tool_done(uint64_t id, company::ToolResult result);
  // The wait `wait` before a retried tool call is over (the actor's
  // (tool_atom, wait) message, sent to itself with a delay).
  void on_wait_over(uint64_t wait);

 private:
  struct Run;
  void sync();
  // Feeds the driver `o` and executes what it returns; `step` is what `o`
  // is kept as, once the rows it made are journaled.
  void feed(const std::shared_ptr<Run>& run, const driver::Outcome& o, std::optional<driver::AskStep> step);
  void execute(const std::shared_ptr<Run>& run, driver::Effects effects);
  // Whether the resume policy takes care of `e` (a kept step answers it, or
  // a tool not safe to repeat is not run again).
  bool replayed(const std::shared_ptr<Run>& run, const driver::Effect& e);
  void call_model(const std::shared_ptr<Run>& run, driver::CallModel c);
  void run_tool(const std::shared_ptr<Run>& run, const driver::RunTool& t);
  void start_tool(const std::shared_ptr<Run>& run, const driver::RunTool& t);
  void finish(const std::shared_ptr<Run>& run, const driver::Finish& f);
  // Keeps the step waiting to be kept (AskRequest::call), if any.
  void keep_pending(const std::shared_ptr<Run>& run);
  // Runs `then` once the steps kept so far are on disk, at once when the
  // run keeps none: a tool never starts before the answer that asked for it
  // is kept, so a resume knows the tool was in flight.
  void after_kept(const std::shared_ptr<Run>& run, std::function<void()> then);
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
  // Retries waiting for their backoff, by wait id: at most one per ask.
  std::map<uint64_t, std::function<void()>> waits_;
  uint64_t next_wait_ = 0;
};

}  // namespace kaisha::actors
