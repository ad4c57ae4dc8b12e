// The journal actor is the single SQLite writer of a process: every step of
// every agent, hires and fires, ledger entries and task outcomes are written
// through it, in the order they were sent. Writes from actors are
// fire-and-forget and group-committed: those arriving within ~2 ms share one
// transaction. A (sync_atom, op) request first commits everything queued, then
// runs `op` and answers — the way to persist before acknowledging. Queued
// writes are committed when the actor is told to exit.
#pragma once

#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "runtime/core/json.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::store { class JournalStore; }

namespace kaisha::actors {

caf::actor spawn_journal(caf::actor_system& sys, std::shared_ptr<store::JournalStore> store);

// One step of one agent (kinds: llm_request, llm_response, tool_call,
// tool_result, hire, fire, ask, answer, refusal, error, note).
struct StepRecord {
  std::string session_id;
  std::string task_id;
  std::string agent;
  std::string kind;
  json payload = json::object();
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;
};

void journal_step(const caf::actor& journal, StepRecord step);

}  // namespace kaisha::actors

namespace kaisha::actors {

// One change to a ledger (kinds: hire, fire_refund, ask_reserve, ask_settle,
// ask_release, raise, ceo_call, tool_reserve, tool_settle, tool_release).
struct LedgerRecord {
  std::string session_id;
  std::string task_id;
  std::string ledger;  // "resource" | "expense"
  std::string kind;
  double amount = 0;
  std::string agent;
  std::string reason;
  double used_after = 0;
  double total_after = 0;
};

void journal_ledger(const caf::actor& journal, LedgerRecord record);
// The ledger's state after a change. Sent as numbers: the JSON is built when
// written, once per batch for the newest state (snapshots supersede each other).
void journal_budget_state(const caf::actor& journal, std::string session_id, economy::BudgetState state);

}  // namespace kaisha::actors

namespace kaisha::msg { struct AgentSpec; struct TaskResult; }

namespace kaisha::actors {

// Tasks: the start is journaled and committed before any work (sync).
void journal_task_start(const caf::actor& journal, const std::string& session_id,
                        const std::string& task_id, const std::string& input);
void journal_task_finish(const caf::actor& journal, const std::string& session_id,
                         const msg::TaskResult& result);
void journal_agent_hired(const caf::actor& journal, const std::string& session_id,
                         const msg::AgentSpec& spec);
void journal_agent_fired(const caf::actor& journal, const std::string& session_id,
                         const std::string& name);

}  // namespace kaisha::actors
