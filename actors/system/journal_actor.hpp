// The journal actor is the single SQLite writer of a process: every step of
// every agent, hires and fires, ledger entries and task outcomes are written
// through it, in the order they were sent. Writes from actors are
// fire-and-forget and group-committed: those arriving within ~2 ms share one
// transaction. A (sync_atom, op) request first commits everything queued, then
// runs `op` and answers. The ledger's hires, fires and raises are durable
// writes (journal_ledger_durably): the journal commits them, with everything
// queued before them, as soon as its mailbox holds nothing more to join the
// batch, and only then is the ledger told — the way to persist before
// acknowledging. Queued writes are committed when the actor is told to exit.
//
// The backlog (writes sent and not yet committed) is bounded by back-pressure,
// not by dropping: a write is never refused or lost, but while the backlog is
// at its limit new work is refused before it starts — the ledger refuses new
// holds (model calls, asks, hires, priced tools) with journal_room()'s error,
// and a worker node's agent host refuses asks. Work already started adds a
// bounded number of writes (a few per model call, two per tool call of its
// reply), so the backlog stays within the limit plus what work in flight
// writes.
//
// A commit that fails (another process holds the file past the busy timeout,
// the disk is full) is reported on stderr, and until a commit succeeds again
// journal_room() refuses new work with the reason (code "journal_failed");
// the journal tries again every second by itself. Writes whose transaction
// never began are kept and written by the next commit; a batch that failed
// part-way is lost, and a durable write in it is answered with the error.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "runtime/core/json.hpp"
#include "runtime/messages/event_kind.hpp"
#include "runtime/core/result.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::store {
class JournalStore;
}
namespace kaisha::telemetry {
class Histogram;
}

namespace kaisha::actors {

struct JournalLimits {
  // Writes queued for the disk at which new work is refused. At about a
  // kilobyte a write, 65,536 is tens of megabytes: minutes of a slow disk.
  size_t max_backlog = 65536;
};

caf::actor spawn_journal(caf::actor_system& sys, std::shared_ptr<store::JournalStore> store, JournalLimits limits = {});

// From now on the duration of each of `journal`'s commits (the transaction,
// on the monotonic clock) is observed into `commit_seconds`, which must
// outlive the journal; null stops it.
void measure_journal_commits(const caf::actor& journal, telemetry::Histogram* commit_seconds);
// True while `journal`'s last commit failed (journal_room says why).
bool journal_failing(const caf::actor& journal);

// Writes sent to `journal` and not yet committed (0 for no journal).
size_t journal_backlog(const caf::actor& journal);
// OK while `journal` takes new work (or there is none); else an error saying
// why: "journal_behind" (how far behind the disk it is) or "journal_failed"
// (its last commit failed, and why).
Status journal_room(const caf::actor& journal);

// Runs `op` on the journal's writer, in order with the other writes (counted
// in the backlog like them). For rows the record functions below do not cover.
// (The same type as atoms.hpp's JournalOp.)
void journal_op(const caf::actor& journal, std::function<void(store::JournalStore&)> op);

// One step of one agent. Its kind is one of the vocabulary's journaled kinds
// (msg::EventKindInfo::journaled); another is refused by the store.
struct StepRecord {
  std::string session_id;
  std::string task_id;
  std::string agent;
  msg::EventKind kind = msg::EventKind::note;
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
// The same, durably: `records` and the budget `state` after them (when
// given) are committed, with every write queued before them, before `done`
// runs on `self`'s thread with Ok or an error (code "journal") saying why
// they could not be (they are then not in the journal). Writes waiting
// together share one commit. This is how the ledger persists a change
// before anyone acts on it; with no journal, `done` runs at once.
void journal_ledger_durably(caf::event_based_actor* self, const caf::actor& journal, std::vector<LedgerRecord> records,
                            std::string session_id, std::optional<economy::BudgetState> state,
                            std::function<void(Status)> done);
// A kept record (`keep`: an outcome or an ask's step, or nothing) with the
// ledger rows of the calls it answers and the budget `state` after them
// (when given, saved under `budget_session`): written in one commit, so a
// crash leaves all of them or none. In order with the other writes; a row
// that cannot be written is reported on stderr, as journal_ledger's are.
void journal_with_charges(const caf::actor& journal, std::vector<LedgerRecord> charges, std::string budget_session,
                          std::optional<economy::BudgetState> state, std::function<void(store::JournalStore&)> keep);
// The ledger's state after a change. Sent as numbers: the JSON is built when
// written, once per batch for the newest state (snapshots supersede each other).
void journal_budget_state(const caf::actor& journal, std::string session_id, economy::BudgetState state);

}  // namespace kaisha::actors

namespace kaisha::msg {
struct AgentSpec;
struct TaskResult;
}  // namespace kaisha::msg

namespace kaisha::actors {

// Tasks: the start is journaled and committed before any work (sync).
void journal_task_start(const caf::actor& journal, const std::string& session_id, const std::string& task_id,
                        const std::string& input, const std::string& strategy);
void journal_task_finish(const caf::actor& journal, const std::string& session_id, const msg::TaskResult& result);
// The write journal_task_finish makes, for whoever sends it on itself (the
// ledger, with the charges the task still holds).
std::function<void(store::JournalStore&)> task_finish_op(const msg::TaskResult& result);
void journal_agent_hired(const caf::actor& journal, const std::string& session_id, const msg::AgentSpec& spec);
void journal_agent_fired(const caf::actor& journal, const std::string& session_id, const std::string& name);

}  // namespace kaisha::actors
