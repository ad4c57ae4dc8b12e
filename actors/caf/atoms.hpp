// CAF atoms and the message types actors exchange inside one process. Only
// actor implementation files include this header: CAF stays out of runtime/
// and out of the CLI (compile time, and the later move to CAF 1.x).
#pragma once

#include <functional>
#include <memory>

#include <caf/all.hpp>

#include "runtime/company/tool_result.hpp"
#include "runtime/driver/ask_step.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::store {
class JournalStore;
}
namespace kaisha::driver {
class ReplayLog;
}

namespace kaisha::actors {

using ask_atom = caf::atom_constant<caf::atom("ask")>;
using task_atom = caf::atom_constant<caf::atom("task")>;
using chat_atom = caf::atom_constant<caf::atom("chat")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using journal_atom = caf::atom_constant<caf::atom("journal")>;
using sync_atom = caf::atom_constant<caf::atom("sync")>;
using hire_atom = caf::atom_constant<caf::atom("hire")>;
using fire_atom = caf::atom_constant<caf::atom("fire")>;
using reserve_atom = caf::atom_constant<caf::atom("reserve")>;
using settle_atom = caf::atom_constant<caf::atom("settle")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;
using budget_atom = caf::atom_constant<caf::atom("budget")>;
using raise_atom = caf::atom_constant<caf::atom("raise")>;
using switch_atom = caf::atom_constant<caf::atom("switch")>;
using restore_atom = caf::atom_constant<caf::atom("restore")>;
using tool_atom = caf::atom_constant<caf::atom("tool")>;
using audit_atom = caf::atom_constant<caf::atom("audit")>;
using tool_done_atom = caf::atom_constant<caf::atom("tooldone")>;
// A tool the strategy kit called for its actor has answered (StrategyKit::call_tool).
using kit_tool_atom = caf::atom_constant<caf::atom("kittool")>;
// A task resumed after its process died (driver/replay_log.hpp); an
// outcome a driver was fed, for the journal.
using resume_atom = caf::atom_constant<caf::atom("resume")>;
using outcome_atom = caf::atom_constant<caf::atom("outcome")>;
using ask_step_atom = caf::atom_constant<caf::atom("ask_step")>;
// Memories a strategy's Recall asked for have come (the task's id, the
// call's id, the injection payload).
using recall_atom = caf::atom_constant<caf::atom("recall")>;
// A request for a strategy's environment actor (agents/environment_actor.hpp).
using environment_atom = caf::atom_constant<caf::atom("environ")>;

// A unit of work for the single SQLite writer.
using JournalOp = std::function<void(store::JournalStore&)>;

// The ledger actor's answer to hire/fire/reserve/raise: ok, or the exact
// refusal text; `budget` holds the six GetBudget numbers after the operation
// (numbers, not JSON: two replies per model call), and `view` the full
// GetBudget JSON for a budget_atom request only.
struct LedgerReply {
  bool ok = true;
  std::string error;
  economy::AskReservation reservation;
  economy::BudgetSummary budget;
  json view;
};

}  // namespace kaisha::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::actors::JournalOp)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<kaisha::driver::ReplayLog>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<kaisha::driver::Outcome>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<kaisha::driver::AskStep>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::actors::LedgerReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::economy::ModelCost)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::economy::AskReservation)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::AgentSpec)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::AskRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::AskReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::TaskRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::TaskResult)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::LlmCall)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::LlmResult)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::AuditRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::AuditVerdict)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::json)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::company::ToolResult)
