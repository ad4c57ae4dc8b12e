// The ledger actor owns a session's Budget (the HASHIRU resource and expense
// ledgers) and is the one place that changes it: every change is journaled
// as a ledger entry with the budget state after it, so spend survives a
// restart. Hires, fires, tools' create and delete costs and raises are
// committed before they are answered; a change the journal cannot commit is
// answered as a refusal saying so (and a hire or a tool's creation is not
// made). Settlements and releases, one or two per model call, are answered
// at once and committed with the record that keeps the call's answer (see
// below), or with the journal's next batch (within ~2 ms) when none will.
// Reservations make concurrent asks unable to overshoot a budget; a hold is
// not journaled (after a restart nothing is in flight).
//
// Protocol (every reply is a LedgerReply; `budget` holds the six GetBudget
// numbers after it):
//   (hire_atom, ModelCost, agent, task)            charge both create costs or refuse
//   (fire_atom, ModelCost, agent, task)            refund create_resource_cost
//   (reserve_atom, ModelCost, est_in, max_out, agent, task)  hold a call's worst case
//   (settle_atom, AskReservation, in, out, agent, task, kept_call, kept_step)
//        charge the actual call
//   (cancel_atom, AskReservation, agent, task, kept_call, kept_step)
//        release a call that did not happen
//        A settlement or release of a task's call with kept_call != 0 (KeptWith,
//        charged_call.hpp) is held, rows and budget, until the kept record it names
//        reaches the ledger, and journaled in one commit with it; the budget state
//        journaled meanwhile leaves it out (every ledger's held settlements, when
//        sessions share one Budget). Held rows are journaled with the task's end, at
//        (done_atom), when the ledger exits, or on their own past 4,096 rows.
//   (reserve_atom, tool_atom, ModelCost, agent, task)        hold one tool call's declared
//        cost (ModelCost.name = the tool, invoke_resource_cost, invoke_expense_cost = USD)
//   (settle_atom | cancel_atom, tool_atom, AskReservation, agent, task)  charge / release it
//   (hire_atom, tool_atom, ModelCost, agent, task)  charge a created tool's declared create
//        costs (ModelCost.name = the tool) or refuse, like a hire but counting no agent
//   (fire_atom, tool_atom, ModelCost, agent, task)  the tool was deleted: refund its
//        create_resource_cost (expense stays spent)
//   (budget_atom)                                  GetBudget view (LedgerReply::view)
//   (raise_atom, "expense"|"resource", amount)     user-authorised increase
//   (switch_atom, "resource"|"expense", on)        enable/disable a ledger
//   (outcome_atom, task, seq, shared_ptr<Outcome>)  keep a driver's outcome for a resume
//   (ask_step_atom, task, call, step, shared_ptr<AskStep>)  keep a step of an employee's
//        tool loop for a resume; both are journaled behind every charge sent before them,
//        in one commit with the charges held for them (no reply)
//   (done_atom, task, JournalOp finish)             the task ended: `finish` (its end) is journaled in
//        one commit with what the task holds; a call of it settled later is journaled at once (no reply)
//   (done_atom)                                    journal everything held; answers true
//   (sync_atom)                                    answers true once everything sent here
//        before it is on disk (false when the journal could not say so): the tool loop
//        and the drivers start a tool only after the answer that asked for it is kept
// While the journal is behind the disk (journal_room), hires, holds and tool
// creations are refused with its error; settlements, releases and refunds
// are always taken and recorded.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "runtime/economy/budget.hpp"

namespace kaisha::actors {

// Ledger rows are journaled under `session_id`; the budget's state under
// `budget_session` ("" = the same): the owner's, when sessions share a budget.
caf::actor spawn_ledger(caf::actor_system& sys, std::shared_ptr<economy::Budget> budget, caf::actor journal,
                        std::string session_id, std::string budget_session = "");

// Runs `then` on `self` once everything sent to `ledger` before is on disk
// (its sync_atom), or at once without a ledger. An error answer runs it too:
// the journal reports its own failures, and a tool is not held back forever.
void after_ledger_synced(caf::event_based_actor* self, const caf::actor& ledger, std::function<void()> then);

}  // namespace kaisha::actors
