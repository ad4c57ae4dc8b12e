// DriverRunner executes a pure driver's effects (runtime/driver/) through the
// strategy kit and feeds every answer back to the driver, so a strategy actor
// only says what is its own: whose model a CallModel calls, how a hired agent
// runs, what finishing means, which tools it has, where memories come from.
//
// Effects run in order, in a scope: the running task's, or a direct request's
// (a tool called from outside the task's flow). A task's effects stop once
// the task has ended (a Finish, a cancel, a failed hire), and answers that
// arrive for a task that has ended are dropped; a direct request's run and
// are answered whatever the task does. Every callback runs on the actor's
// thread. The runner lives in the actor's state next to the kit and must not
// outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/strategy_kit/strategy_kit.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/replay_log.hpp"
#include "runtime/driver/resume_policy.hpp"
#include "runtime/telemetry/reported_tool_spans.hpp"

namespace kaisha::actors {

struct DriverHooks {
  // The driver: takes an outcome, returns what to do next.
  std::function<driver::Effects(const driver::Outcome&)> feed;
  // Whose model a CallModel calls, and who pays.
  std::function<ModelRole(const driver::CallModel&)> model_role;
  // How a hired agent runs (its EmployeeDeps) and how long it stays.
  std::function<EmployeeDeps(const msg::AgentSpec&)> run_as;
  Tenure tenure = Tenure::task;
  // Ends the task (the strategy adds what it reports, then kit.finish).
  std::function<void(driver::Finish)> finish;
  // Runs a tool for RunTool; null: a RunTool fails the task.
  std::function<void(const driver::RunTool&, std::function<void(company::ToolResult)>)> run_tool;
  // Whether a RunTool of `tool` in flight when the process died may run
  // again on a resume (ToolSource::repeatable). Null: the tool's spec file
  // says (company::repeatable_tool).
  std::function<bool(const std::string& tool)> repeatable;
  // Starts a memory retrieval for task `tid`; its answer comes back through
  // answer(tid, Recalled). Null: a Recall fails the task.
  std::function<void(const driver::Recall&, const std::string& tid)> recall;
  // Answers a direct request. Null: a Reply fails the task.
  std::function<void(driver::Reply)> reply;
  // Saves a key of the strategy's state (kit.save_state). Null: a SaveState
  // fails the task.
  std::function<void(driver::SaveState)> save_state;
  // Whether a tool of the driver's own invokes an agent (its span is then the
  // agent's turn, not a tool call). Null: none does.
  std::function<bool(const std::string& tool)> invokes_agent;
};

class DriverRunner {
 public:
  DriverRunner(caf::event_based_actor* self, StrategyKit& kit, DriverHooks hooks);

  // Executes `effects` for the running task.
  void run(driver::Effects effects);
  // Executes `effects` for a direct request, whatever the task does.
  void run_direct(driver::Effects effects);
  // Feeds `o` to the driver while task `tid` runs, and runs what it returns
  // (for answers that reach the actor as messages).
  void answer(const std::string& tid, driver::Outcome o);

  // Resumes the running task after the process that ran it died
  // (driver/replay_log.hpp). `start` is what its driver, started again,
  // asks first. Every effect `log` holds an outcome for is left out, and the
  // driver is fed those outcomes in their order, accounted to the task as
  // when they came; an effect with none runs now and is journaled as run
  // again — but a tool not marked safe to repeat (company::repeatable_tool)
  // answers with an error saying so instead. A hire or fire the ledger
  // already made is adopted, not repeated.
  // An ask run again is given the steps its employee's tool loop kept
  // (driver/ask_step.hpp). The replayed part's journal steps and progress
  // are not written twice.
  void resume(driver::Effects start, std::shared_ptr<driver::ReplayLog> log);

  // Outcome `id`'s number within the running task (its effect's id counted
  // from the task's first effect, as the journal keeps it): the same in
  // every run of the task, so what the outcome changes can be named by it.
  driver::CallId task_call(driver::CallId id) const { return id - numbering_.base; }

  // A RunTool's delay (a retry's backoff) is over: its tool runs now, unless
  // its task has ended meanwhile. The wait holds no thread: the actor gets
  // (tool_atom, wait) from delayed_send and hands it here (wait_handler in
  // task_handlers.hpp).
  void on_wait_over(uint64_t wait);

 private:
  struct Scope {
    std::string tid;
    bool direct = false;
  };

  bool live(const Scope& s) const;
  void run(driver::Effects effects, const Scope& s);
  void execute(const Scope& s, driver::Effect& e);
  void answer(const Scope& s, driver::Outcome o);
  // Whether `e` of the task being resumed is taken care of by its log (and
  // must not be executed).
  bool replayed(const Scope& s, driver::Effect& e);
  // How ask `id` of scope `s` keeps its employee's loop (a task's asks only).
  AskKeeping keeping(const Scope& s, driver::CallId id);
  // The kept outcome the charges of effect `id` are journaled with.
  KeptWith kept_with(const Scope& s, driver::CallId id);

  caf::event_based_actor* self_;
  StrategyKit& kit_;
  DriverHooks hooks_;
  // The running task's numbering: every outcome is kept, numbered from 0
  // (from the log's size for a resumed task), with its effect's id made
  // relative to the task's first effect (`base` is one less than its id).
  struct Numbering {
    std::string tid;
    bool based = false;
    driver::CallId base = 0;
    int64_t kept = 0;
  };
  Numbering& numbering(const std::string& tid);
  Numbering numbering_;
  // The task being resumed, its log, and whether its outcomes are being fed.
  std::shared_ptr<driver::ReplayLog> replay_;
  std::unique_ptr<driver::ResumePolicy> policy_;  // what the resumed task's effects do
  std::string replay_tid_;
  bool replaying_ = false;
  std::vector<driver::Outcome> deferred_;  // fed once the kept outcomes have been
  // The spans of tool calls the driver reports (its own tools, and the
  // RunTools it asks for, which claim theirs).
  telemetry::ReportedToolSpans tool_spans_;
  // RunTools waiting for their delay, by wait number (one per tool call in flight).
  uint64_t next_wait_ = 0;
  std::map<uint64_t, std::function<void()>> waits_;
};

}  // namespace kaisha::actors
