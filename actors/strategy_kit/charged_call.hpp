// One model call paid for through the ledger: reserve the worst case, call
// the model client, then settle the real usage (or release the hold when the
// call failed). Every agent that talks to a model itself — CEO, planner,
// judge — goes through this, so no model call escapes the budget.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/config/config.hpp"
#include "runtime/core/json.hpp"
#include "runtime/economy/budget_summary.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

// How long an actor waits for one model call: long enough for every retry
// of the slowest provider call. A hung call still ends first through the
// provider's own per-attempt timeout.
std::chrono::milliseconds model_call_timeout(const config::Config& c);

// The output cap a charged call is sent with when its request names none.
inline constexpr int64_t kDefaultMaxOutputTokens = 4096;

// The kept record (driver/replay_log.hpp) a call's charge is journaled with,
// in one commit: the outcome of call `call` of its task (step -1), or step
// `step` of the tool loop of that task's ask `call`. A crash then leaves both
// or neither, so a resume never pays again for a call whose answer it has.
// call 0: none; the charge is journaled on its own, with the next batch.
struct KeptWith {
  int64_t call = 0;
  int64_t step = -1;
};

struct ChargedCall {
  caf::actor ledger;
  caf::actor model_client;
  std::chrono::milliseconds timeout{600000};
  economy::ModelCost cost;  // prices the call is charged at
  std::string agent;        // who pays, for the ledger entries
  std::string task_id;
  std::string model_ref;
  // Its llm::input_token_bound() and max_tokens (set to
  // kDefaultMaxOutputTokens when absent, and sent) make the reservation.
  llm::ChatRequest request;
  // false: `done` runs as soon as the settlement is sent, without waiting for
  // the ledger's answer (one round trip less); the ledger still applies it
  // before anything this actor sends it afterwards. The result's `budget` is
  // then empty.
  bool await_settle = true;
  // The traceparent of the span this call belongs under; "" = the task's root.
  std::string trace;
  KeptWith kept;
};

struct ChargedCallResult {
  bool ok = false;
  bool refused = false;  // the ledger refused: nothing was sent to the model
  std::string error;     // refusal text or the failure
  llm::ChatResponse response;
  double expense = 0;             // USD charged for this call
  economy::BudgetSummary budget;  // the six GetBudget numbers after the call
};

// Runs on `self`'s thread; `done` is called exactly once, in `self`'s context.
void charged_chat(caf::event_based_actor* self, ChargedCall call, std::function<void(ChargedCallResult)> done);

// The same for a question to an employee, who makes the model call.
struct ChargedAsk {
  caf::actor ledger;
  caf::actor employee;
  std::chrono::milliseconds timeout{600000};
  economy::ModelCost cost;  // the employee's prices
  std::string agent;        // the employee's name
  // ask.max_output_tokens and ask.input_token_bound (llm::ask_input_token_bound
  // of the employee's system prompt and the prompt) make the reservation.
  msg::AskRequest ask;
  bool await_settle = true;  // as in ChargedCall
  KeptWith kept;             // as in ChargedCall
};

struct ChargedAskResult {
  bool ok = false;
  bool refused = false;  // the ledger refused: the employee was not asked
  std::string error;
  msg::AskReply reply;
  double expense = 0;
  economy::BudgetSummary budget;
};

void charged_ask(caf::event_based_actor* self, ChargedAsk ask, std::function<void(ChargedAskResult)> done);

}  // namespace kaisha::actors
