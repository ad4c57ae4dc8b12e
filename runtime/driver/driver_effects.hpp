// What a strategy's pure driver and its actor say to each other.
//
// A driver (runtime/<strategy>/) holds the algorithm of one task as a plain
// class: it is fed outcomes (a model answered, a hire went through or was
// refused, an agent answered, the judge ruled, the budget was read) and
// returns effects (call a model, hire, fire, ask, audit, read the budget,
// journal a step, report progress, finish). It never waits, never touches
// CAF, a socket or a clock it was not given, so a unit test drives it with
// scripted outcomes. The strategy's actor executes effects in order through
// the strategy kit (actors/strategy_kit/strategy_kit.hpp) and feeds every answer back,
// tagged with the id of the effect that asked for it.
//
// An effect list may end the task (Finish) part-way: the actor stops
// executing the rest of the list once the task has ended, and drops the
// outcomes of a task that has ended.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "runtime/company/tool_result.hpp"
#include "runtime/core/json.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/strategy_event.hpp"
#include "runtime/judge/judge_verdict.hpp"

namespace kaisha::driver {

// Ties an outcome to the effect that asked for it; unique within a task.
using CallId = uint64_t;

// ------------------------------------------------------------------ effects

// A charged model call of the strategy's own model (decomposition,
// synthesis, a CEO turn): no hire, nothing to fire. `purpose` names it in
// errors and the journal ("decomposition", "synthesis").
struct CallModel {
  CallId id = 0;
  std::string purpose;
  llm::ChatRequest request;
  bool await_settle = false;  // the answer waits for the ledger's settlement
};

// Hires `spec` for the running task at `cost` (given back when it ends).
struct Hire {
  CallId id = 0;
  msg::AgentSpec spec;
  economy::ModelCost cost;
};

// Fires a hired agent (its resource hire cost comes back). With id 0 nobody
// waits for the answer: the actor reports the agent's leaving itself.
struct Fire {
  std::string agent;
  CallId id = 0;
};

// A charged question to a hired agent, with a fresh context of its own.
struct Ask {
  CallId id = 0;
  std::string agent;
  std::string prompt;
  std::string job;            // what the agent's journal rows are tagged with ("" = none)
  bool await_settle = false;  // the answer waits for the ledger's settlement
  // A turn (msg::AskRequest::messages): the driver's whole context for one
  // model call of the agent, and the tools offered; `prompt` is then unused
  // and the answer's reply.tool_requests are the driver's to run.
  std::vector<llm::ChatMessage> messages;
  std::vector<llm::ToolSpec> tools;
};

// Asks the judge whether `claim` by `producer` fulfils `instruction`.
struct Audit {
  CallId id = 0;
  std::string producer;
  std::string instruction;
  std::string claim;
};

// Runs a tool from the strategy's tool registry (a provider's tool, a
// memory tool) with its JSON `arguments` text, as a model's tool call would.
struct RunTool {
  CallId id = 0;
  std::string tool;
  std::string arguments;
  std::string branch;  // the pyramid's: the branch of the task's directory it runs in ("" = the directory)
  // Set by the runner, not the driver: the traceparent of the call's span,
  // for tools that call out (ToolCallContext::trace); "" = none.
  std::string trace;
  // Run it only after this many milliseconds (a retry's backoff): the actor
  // waits on its clock, never on a thread. 0 = at once.
  int64_t delay_ms = 0;
};

// Reads the budget (the ledger's GetBudget view).
struct ReadBudget {
  CallId id = 0;
};

// Retrieves the long-term memories relevant to `query` (answered by Recalled).
struct Recall {
  CallId id = 0;
  std::string query;
};

// A journal step of the running task; `agent` empty = the strategy itself.
struct Journal {
  msg::EventKind kind = msg::EventKind::note;  // one of the journaled kinds
  json payload = json::object();
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;
  std::string agent;
};

inline Journal journal_step(msg::EventKind kind, json payload, int64_t tokens_in = 0, int64_t tokens_out = 0,
                            double usd = 0, std::string agent = "") {
  return Journal{kind, std::move(payload), tokens_in, tokens_out, usd, std::move(agent)};
}

// A progress event of the running task; `agent` empty = the strategy itself.
// Drivers build chatty events only when told someone is listening.
struct Report {
  msg::EventKind kind = msg::EventKind::note;
  std::string text;
  json data = json::object();
  std::string agent;
  // What the reported work cost (an answer, a model call's usage).
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;

  Report& costing(int64_t in, int64_t out, double dollars) {
    tokens_in = in;
    tokens_out = out;
    usd = dollars;
    return *this;
  }
};

// Ends the task. `metadata` is the strategy's TaskResult metadata; the actor
// adds the task's accounting (duration, tokens) that only the kit holds.
struct Finish {
  bool ok = false;
  std::string text;
  json metadata = json::object();
};

// Answers a request the actor handed the driver besides a task's flow (a
// tool called directly, not by the strategy's model) with `value`.
struct Reply {
  uint64_t request = 0;  // the actor's ticket for the request
  json value;
};

// Saves `value` under `key` in the strategy's state (docs/strategies.md,
// "State beyond a task"), on the journal's writer in order with the task's
// steps. `change` names what made it, the same in every run of the task
// ("iteration 3"): a resumed task that makes the change again replaces that
// version instead of adding one.
struct SaveState {
  std::string key;
  json value;
  std::string change;
};

using Effect = std::variant<CallModel, Hire, Fire, Ask, Audit, RunTool, ReadBudget, Recall, Journal, Report, Finish,
                            Reply, SaveState>;
using Effects = std::vector<Effect>;

// Adds event `event` of strategy `strategy` to `out` (messages/strategy_event.hpp):
// reported as EventKind::strategy and, when `journaled`, first written as a
// note step with the same payload, so that the strategy's tree can be built
// from the journal alone.
inline void add_strategy_event(Effects& out, const std::string& strategy, const std::string& event, std::string text,
                               json data = json::object(), bool journaled = false, const std::string& agent = "") {
  json payload = msg::strategy_event_data(strategy, event, std::move(data));
  if (journaled) out.push_back(Journal{msg::EventKind::note, payload, 0, 0, 0, agent});
  out.push_back(Report{msg::EventKind::strategy, std::move(text), std::move(payload), agent});
}

// ----------------------------------------------------------------- outcomes

struct ModelAnswered {
  CallId id = 0;
  bool ok = false;
  bool refused = false;  // the ledger refused: nothing was sent to the model
  std::string error;
  llm::ChatResponse response;
  double expense = 0;            // USD
  json budget = json::object();  // after the call, when it waited for the settlement
};

struct HireAnswered {
  CallId id = 0;
  bool ok = false;
  bool refused = false;  // the ledger said no (else: no node for it)
  std::string error;
  json budget = json::object();  // the six GetBudget numbers after the hire
};

struct FireAnswered {
  CallId id = 0;
  bool ok = false;         // the ledger refunded the hire (else `error` says why)
  bool not_hired = false;  // the fire could not start: not hired, or already leaving
  std::string error;
  json budget = json::object();
};

struct AskAnswered {
  CallId id = 0;
  bool ok = false;
  bool refused = false;  // the ledger refused: the agent was not asked
  std::string error;
  msg::AskReply reply;
  double expense = 0;            // USD, including the agent's own further calls
  json budget = json::object();  // after the ask, when it waited for the settlement
};

struct JudgeRuled {
  enum class Kind { verdict, judge_failed, no_answer };
  CallId id = 0;
  Kind kind = Kind::verdict;
  planning::JudgeVerdict verdict;
  std::string error;  // judge_failed: the judge's error; no_answer: the transport's
};

struct ToolRan {
  CallId id = 0;
  company::ToolResult result;
};

struct BudgetRead {
  CallId id = 0;
  json view = json::object();  // GetBudget's keys
};

// {"injection", "transcript", "memories": [...]} (no memories: an empty
// list), or {"error": "..."} when the retrieval failed.
struct Recalled {
  CallId id = 0;
  json memories = json::object();
};

using Outcome =
    std::variant<ModelAnswered, HireAnswered, FireAnswered, AskAnswered, JudgeRuled, ToolRan, BudgetRead, Recalled>;

}  // namespace kaisha::driver
