// Plain rows of kaisha's journal (journal_store.hpp). Times are milliseconds
// since the Unix epoch; 0 means "now" on write and "not set" on read. Money is
// USD; resource amounts are percentage points.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace kaisha::store {

// The values the schema's CHECK constraints allow; JournalStore refuses any
// other with an error naming the column (and tests compare these lists with
// the schema). A new value needs a migration that rebuilds its table (7 -> 8
// shows how).
inline constexpr std::array<std::string_view, 11> kStepKinds = {
    "llm_request", "llm_response", "tool_call", "tool_result", "hire", "fire",
    "ask",         "answer",       "refusal",   "error",       "note"};
inline constexpr std::array<std::string_view, 5> kTaskStatuses = {"running", "done", "failed", "canceled",
                                                                  "interrupted"};
inline constexpr std::array<std::string_view, 3> kAgentStates = {"hired", "fired", "lost"};
inline constexpr std::array<std::string_view, 2> kLedgers = {"resource", "expense"};
inline constexpr std::array<std::string_view, 13> kLedgerKinds = {
    "hire",         "fire_refund", "ask_reserve",  "ask_settle",  "ask_release",        "raise",    "ceo_call",
    "tool_reserve", "tool_settle", "tool_release", "tool_create", "tool_delete_refund", "overshoot"};

struct SessionRow {
  std::string id;
  int64_t created_at = 0;
  json config = json::object();  // the effective configuration
  std::string ceo_model;
  std::string status = "active";  // free text: active | closed | ...
};

struct TaskRow {
  std::string id;
  std::string session_id;
  std::string input;
  std::string status = "running";  // running | done | failed | canceled | interrupted
  std::string final_answer;
  std::string error;
  int64_t started_at = 0;
  int64_t finished_at = 0;
  int64_t wall_ms = 0;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;
  std::string strategy;  // what ran it ("" before schema version 6)
};

// How a task ended (finish_task). wall_ms is finished_at - started_at.
struct TaskOutcome {
  std::string task_id;
  std::string status = "done";  // done | failed
  std::string final_answer;
  std::string error;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;
  int64_t finished_at = 0;
};

struct StepRow {
  int64_t id = 0;  // assigned by append_step
  std::string session_id;
  std::string task_id;  // "" = a session-level step
  int64_t seq = 0;      // assigned by append_step: 1, 2, ... per task
  std::string agent;    // "ceo", an employee's name, "system"
  // llm_request | llm_response | tool_call | tool_result | hire | fire | ask |
  // answer | refusal | error | note
  std::string kind;
  json payload = json::object();
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;
  int64_t at = 0;
};

struct AgentRow {
  std::string session_id;
  std::string name;
  std::string base_model;
  std::string model_ref;
  std::string type;  // local | cloud
  std::string system_prompt;
  std::string description;
  json costs = json::object();  // the five cost fields at hire time
  std::string state = "hired";  // hired | fired | lost
  int64_t hired_at = 0;
  int64_t fired_at = 0;
};

struct LedgerEntryRow {
  int64_t id = 0;
  std::string session_id;
  std::string task_id;  // may be ""
  std::string ledger;   // resource | expense
  // hire | fire_refund | ask_reserve | ask_settle | ask_release | raise | ceo_call
  // | tool_reserve | tool_settle | tool_release
  std::string kind;
  double amount = 0;
  std::string agent;
  std::string reason;
  double used_after = 0;
  double total_after = 0;
  int64_t at = 0;
};

// The judge's running quality score of one agent (infiagent.md §10).
struct QualityRow {
  std::string agent;
  double q = 0.5;
  int64_t verdicts = 0;
  int64_t updated_at = 0;
};

// One version of a strategy's state that outlives a task (the pyramid's
// quality score of one agent, a graph, a tool version): `value` under `key`,
// written by change `change` (e.g. the outcome it came from) of task
// `task_id` (both empty: not made by a task, e.g. migrated).
struct StateRow {
  std::string strategy;
  std::string key;
  json value;
  std::string task_id;
  std::string change;
  int64_t at = 0;
};

// A handle a protocol client holds for a company task (an MCP task id, an
// ACP run id), kept so that a restarted server still answers it.
struct HandleRow {
  std::string protocol;        // e.g. "mcp_task", "acp_run"
  std::string handle;          // the id the client was given
  std::string task_id;         // the company task it stands for
  std::string session_id;      // the session that runs the task (forget_session deletes it with it)
  int64_t created_at = 0;      // wall clock
  int64_t ttl_ms = 0;          // kept this long after created_at; 0 = for good
  json data = json::object();  // what the protocol needs besides (its own fields)
};

// What forget_session() deleted.
struct ForgottenRows {
  int64_t tasks = 0;
  int64_t steps = 0;
  int64_t ledger_entries = 0;
  int64_t agents = 0;
};

// Sums over the tasks (and ledger entries) of a session, or of every session.
struct SpendTotals {
  int64_t tasks = 0;
  int64_t tasks_done = 0;
  int64_t tasks_failed = 0;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;   // sum of tasks.expense
  int64_t wall_ms = 0;  // sum of tasks.wall_ms
  int64_t steps = 0;
};

}  // namespace kaisha::store
