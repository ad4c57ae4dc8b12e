// The strategy kit: what every strategy actor (the CEO for hashiru, the
// planner for effgen, and the strategies to come) does the same way, so a
// strategy actor only says what its algorithm wants done.
//
//   task scope   one task at a time: its progress events and journal steps
//                (tagged with the task), its accounting (tokens, $), and its
//                end — journaled, reported, and answered only once the fires
//                it sent are answered by the ledger.
//   hire / fire  the one path for agents: placement check → ledger → placement
//                → journal → roster, and back for a fire (ledger → stop →
//                journal → roster).
//   ask          a charged question to a hired agent.
//   call_model   a charged model call in a role (the strategy's own model):
//                no hire, nothing to fire.
//   audit        the judge's verdict on a claimed result, as the planning
//                layer's JudgeVerdict.
//
// Hiring is not invoking. An agent that persists — a HASHIRU employee, a
// pyramid agent, a HALO role, a HiVA graph node — is hired once (per task or
// per session) and asked many times, each ask with a fresh context. A
// transient call — a rollout, a refinement prompt, a decomposition — is
// call_model(), a charged model call, not a hire. So create costs are paid per
// agent, never per call.
//
// The kit installs the actor's exit handler: told to exit, the actor stops
// every agent it hired (they are not linked to it), then quits.
//
// Every method runs on the owning actor's thread; every `done` is called once
// (audit's only while its task runs), in the actor's context. Results for a task that has ended meanwhile still
// arrive: check current(tid) before acting on them. The kit lives in the
// actor's state and must not outlive or move away from it (callbacks hold it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/typed_response_promise.hpp>

#include "runtime/telemetry/span.hpp"
#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/agents/employee_actor.hpp"
#include "actors/agents/employee_placer.hpp"
#include "runtime/company/agent_roster.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/replay_log.hpp"
#include "runtime/config/config.hpp"
#include "runtime/economy/budget_summary.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/messages/agent_messages.hpp"
#include "runtime/judge/audit_loop.hpp"

namespace kaisha::actors {

struct KitDeps {
  caf::actor ledger;
  caf::actor model_client;
  caf::actor journal;
  caf::actor judge;  // may be invalid: no audits
  std::shared_ptr<company::ProgressSink> progress;
  std::shared_ptr<EmployeePlacer> placer;  // null: agents run in this process
  config::Config config;
  std::string session_id;
  std::string agent;  // the strategy's own name in steps and events ("CEO", "Planner")
  std::string who;    // how errors name it ("the CEO", "the planner")
};

// The kit's deps out of a strategy actor's own (CeoDeps, PlannerDeps, ...),
// which name these members alike.
template <class StrategyDeps>
KitDeps kit_deps_of(const StrategyDeps& d, std::string agent, std::string who) {
  return KitDeps{d.ledger, d.model_client, d.journal,    d.judge,          d.progress,
                 d.placer, d.config,       d.session_id, std::move(agent), std::move(who)};
}

// What every task carries, whatever the strategy.
struct TaskScope {
  std::string id;
  caf::typed_response_promise<msg::TaskResult> promise;
  int64_t started_ms = 0;  // steady_ms(): durations only
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;  // USD: the task's model calls, asks and hires
  bool canceled = false;
  telemetry::Span span;  // the task's root span (empty when tracing is off)
};

// How long a hired agent stays: for the task that hired it (its hire is given
// back if that task ends before the ledger answers, and it leaves even when
// the ledger refuses its fire), or for the session (until fired).
enum class Tenure { task, session };

// A model as a role the strategy calls it in, and who pays for the call.
struct ModelRole {
  std::string agent;      // who pays, in the ledger and the journal
  std::string model_ref;  // what is called
  economy::ModelCost cost;
};

struct HireResult {
  bool ok = false;
  bool refused = false;  // the ledger said no (else: no node, or the task ended)
  std::string error;
  economy::BudgetSummary budget;  // after the hire (when the ledger answered)
};

// How an ask's tool loop is kept for a resume (AskRequest::call, replay):
// the ask's number in its task, and the steps kept by a run that died.
struct AskKeeping {
  int64_t call = 0;
  std::vector<std::string> replay;
};

// The judge's verdict, or why there is none.
struct AuditOutcome {
  enum class Kind { verdict, judge_failed, no_answer } kind = Kind::verdict;
  planning::JudgeVerdict verdict;
  std::string error;  // judge_failed: its error information; no_answer: the transport's error
};

class StrategyKit {
 public:
  StrategyKit(caf::event_based_actor* self, KitDeps deps);

  const KitDeps& deps() const { return deps_; }

  // ------------------------------------------------------------ task scope

  // Starts task `req` (reports "task"); false, with `promise` answered, while
  // another task is running.
  bool start(const msg::TaskRequest& req, caf::typed_response_promise<msg::TaskResult> promise);
  bool running() const { return task_.has_value(); }
  bool current(const std::string& tid) const { return task_ && task_->id == tid; }
  // The running task's id, or "" between tasks.
  const std::string& task_id() const;
  // Marks the running task `tid` canceled and journals why; false when `tid`
  // is not the running task. The strategy then finishes it.
  // `failed`: the task ends as failed (with `why`), not as canceled.
  bool cancel(const std::string& tid, const std::string& why, bool failed = false);

  // Whether anybody watches progress: hot paths skip building events otherwise.
  bool listening() const;
  // A progress event / journal step of the running task; `agent` empty = the
  // strategy. emit(e) fills in the event's session, task, time and (when
  // empty) agent.
  void emit(msg::EventKind kind, const std::string& text, json data = json::object(),
            const std::string& agent = "") const;
  void emit(msg::ProgressEvent e) const;
  void step(msg::EventKind kind, json payload, int64_t in = 0, int64_t out = 0, double usd = 0,
            const std::string& agent = "") const;
  // Adds what a call or hire cost to task `tid`, if it is still running.
  void account(const std::string& tid, const llm::Usage& u, double usd);

  // The running task's result so far: its accounting and duration, ok and text.
  msg::TaskResult result(bool ok, const std::string& text) const;
  // Ends the running task with `r`: journaled, reported (final, canceled
  // or "error"), and answered once the ledger has answered every fire sent
  // for it — and with them every settlement sent before, so the caller's
  // journal sync finds all the task's rows.
  void finish(msg::TaskResult r);
  void finish(bool ok, const std::string& text) { finish(result(ok, text)); }
  // The same for a driver's Finish, with the metadata every strategy
  // reports: the driver's, plus the task's accounting (execution_time_ms,
  // total_tokens). With `note`, the metadata is journaled first as the
  // task's closing note, leaving out the keys `note->omit` names.
  struct ClosingNote {
    std::vector<std::string> omit;
  };
  void finish(driver::Finish f, const std::optional<ClosingNote>& note);

  // Installs the actor's exception handler (handler_failure.hpp): a finished
  // task's answer goes out now, the running task fails with the reason, every
  // hired agent is stopped; `also` answers whatever else the actor holds.
  void fail_on_exception(std::function<void(const std::string& why)> also = {});

  // ---------------------------------------------------------- hire / fire

  // The base every hired agent's EmployeeDeps start from (employee_deps_from).
  EmployeeDeps employee_deps() const;
  // Hires `spec` at `cost`: a cluster without room refuses first; the name is
  // held in the roster while the ledger decides; the hire's create expense is
  // accounted to the task; then the agent is placed (a placement that fails
  // gives the hire back), journaled and listed.
  void hire(msg::AgentSpec spec, economy::ModelCost cost, Tenure tenure, EmployeeDeps run_as,
            std::function<void(HireResult)> done);
  // An agent hired in an earlier run of the session (already paid for): listed
  // and started again; listed only when it cannot start.
  void rehire(const msg::AgentSpec& spec, const economy::ModelCost& cost, EmployeeDeps run_as);
  // A hire the ledger already charged in a run of the task that died
  // (driver/replay_log.hpp): listed and started again, nothing charged, the
  // create expense accounted to the task as when it was made. Nothing when
  // `spec.name` is already hired.
  void adopt(const msg::AgentSpec& spec, const economy::ModelCost& cost, Tenure tenure, EmployeeDeps run_as);
  // A fire the ledger already refunded in a run of the task that died:
  // `name` is stopped and unlisted, nothing refunded again.
  void dismiss(const std::string& name);
  // Fires `name`: the ledger refunds its hire; then it is stopped, journaled
  // and unlisted (a session agent whose fire the ledger refuses stays).
  // `done` gets the ledger's answer (ok=false with the error when it did not
  // answer). False, and no `done`, when `name` is not hired or already leaving.
  bool fire(const std::string& name, std::function<void(bool ok, std::string error, economy::BudgetSummary)> done);
  // Stops every hired agent at once (the actor is stopping): no ledger, no journal.
  void stop_all(const caf::error& reason);

  const company::AgentRoster& roster() const { return roster_; }
  // Whether `name` is hired and running (and so can be asked).
  bool hired(const std::string& name) const { return staff_.count(name) > 0; }

  // ----------------------------------------------------- ask / call / audit

  // Asks hired agent `name` (one that is not: an error result) for the running task;
  // `job` and `keeping` as in AskRequest. On success the task is accounted with everything
  // the ask cost, and `expense` includes what the agent's own further calls
  // and tools came to (AskReply::extra_*).
  void ask(const std::string& name, const std::string& prompt, const std::string& job, bool await_settle,
           AskKeeping keeping, std::function<void(ChargedAskResult)> done);
  // The same for a turn (AskRequest::messages): one model call of `name`'s
  // with `messages` and `tools`; the reply's tool_requests are the caller's to run.
  void ask_turn(const std::string& name, std::vector<llm::ChatMessage> messages, std::vector<llm::ToolSpec> tools,
                const std::string& job, bool await_settle, KeptWith kept, std::function<void(ChargedAskResult)> done);
  // A charged model call in `role` for the running task; `request` and
  // `kept` as in ChargedCall. On success the task is accounted.
  void call_model(const ModelRole& role, llm::ChatRequest request, bool await_settle, KeptWith kept,
                  std::function<void(ChargedCallResult)> done);
  // Keeps outcome number `seq` of task `tid` in the journal (encoded there,
  // off this actor's thread). It goes through the ledger, after every charge
  // this actor sent before it, so a kept outcome is never one whose charge
  // was lost.
  void keep_outcome(const std::string& tid, int64_t seq, std::shared_ptr<driver::Outcome> outcome) const;
  // Journals the task's end, with the charges the ledger still holds for it
  // (its last call, whose outcome is kept after the end; calls whose answers
  // will not be kept), in one commit.
  void journal_finish(const msg::TaskResult& r) const;

  // Calls `tool` of `source` for the running task (ToolSource::call, which
  // may answer on any thread); `done` runs on the actor's thread. The actor's
  // behavior includes tool_handler().
  void call_tool(company::ToolSource& source, const std::string& tool, const json& args,
                 const company::ToolCallContext& ctx, std::function<void(company::ToolResult)> done);
  // A driver's RunTool of `source`'s tool, called in the strategy's name
  // (KitDeps::agent) for the running task: an error result at once when its
  // arguments are not JSON, else call_tool.
  void run_tool(company::ToolSource& source, const driver::RunTool& t, std::function<void(company::ToolResult)> done);
  // The handler that brings call_tool's answers back: (kit_tool_atom, ticket, ToolResult).
  auto tool_handler() {
    return [this](kit_tool_atom, uint64_t ticket, company::ToolResult& r) { tool_answered(ticket, std::move(r)); };
  }

  // ------------------------------------------- state beyond one task

  // Saves `value` as the new version of `strategy`'s `key` (store::StateRow),
  // made by change `change` of the running task, on the journal's writer in
  // order with the task's steps (so before its end). Saved again (a resumed
  // task's replay), a change stays one version.
  void save_state(const std::string& strategy, const std::string& key, json value, const std::string& change) const;
  // `strategy`'s latest state, read on the journal's writer; the actor takes
  // no other message until `done` has run. Nothing without a journal, or
  // when it cannot be read (said on stderr).
  void load_state(const std::string& strategy, std::function<void(std::vector<driver::StateValue>)> done);
  // Asks the judge whether `claim` by `producer` fulfils `instruction`;
  // `done` runs only while the task is still running.
  // The judge's charges for it go with the outcome of call `kept_call`.
  void audit(const std::string& producer, const std::string& instruction, const std::string& claim, int64_t kept_call,
             std::function<void(AuditOutcome)> done);

 private:
  void tool_answered(uint64_t ticket, company::ToolResult r);

  struct Hired {
    caf::actor actor;
    economy::ModelCost cost;
    Tenure tenure = Tenure::session;
    bool leaving = false;  // its fire is with the ledger
  };
  // The fires of one task the ledger has not answered yet, and its answer
  // waiting for them (see finish).
  struct Fires {
    size_t in_flight = 0;
    std::function<void()> then;
  };

  void send_ask(const std::string& name, msg::AskRequest ask, int64_t input_token_bound, bool await_settle,
                KeptWith kept, std::function<void(ChargedAskResult)> done);
  Result<caf::actor> place(const msg::AgentSpec& spec, const EmployeeDeps& run_as);
  // Places an agent already paid for and lists it as running (rehire, adopt).
  Status start_paid(const msg::AgentSpec& spec, const economy::ModelCost& cost, Tenure tenure,
                    const EmployeeDeps& run_as);

  caf::event_based_actor* self_;
  KitDeps deps_;
  std::chrono::milliseconds call_timeout_;
  std::optional<TaskScope> task_;
  std::shared_ptr<Fires> fires_;        // the running task's
  std::shared_ptr<Fires> finishing_;    // a finished task's, while its answer waits
  company::AgentRoster roster_;         // hired and being hired (the name is held)
  std::map<std::string, Hired> staff_;  // hired and running
  // call_tool's calls in flight, by ticket.
  std::map<uint64_t, std::function<void(company::ToolResult)>> tool_calls_;
  uint64_t last_tool_ticket_ = 0;
};

}  // namespace kaisha::actors
