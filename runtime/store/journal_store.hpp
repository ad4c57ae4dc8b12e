// JournalStore: kaisha's journal in SQLite — sessions, tasks, the steps of
// each task, the agents hired, every ledger movement and the budget state —
// so that `kaisha history|agents|budget` can report and a session can resume
// after a restart.
//
// Durability: every write is its own transaction and returns only after
// COMMIT ("persist before acknowledging"); write_batch() groups several. A
// commit survives the process being killed; with Durability::full it also
// survives a power loss or a kernel crash (WAL with synchronous=NORMAL or
// FULL; runtime/store/durability.hpp). The writer's checkpoints run on a
// thread of their own (WalCheckpointer), so no commit waits for one.
//
// Threading: ONE writer — the journal actor — owns a read-write instance and
// calls it from one thread at a time. Readers (CLI commands, other processes)
// open their own instance with open_read_only(); WAL mode lets them read while
// the writer writes, and busy_timeout (5 s) rides out short lock contention
// with other processes holding the file.
//
// Schema: versioned in `schema_version`; open() applies the missing forward
// migrations in order, each in its own transaction. A read-only instance never
// migrates and refuses a file whose schema it does not know.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/store/journal_rows.hpp"
#include "runtime/store/sqlite_db.hpp"
#include "runtime/store/wal_checkpointer.hpp"

namespace kaisha::store {

class JournalStore {
 public:
  // The schema version this build writes.
  static int current_schema_version();

  struct Options {
    Durability durability = Durability::normal;
  };
  // Opens (creating if needed) and migrates the journal at `path`.
  static Result<std::unique_ptr<JournalStore>> open(const std::string& path, Options options);
  static Result<std::unique_ptr<JournalStore>> open(const std::string& path) { return open(path, Options{}); }
  // Opens an existing journal for reading only.
  static Result<std::unique_ptr<JournalStore>> open_read_only(const std::string& path);
  // SQLite's own checks of the journal at `path`, read-only and at any schema
  // version: every problem PRAGMA integrity_check and PRAGMA foreign_key_check
  // report, at most `limit` of them (none: the file is sound).
  static Result<std::vector<std::string>> check_file(const std::string& path, int limit = 100);
  // The schema version of the journal file at `path`, read without migrating
  // it (0: no kaisha tables yet). Fails on a file that is not a SQLite
  // database or holds another program's tables.
  static Result<int> schema_version_of(const std::string& path);

  // Milliseconds since the epoch.
  static int64_t now_ms();
  // A fresh id "<prefix>-<yyyymmdd>-<hhmmss>-<8 hex>", unique enough for ids
  // made by one writer.
  static std::string make_id(const std::string& prefix);

  int schema_version() const { return schema_version_; }
  const std::string& path() const { return db_->path(); }

  // ---- writes (one writer) -----------------------------------------------------
  Status create_session(const SessionRow& session);
  Status set_session_status(const std::string& session_id, const std::string& status);
  // `strategy` names what runs the task (a resume runs it the same way).
  Status start_task(const std::string& session_id, const std::string& task_id, const std::string& input,
                    int64_t started_at = 0, const std::string& strategy = "");
  Status finish_task(const TaskOutcome& outcome);
  // Appends a step; seq is the next number within the step's task (or within
  // the session for a session-level step). Returns the step id.
  Result<int64_t> append_step(const StepRow& step);
  Status record_hire(const AgentRow& agent);
  // Marks the agent's current hire (state hired) fired / lost. Fails when the
  // session has no hired agent of that name.
  Status record_fire(const std::string& session_id, const std::string& name, int64_t at = 0);
  Status mark_agent_lost(const std::string& session_id, const std::string& name, int64_t at = 0);
  Result<int64_t> record_ledger_entry(const LedgerEntryRow& entry);
  // Replaces the session's budget state (economy::BudgetState::to_json()).
  Status save_budget_state(const std::string& session_id, const json& state);
  // Replaces the session's cost-table snapshot ({name: costs}, as
  // economy::CostTable::to_json()).
  Status save_cost_table(const std::string& session_id, const json& table);
  // Keeps (or replaces) the handle a protocol client was given for a task;
  // handles past their TTL are deleted meanwhile.
  Status save_handle(const HandleRow& handle);
  // Runs `body` (which calls the writes above) in one transaction.
  Status write_batch(const std::function<Status()>& body);
  // Inside write_batch(): runs `body` so that its writes land all or none (a
  // savepoint) and returns its error without failing the batch. Outside one:
  // `body` in a transaction of its own.
  Status atomically(const std::function<Status()>& body);

  // Marks the session's tasks still `running` as `interrupted` with `why`:
  // called by the process that has just taken the session's lock, so nobody
  // runs them any more (their process was killed). Each gets the time of its
  // last step as its end, and the tokens of its steps and the expense of its
  // ledger entries as its totals. Returns their ids, in start order.
  Result<std::vector<std::string>> close_orphaned_tasks(const std::string& session_id, const std::string& why);

  // Resuming a task (driver/replay_log.hpp). keep_outcome() records the
  // `seq`-th outcome its driver was fed (encoded, outcome_codec.hpp);
  // kept_outcomes() returns them in order, from 0 up to the first missing one. A task's outcomes are deleted
  // when it finishes other than interrupted. reopen_task() puts an
  // interrupted task back to running for its resume.
  Status keep_outcome(const std::string& session_id, const std::string& task_id, int64_t seq,
                      const std::string& outcome);
  Result<std::vector<std::string>> kept_outcomes(const std::string& task_id);
  Status reopen_task(const std::string& task_id);
  // The steps of an employee's tool loop inside ask `call` of a task
  // (driver/ask_step.hpp): keep_ask_step() records step number `step`;
  // kept_ask_steps() returns each ask's steps in order, from 0 up to the
  // first missing one. Deleted with the task's outcomes.
  Status keep_ask_step(const std::string& session_id, const std::string& task_id, int64_t call, int64_t step,
                       const std::string& text);
  Result<std::map<int64_t, std::vector<std::string>>> kept_ask_steps(const std::string& task_id);

  // Deletes a session and everything journaled under it (steps, ledger
  // entries, agents, budget and cost snapshots, tasks), in one transaction,
  // with deleted content zeroed in the file (secure_delete). State kept
  // across sessions (judge quality scores) stays: see the rule where the
  // rows are deleted. The caller holds the session's SessionLock
  // (SessionForgetter does both).
  Result<ForgottenRows> forget_session(const std::string& session_id);
  // Moves the write-ahead log into the database file and empties it, so that
  // deleted rows leave no copy there. Best effort while other processes read
  // the file (they keep the log's frames they are reading).
  Status compact_files();
  // Rewrites the file without the pages deleted rows left free (VACUUM), then
  // empties the write-ahead log: what `history` shows is kept, the file
  // shrinks to what it holds. Waits for, or fails on, another process's
  // write in progress (SQLite's own locking).
  Status vacuum();
  // Checkpoints the background checkpointer has made (tests).
  int background_checkpoints() const;
  // PRAGMA synchronous of this instance's connection: 1 NORMAL, 2 FULL (tests).
  Result<int> synchronous();

  // ---- reads ---------------------------------------------------------------------
  // Newest first; limit 0 = all.
  Result<std::vector<SessionRow>> list_sessions(int limit = 0);
  // The newest session that no other session hosts (a `kaisha serve`'s
  // default session, a `kaisha run` session), or nullopt.
  Result<std::optional<SessionRow>> latest_session();
  // The sessions a server opened for its clients' conversations beside its
  // default session `host_session` (config {"host_session", "conversation"}),
  // oldest first.
  Result<std::vector<SessionRow>> hosted_sessions(const std::string& host_session);
  Result<std::optional<SessionRow>> get_session(const std::string& session_id);
  // The sessions with a task still `running` or `interrupted`: work a resume
  // can still finish.
  Result<std::set<std::string>> sessions_with_unfinished_tasks();
  // In start order.
  Result<std::vector<TaskRow>> tasks(const std::string& session_id);
  // The tasks of `host_session` and of every session it hosts, newest first;
  // limit 0 = all.
  Result<std::vector<TaskRow>> hosted_tasks(const std::string& host_session, int limit = 0);
  // One page of hosted_tasks(), newest first, of those whose id, input or
  // answer contain `text` (ASCII case-insensitively, taken literally; "" =
  // all) with status `status` ("" = any), and how many match in all: the
  // filtering is SQLite's, so only the page is read.
  struct TaskPage {
    int64_t total = 0;
    std::vector<TaskRow> rows;
  };
  Result<TaskPage> search_hosted_tasks(const std::string& host_session, const std::string& text,
                                       const std::string& status, int limit, int offset);
  Result<std::optional<TaskRow>> get_task(const std::string& task_id);
  // The handle `handle` of `protocol`, expired or not (the caller judges).
  Result<std::optional<HandleRow>> get_handle(const std::string& protocol, const std::string& handle);
  // The handles of `protocol` not past their TTL at `now` (ms), newest
  // first; limit 0 = all.
  Result<std::vector<HandleRow>> live_handles(const std::string& protocol, int64_t now, int limit = 0);
  // In order; limit > 0 keeps the last `limit` steps (still oldest first).
  Result<std::vector<StepRow>> session_steps(const std::string& session_id, int limit = 0);
  Result<std::vector<StepRow>> task_steps(const std::string& task_id, int limit = 0);
  // Agents in state hired (what a resumed session still employs), by hire time.
  Result<std::vector<AgentRow>> active_agents(const std::string& session_id);
  Result<std::vector<AgentRow>> all_agents(const std::string& session_id);
  Result<std::optional<json>> load_budget_state(const std::string& session_id);
  Result<std::optional<json>> load_cost_table(const std::string& session_id);
  Result<std::vector<LedgerEntryRow>> ledger_entries(const std::string& session_id);
  // session_id "" = over all sessions; a session's totals include the sessions it
  // hosts (hosted_sessions()).
  Result<SpendTotals> spend_totals(const std::string& session_id = "");

  // Judge quality scores, one per agent name, kept across sessions.
  Status save_quality(const QualityRow& row);
  Result<std::optional<QualityRow>> load_quality(const std::string& agent);
  // Every stored score whose agent key starts with `prefix`, by key.
  Result<std::vector<QualityRow>> quality_rows(const std::string& prefix);

  // Strategy state: what a strategy keeps beyond one task (StateRow), kept
  // across sessions. save_state() writes a new version of `row.key`; a
  // change already saved (same strategy, task, change and key) keeps its
  // place and takes the new value, so replaying a resumed task's outcomes
  // adds no version, and an outcome made again (it was not kept) replaces
  // the one lost.
  Status save_state(const StateRow& row);
  // `strategy`'s latest version of every key, by key.
  Result<std::vector<StateRow>> state(const std::string& strategy);
  // Every strategy's state as it was before task `task_id` changed any of it
  // (the latest versions when it changed nothing), by strategy and key: what
  // a resumed task starts from. Changes other tasks made in between are in.
  Result<std::vector<StateRow>> state_before_task(const std::string& task_id);
  // Every version of `strategy`'s `key`, oldest first (HiVA's graph, one per
  // iteration).
  Result<std::vector<StateRow>> state_versions(const std::string& strategy, const std::string& key);

 private:
  explicit JournalStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  Status migrate();
  Status migrate_in_transaction();
  Result<std::vector<StateRow>> query_state(const std::string& where, const std::string& arg);
  // Rows whose foreign key names a row that is not there (PRAGMA foreign_key_check).
  Result<int64_t> foreign_key_violations();
  Result<int> read_schema_version();
  // Fails with "<path> is not a kaisha journal ..." when the database has
  // tables but none of them is kaisha's schema_version.
  Status refuse_foreign_database();
  Status in_txn(const std::function<Status()>& body);
  Status set_agent_state(const std::string& session_id, const std::string& name, const std::string& state, int64_t at);
  Result<std::vector<AgentRow>> query_agents(const std::string& sql, const std::string& session_id);
  Result<std::vector<StepRow>> query_steps(const std::string& where_column, const std::string& id, int limit);

  std::unique_ptr<SqliteDb> db_;
  // The writer's checkpoints, off its commits (declared after db_: stopped first).
  std::unique_ptr<WalCheckpointer> checkpointer_;
  int schema_version_ = 0;
  bool in_batch_ = false;  // write_batch() is running: writes join its transaction
  // Next step seq per task ("\n" + session id for session-level steps), known
  // only inside a write_batch(): its transaction keeps other writers out, so
  // the numbers cannot go stale; outside one every step asks the table.
  std::unordered_map<std::string, int64_t> batch_next_seq_;
};

}  // namespace kaisha::store
