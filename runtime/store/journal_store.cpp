#include "runtime/core/clock.hpp"
#include "runtime/store/journal_store.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>
#include <set>
#include <string_view>
#include <vector>

#include "runtime/core/json_string.hpp"
#include "runtime/core/json_text.hpp"

namespace kaisha::store {

namespace {

// Forward migrations: kMigrations[i] takes the schema from version i to i+1.
// Never edit a released entry; append a new one.
const std::vector<std::string> kMigrations = {
    // 0 -> 1: the initial schema.
    R"sql(
CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  created_at  INTEGER NOT NULL,
  config_json TEXT NOT NULL DEFAULT '{}',
  ceo_model   TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL DEFAULT 'active'
);
CREATE TABLE tasks (
  id           TEXT PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  input        TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  final_answer TEXT NOT NULL DEFAULT '',
  error        TEXT NOT NULL DEFAULT '',
  started_at   INTEGER NOT NULL,
  finished_at  INTEGER NOT NULL DEFAULT 0,
  wall_ms      INTEGER NOT NULL DEFAULT 0,
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  expense      REAL NOT NULL DEFAULT 0
);
CREATE INDEX tasks_by_session ON tasks(session_id, started_at);
CREATE TABLE steps (
  id           INTEGER PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  task_id      TEXT REFERENCES tasks(id),
  seq          INTEGER NOT NULL,
  agent        TEXT NOT NULL DEFAULT '',
  kind         TEXT NOT NULL CHECK (kind IN ('llm_request', 'llm_response', 'tool_call',
                 'tool_result', 'hire', 'fire', 'ask', 'answer', 'refusal', 'error', 'note')),
  payload_json TEXT NOT NULL DEFAULT '{}',
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  expense      REAL NOT NULL DEFAULT 0,
  at           INTEGER NOT NULL
);
CREATE INDEX steps_by_task ON steps(task_id, seq);
CREATE INDEX steps_by_session ON steps(session_id, id);
CREATE TABLE agents (
  session_id    TEXT NOT NULL REFERENCES sessions(id),
  name          TEXT NOT NULL,
  base_model    TEXT NOT NULL DEFAULT '',
  model_ref     TEXT NOT NULL DEFAULT '',
  type          TEXT NOT NULL DEFAULT '',
  system_prompt TEXT NOT NULL DEFAULT '',
  description   TEXT NOT NULL DEFAULT '',
  costs_json    TEXT NOT NULL DEFAULT '{}',
  state         TEXT NOT NULL CHECK (state IN ('hired', 'fired', 'lost')),
  hired_at      INTEGER NOT NULL,
  fired_at      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, name, hired_at)
);
CREATE TABLE ledger_entries (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id),
  task_id     TEXT REFERENCES tasks(id),
  ledger      TEXT NOT NULL CHECK (ledger IN ('resource', 'expense')),
  kind        TEXT NOT NULL CHECK (kind IN ('hire', 'fire_refund', 'ask_reserve', 'ask_settle',
                'ask_release', 'raise', 'ceo_call')),
  amount      REAL NOT NULL,
  agent       TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL DEFAULT '',
  used_after  REAL NOT NULL DEFAULT 0,
  total_after REAL NOT NULL DEFAULT 0,
  at          INTEGER NOT NULL
);
CREATE INDEX ledger_by_session ON ledger_entries(session_id, id);
CREATE TABLE budget_state (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id),
  state_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE cost_table (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  name       TEXT NOT NULL,
  costs_json TEXT NOT NULL,
  PRIMARY KEY (session_id, name)
);
)sql",
    // 1 -> 2: quality scores the judge keeps per agent across tasks and
    // sessions (infiagent.md §10: Q <- aQ + (1-a)v).
    R"sql(
CREATE TABLE agent_quality (
  agent      TEXT PRIMARY KEY,
  q          REAL NOT NULL,
  verdicts   INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
)sql",
    // 2 -> 3: numbering a session-level step (task_id NULL) looked up
    // MAX(seq) by scanning every step of the session; this index answers it
    // directly.
    R"sql(
CREATE INDEX steps_by_session_task ON steps(session_id, task_id, seq);
)sql",
    // 3 -> 4: steps_by_session_task was kept up to date on every step insert
    // (one of the 3 secondary indexes each journal step pays for) to serve
    // one rare query, the numbering of a session-level step. A partial index
    // holding the session-level steps only answers it and costs a task's
    // steps nothing. steps_by_session stays: it orders `kaisha history`.
    R"sql(
DROP INDEX steps_by_session_task;
CREATE INDEX steps_session_level ON steps(session_id, seq) WHERE task_id IS NULL;
)sql",
    // 4 -> 5: firing an agent looked for its current hire among every hire
    // of that name in the session (the primary key's prefix), so a fire got
    // slower with each task that re-hired a worker of the same name (the
    // planner's Worker1..n are hired for every task). The partial index holds
    // the hired rows only; it also serves active_agents().
    R"sql(
CREATE INDEX agents_hired ON agents(session_id, name) WHERE state = 'hired';
)sql",
    // 5 -> 6: every outcome a running task's driver was fed, in order, so a
    // task whose process died can be resumed without paying again for what
    // it had done (driver/replay_log.hpp). A task's rows go when it ends.
    // Tasks name their strategy: a resume runs a task with the one it began with.
    R"sql(
CREATE TABLE task_outcomes (
  task_id      TEXT NOT NULL REFERENCES tasks(id),
  seq          INTEGER NOT NULL,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  outcome_json TEXT NOT NULL,
  PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;
CREATE INDEX task_outcomes_by_session ON task_outcomes(session_id);
ALTER TABLE tasks ADD COLUMN strategy TEXT NOT NULL DEFAULT '';
)sql",
    // 6 -> 7: the finished steps of an employee's tool loop inside each ask
    // of a running task (driver/ask_step.hpp), so an ask run again on a
    // resume is not paid for again. Keyed by the ask's call number in the
    // task (its kept outcome's). A task's rows go when it ends.
    R"sql(
CREATE TABLE ask_steps (
  task_id    TEXT NOT NULL REFERENCES tasks(id),
  call       INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  step_json  TEXT NOT NULL,
  PRIMARY KEY (task_id, call, step)
) WITHOUT ROWID;
CREATE INDEX ask_steps_by_session ON ask_steps(session_id);
)sql",
    // 7 -> 8: the CHECK constraints say what the writer writes. tasks.status
    // gained canceled and interrupted, and ledger_entries.kind the tool_* kinds
    // and overshoot, after version 1; the writer had turned CHECKs off, so
    // PRAGMA integrity_check failed and `sqlite3 .dump` did not restore.
    // Each list is an OR chain: SQLite evaluates `x IN (...)` through a
    // temporary table on every insert, several times the cost of the chain.
    // SQLite's documented rebuild (foreign keys off, checked before commit:
    // JournalStore::migrate); rows, rowids and indexes are kept.
    R"sql(
CREATE TABLE tasks_v8 (
  id           TEXT PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  input        TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status = 'running' OR status = 'done' OR status = 'failed' OR
                 status = 'canceled' OR status = 'interrupted'),
  final_answer TEXT NOT NULL DEFAULT '',
  error        TEXT NOT NULL DEFAULT '',
  started_at   INTEGER NOT NULL,
  finished_at  INTEGER NOT NULL DEFAULT 0,
  wall_ms      INTEGER NOT NULL DEFAULT 0,
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  expense      REAL NOT NULL DEFAULT 0,
  strategy     TEXT NOT NULL DEFAULT ''
);
INSERT INTO tasks_v8 (rowid, id, session_id, input, status, final_answer, error, started_at, finished_at,
                      wall_ms, tokens_in, tokens_out, expense, strategy)
  SELECT rowid, id, session_id, input, status, final_answer, error, started_at, finished_at, wall_ms,
         tokens_in, tokens_out, expense, strategy FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_v8 RENAME TO tasks;
CREATE INDEX tasks_by_session ON tasks(session_id, started_at);
CREATE TABLE steps_v8 (
  id           INTEGER PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  task_id      TEXT REFERENCES tasks(id),
  seq          INTEGER NOT NULL,
  agent        TEXT NOT NULL DEFAULT '',
  kind         TEXT NOT NULL CHECK (kind = 'llm_request' OR kind = 'llm_response' OR kind = 'tool_call' OR
                 kind = 'tool_result' OR kind = 'hire' OR kind = 'fire' OR kind = 'ask' OR
                 kind = 'answer' OR kind = 'refusal' OR kind = 'error' OR kind = 'note'),
  payload_json TEXT NOT NULL DEFAULT '{}',
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  expense      REAL NOT NULL DEFAULT 0,
  at           INTEGER NOT NULL
);
INSERT INTO steps_v8 (id, session_id, task_id, seq, agent, kind, payload_json, tokens_in, tokens_out, expense, at)
  SELECT id, session_id, task_id, seq, agent, kind, payload_json, tokens_in, tokens_out, expense, at FROM steps;
DROP TABLE steps;
ALTER TABLE steps_v8 RENAME TO steps;
CREATE INDEX steps_by_task ON steps(task_id, seq);
CREATE INDEX steps_by_session ON steps(session_id, id);
CREATE INDEX steps_session_level ON steps(session_id, seq) WHERE task_id IS NULL;
CREATE TABLE ledger_entries_v8 (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id),
  task_id     TEXT REFERENCES tasks(id),
  ledger      TEXT NOT NULL CHECK (ledger = 'resource' OR ledger = 'expense'),
  kind        TEXT NOT NULL CHECK (kind = 'hire' OR kind = 'fire_refund' OR kind = 'ask_reserve' OR
                 kind = 'ask_settle' OR kind = 'ask_release' OR kind = 'raise' OR
                 kind = 'ceo_call' OR kind = 'tool_reserve' OR kind = 'tool_settle' OR
                 kind = 'tool_release' OR kind = 'tool_create' OR
                 kind = 'tool_delete_refund' OR kind = 'overshoot'),
  amount      REAL NOT NULL,
  agent       TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL DEFAULT '',
  used_after  REAL NOT NULL DEFAULT 0,
  total_after REAL NOT NULL DEFAULT 0,
  at          INTEGER NOT NULL
);
INSERT INTO ledger_entries_v8 (id, session_id, task_id, ledger, kind, amount, agent, reason, used_after,
                               total_after, at)
  SELECT id, session_id, task_id, ledger, kind, amount, agent, reason, used_after, total_after, at
  FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_v8 RENAME TO ledger_entries;
CREATE INDEX ledger_by_session ON ledger_entries(session_id, id);
)sql",
    // 8 -> 9: the handles protocol clients were given for a company task (an MCP
    // task id, an ACP run id), kept so that they outlive the server: a
    // restarted `kaisha serve` answers them from the task's journaled state.
    // No foreign key to tasks: a queued task has no row until it starts.
    R"sql(
CREATE TABLE protocol_handles (
  protocol   TEXT NOT NULL,
  handle     TEXT NOT NULL,
  task_id    TEXT NOT NULL,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  ttl_ms     INTEGER NOT NULL DEFAULT 0,
  data_json  TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (protocol, handle)
) WITHOUT ROWID;
CREATE INDEX protocol_handles_by_session ON protocol_handles(session_id);
CREATE INDEX protocol_handles_expiring ON protocol_handles(created_at + ttl_ms) WHERE ttl_ms > 0;
)sql",
    // 9 -> 10: what a strategy keeps beyond one task (journal_rows.hpp
    // StateRow), as versions: every change is a row, tagged with the task and
    // the change within it that made it, so that a resumed task's replay
    // writes nothing twice and can start from the state as it was before
    // the task changed it. The pyramid's quality scores move here from
    // agent_quality, which keeps the judge's own scores.
    R"sql(
CREATE TABLE strategy_state (
  id         INTEGER PRIMARY KEY,
  strategy   TEXT NOT NULL,
  key        TEXT NOT NULL,
  value_json TEXT NOT NULL,
  task_id    TEXT,
  change     TEXT,
  at         INTEGER NOT NULL,
  UNIQUE (strategy, task_id, change, key)
);
CREATE INDEX strategy_state_by_key ON strategy_state(strategy, key, id);
INSERT INTO strategy_state(strategy, key, value_json, at)
  SELECT 'pyramid', substr(agent, 9), json_object('q', q, 'audits', verdicts), updated_at
  FROM agent_quality WHERE substr(agent, 1, 8) = 'pyramid/' ORDER BY agent;
DELETE FROM agent_quality WHERE substr(agent, 1, 8) = 'pyramid/';
)sql",
};

// The writer checks the schema's enumerations (journal_rows.hpp) before
// SQLite's CHECK constraints do, for an error that names the column and the
// values it takes.
// Ok when `value` is one of `allowed`; otherwise an error naming the column.
template <size_t N>
Status check_in(const char* column, const std::string& value, const std::array<std::string_view, N>& allowed) {
  for (auto a : allowed)
    if (a == value) return Status::Ok();
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  return Error{"store", "invalid " + std::string(column) + " '" + value + "' (expected one of: " + list + ")"};
}

json parse_json(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return json(text);  // keep unparseable text visible
  return j;                                 // moved (a conditional expression would copy it)
}

int64_t or_now(int64_t t) { return t != 0 ? t : JournalStore::now_ms(); }

Error not_found(const std::string& what) { return Error{"not_found", what}; }

const char* kSessionCols = "id, created_at, config_json, ceo_model, status";
const char* kTaskCols =
    "id, session_id, input, status, final_answer, error, started_at, finished_at, wall_ms, "
    "tokens_in, tokens_out, expense, strategy";
const char* kStepCols =
    "id, session_id, COALESCE(task_id, ''), seq, agent, kind, payload_json, tokens_in, tokens_out, "
    "expense, at";
const char* kAgentCols =
    "session_id, name, base_model, model_ref, type, system_prompt, description, costs_json, state, "
    "hired_at, fired_at";
const char* kLedgerCols =
    "id, session_id, COALESCE(task_id, ''), ledger, kind, amount, agent, reason, used_after, "
    "total_after, at";

SessionRow read_session(const Statement& s) {
  return SessionRow{s.column_text(0), s.column_int(1), parse_json(s.column_text(2)), s.column_text(3),
                    s.column_text(4)};
}

TaskRow read_task(const Statement& s) {
  TaskRow t;
  t.id = s.column_text(0);
  t.session_id = s.column_text(1);
  t.input = s.column_text(2);
  t.status = s.column_text(3);
  t.final_answer = s.column_text(4);
  t.error = s.column_text(5);
  t.started_at = s.column_int(6);
  t.finished_at = s.column_int(7);
  t.wall_ms = s.column_int(8);
  t.tokens_in = s.column_int(9);
  t.tokens_out = s.column_int(10);
  t.expense = s.column_double(11);
  t.strategy = s.column_text(12);
  return t;
}

StepRow read_step(const Statement& s) {
  StepRow r;
  r.id = s.column_int(0);
  r.session_id = s.column_text(1);
  r.task_id = s.column_text(2);
  r.seq = s.column_int(3);
  r.agent = s.column_text(4);
  r.kind = s.column_text(5);
  r.payload = parse_json(s.column_text(6));
  r.tokens_in = s.column_int(7);
  r.tokens_out = s.column_int(8);
  r.expense = s.column_double(9);
  r.at = s.column_int(10);
  return r;
}

AgentRow read_agent(const Statement& s) {
  AgentRow a;
  a.session_id = s.column_text(0);
  a.name = s.column_text(1);
  a.base_model = s.column_text(2);
  a.model_ref = s.column_text(3);
  a.type = s.column_text(4);
  a.system_prompt = s.column_text(5);
  a.description = s.column_text(6);
  a.costs = parse_json(s.column_text(7));
  a.state = s.column_text(8);
  a.hired_at = s.column_int(9);
  a.fired_at = s.column_int(10);
  return a;
}

LedgerEntryRow read_ledger(const Statement& s) {
  LedgerEntryRow e;
  e.id = s.column_int(0);
  e.session_id = s.column_text(1);
  e.task_id = s.column_text(2);
  e.ledger = s.column_text(3);
  e.kind = s.column_text(4);
  e.amount = s.column_double(5);
  e.agent = s.column_text(6);
  e.reason = s.column_text(7);
  e.used_after = s.column_double(8);
  e.total_after = s.column_double(9);
  e.at = s.column_int(10);
  return e;
}

// Runs a prepared, bound statement and collects every row through `read`.
template <class Row, class Read>
Result<std::vector<Row>> collect(Statement& st, Read read) {
  std::vector<Row> rows;
  while (true) {
    auto r = st.step();
    if (!r) return r.error();
    if (!*r) return rows;
    rows.push_back(read(st));
  }
}

}  // namespace

int JournalStore::current_schema_version() { return static_cast<int>(kMigrations.size()); }

int64_t JournalStore::now_ms() { return wall_ms(); }

std::string JournalStore::make_id(const std::string& prefix) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d%02d%02d-%08x", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<unsigned>(rng()));
  return prefix + "-" + buf;
}

Result<std::unique_ptr<JournalStore>> JournalStore::open(const std::string& path, Options options) {
  SqliteDb::Options o;
  o.durability = options.durability;
  auto db = SqliteDb::open(path, o);
  if (!db) return db.error();
  std::unique_ptr<JournalStore> store(new JournalStore(std::move(*db)));
  if (Status s = store->migrate(); !s) return s.error();
  if (path != ":memory:" && path.rfind("file:", 0) != 0) {
    auto c = WalCheckpointer::start(*store->db_, path);
    if (!c.ok()) return c.error();
    store->checkpointer_ = std::move(c).value();
  }
  return store;
}

Result<int> JournalStore::schema_version_of(const std::string& path) {
  SqliteDb::Options o;
  o.read_only = true;
  auto db = SqliteDb::open(path, o);
  if (!db) return db.error();
  JournalStore store(std::move(*db));
  if (Status s = store.refuse_foreign_database(); !s) return s.error();
  return store.read_schema_version();
}

Result<std::unique_ptr<JournalStore>> JournalStore::open_read_only(const std::string& path) {
  SqliteDb::Options o;
  o.read_only = true;
  auto db = SqliteDb::open(path, o);
  if (!db) return db.error();
  std::unique_ptr<JournalStore> store(new JournalStore(std::move(*db)));
  if (Status s = store->refuse_foreign_database(); !s) return s.error();
  auto v = store->read_schema_version();
  if (!v) return v.error();
  if (*v != current_schema_version()) {
    return Error{"store", path + ": journal schema version " + std::to_string(*v) + " but this kaisha reads version " +
                              std::to_string(current_schema_version()) +
                              (*v < current_schema_version()
                                   ? " (`kaisha journal compact` migrates it, as does resuming or running a task on it)"
                                   : " (written by a newer kaisha)")};
  }
  store->schema_version_ = *v;
  return store;
}

// Appends to `out` a description of each row PRAGMA foreign_key_check
// reports (a row whose foreign key names a row that is not there), until
// `out` holds `limit`.
static Status describe_foreign_key_problems(SqliteDb& db, size_t limit, std::vector<std::string>& out) {
  auto fk = db.prepare("PRAGMA foreign_key_check");
  if (!fk) return fk.error();
  for (auto row = fk->step(); out.size() < limit; row = fk->step()) {
    if (!row) return row.error();
    if (!*row) break;
    out.push_back("row " + std::to_string(fk->column_int(1)) + " of " + fk->column_text(0) + " refers to a " +
                  fk->column_text(2) + " row that is not there");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> JournalStore::check_file(const std::string& path, int limit) {
  SqliteDb::Options o;
  o.read_only = true;
  auto db = SqliteDb::open(path, o);
  if (!db) return db.error();
  std::vector<std::string> problems;
  auto integrity = (*db)->prepare("PRAGMA integrity_check(" + std::to_string(limit) + ")");
  if (!integrity) return integrity.error();
  for (auto row = integrity->step();; row = integrity->step()) {
    if (!row) return row.error();
    if (!*row) break;
    if (integrity->column_text(0) != "ok") problems.push_back(integrity->column_text(0));
  }
  if (Status s = describe_foreign_key_problems(**db, static_cast<size_t>(std::max(limit, 0)), problems); !s)
    return s.error();
  return problems;
}

// A database with tables but no schema_version table belongs to another
// program: migrating it would add kaisha's tables to that program's file (or
// fail on a name both use, with a page of SQL as the message).
Status JournalStore::refuse_foreign_database() {
  auto q = db_->prepare(
      "SELECT count(*), SUM(name = 'schema_version') FROM sqlite_master "
      "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  if (!q) return q.error();
  auto r = q->step();
  if (!r) return r.error();
  if (q->column_int(0) > 0 && q->column_int(1) == 0)
    return Error{"store", db_->path() + " is not a kaisha journal (no kaisha schema version); choose another file"};
  return Status::Ok();
}

Result<int> JournalStore::read_schema_version() {
  auto q = db_->prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='schema_version'");
  if (!q) return q.error();
  auto r = q->step();
  if (!r) return r.error();
  if (q->column_int(0) == 0) return 0;
  auto v = db_->prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version");
  if (!v) return v.error();
  auto rv = v->step();
  if (!rv) return rv.error();
  return static_cast<int>(v->column_int(0));
}

// Invariant: schema_version holds exactly one row once version >= 1, and a
// migration and its version bump commit together.
// Migrations run with foreign keys off, as SQLite's procedure for rebuilding a
// table requires (dropping a table others refer to would otherwise delete or
// refuse), and commit only when PRAGMA foreign_key_check finds nothing.
// (foreign_keys cannot change inside a transaction: it is set around it.)
Status JournalStore::migrate() {
  if (Status s = db_->exec("PRAGMA foreign_keys=OFF"); !s) return s;
  Status migrated = migrate_in_transaction();
  if (Status s = db_->exec("PRAGMA foreign_keys=ON"); !s) return s;
  return migrated;
}

Status JournalStore::migrate_in_transaction() {
  return db_->transaction([&]() -> Status {
    if (Status s = refuse_foreign_database(); !s) return s;
    if (Status s = db_->exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); !s) return s;
    auto v = read_schema_version();
    if (!v) return v.error();
    int version = *v;
    if (version > current_schema_version()) {
      return Error{"store", db_->path() + ": journal schema version " + std::to_string(version) +
                                " is newer than this kaisha (" + std::to_string(current_schema_version()) + ")"};
    }
    const int from = version;
    if (from == current_schema_version()) {
      schema_version_ = from;
      return Status::Ok();
    }
    // Rows a damaged file already had (a partial restore) stay as they were;
    // a migration may not add one.
    auto broken_before = foreign_key_violations();
    if (!broken_before) return broken_before.error();
    for (; version < current_schema_version(); ++version) {
      if (Status s = db_->exec(kMigrations[version]); !s) return s;
    }
    auto broken_after = foreign_key_violations();
    if (!broken_after) return broken_after.error();
    if (*broken_after > *broken_before)
      return Error{"store", db_->path() + ": migrating the journal from schema version " + std::to_string(from) +
                                " would leave " + std::to_string(*broken_after - *broken_before) +
                                " rows whose referenced rows are missing; nothing was changed"};
    if (Status s = db_->exec("DELETE FROM schema_version"); !s) return s;
    auto ins = db_->prepare("INSERT INTO schema_version(version) VALUES (?1)");
    if (!ins) return ins.error();
    if (Status s = ins->bind_all(version).run(); !s) return s;
    schema_version_ = version;
    return Status::Ok();
  });
}

Result<int64_t> JournalStore::foreign_key_violations() {
  std::vector<std::string> problems;
  if (Status s = describe_foreign_key_problems(*db_, SIZE_MAX, problems); !s) return s.error();
  return static_cast<int64_t>(problems.size());
}

Status JournalStore::in_txn(const std::function<Status()>& body) {
  if (in_batch_) return body();
  return db_->transaction(body);
}

Status JournalStore::write_batch(const std::function<Status()>& body) {
  if (in_batch_) return body();
  in_batch_ = true;
  batch_next_seq_.clear();
  Status s = db_->transaction(body);
  in_batch_ = false;
  batch_next_seq_.clear();
  return s;
}

// The savepoint's statements come from the statement cache: sqlite3_exec
// would parse them again for every ledger change in a batch.
namespace {
Status run_cached(SqliteDb& db, const char* sql) {
  auto st = db.prepare(sql);
  if (!st) return st.error();
  return st->run();
}

// A payload's text, as dump_text() writes it byte for byte, without
// nlohmann's serializer: a task writes a dozen or more of them.
std::string text_of(const json& j) {
  std::string out;
  out.reserve(256);
  append_json(out, j);
  return out;
}
}  // namespace

Status JournalStore::atomically(const std::function<Status()>& body) {
  if (!in_batch_) return db_->transaction(body);
  if (Status s = run_cached(*db_, "SAVEPOINT atomically"); !s.ok()) return s;
  Status s = body();
  if (!s.ok()) {
    // The batch goes on without these writes; a failed rollback leaves them
    // to the batch's own outcome, which the caller learns at COMMIT.
    (void)run_cached(*db_, "ROLLBACK TO atomically");
    batch_next_seq_.clear();  // a rolled-back step must not keep its number
  }
  if (Status r = run_cached(*db_, "RELEASE atomically"); !r.ok() && s.ok()) return r;
  return s;
}

// ---- writes ---------------------------------------------------------------------

Result<std::vector<std::string>> JournalStore::close_orphaned_tasks(const std::string& session_id,
                                                                    const std::string& why) {
  std::vector<std::string> ids;
  Status s = in_txn([&]() -> Status {
    auto q = db_->prepare("SELECT id FROM tasks WHERE session_id = ?1 AND status = 'running' ORDER BY started_at, id");
    if (!q) return q.error();
    q->bind_all(session_id);
    for (;;) {
      auto r = q->step();
      if (!r) return r.error();
      if (!*r) break;
      ids.push_back(q->column_text(0));
    }
    // One statement for them all; each task's end is its last step.
    auto up = db_->prepare(
        "UPDATE tasks SET status = 'interrupted', error = ?2, "
        "finished_at = MAX(started_at, COALESCE((SELECT MAX(at) FROM steps WHERE task_id = tasks.id), 0)), "
        "wall_ms = MAX(0, COALESCE((SELECT MAX(at) FROM steps WHERE task_id = tasks.id), started_at) - started_at), "
        "tokens_in = (SELECT COALESCE(SUM(tokens_in), 0) FROM steps WHERE task_id = tasks.id), "
        "tokens_out = (SELECT COALESCE(SUM(tokens_out), 0) FROM steps WHERE task_id = tasks.id), "
        "expense = (SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE task_id = tasks.id "
        "AND ledger = 'expense' AND kind IN ('ask_settle', 'hire', 'tool_settle', 'tool_create', 'ceo_call')) "
        "WHERE session_id = ?1 AND status = 'running'");
    if (!up) return up.error();
    if (Status st = up->bind_all(session_id, why).run(); !st) return st;
    return Status::Ok();
  });
  if (!s.ok()) return s.error();
  return ids;
}

Result<ForgottenRows> JournalStore::forget_session(const std::string& session_id) {
  ForgottenRows n;
  // Zeroing costs every later delete too (a finished task's kept outcomes):
  // the connection gets its setting back afterwards.
  auto was = db_->prepare("PRAGMA secure_delete");
  if (!was) return was.error();
  if (auto r = was->step(); !r) return r.error();
  const int64_t secure_delete_was = was->column_int(0);
  was->reset();
  if (Status s = db_->exec("PRAGMA secure_delete=ON"); !s.ok()) return s.error();
  Status s = in_txn([&]() -> Status {
    // What forgetting (`kaisha forget`, retention on start) deletes, and what
    // it never does. Every table belongs to one side; a new table must be
    // put on one:
    //   per session, deleted here: the tables below.
    //   kept across sessions, never deleted by forgetting or retention:
    //     agent_quality (the judge's scores per agent name), strategy_state
    //     (what strategies keep beyond a task; its rows name their task,
    //     which may be forgotten), and in the same class whatever a later version keeps beyond one
    //     session (strategy state, saved graphs, library versions, commit
    //     chains, evaluation runs).
    //   schema_version: the file's own.
    // Children before parents (foreign keys).
    const std::pair<const char*, int64_t*> tables[] = {{"protocol_handles", nullptr},
                                                       {"task_outcomes", nullptr},
                                                       {"ask_steps", nullptr},
                                                       {"steps", &n.steps},
                                                       {"ledger_entries", &n.ledger_entries},
                                                       {"agents", &n.agents},
                                                       {"budget_state", nullptr},
                                                       {"cost_table", nullptr},
                                                       {"tasks", &n.tasks},
                                                       {"sessions", nullptr}};
    for (const auto& [table, count] : tables) {
      const std::string column = std::string(table) == "sessions" ? "id" : "session_id";
      auto del = db_->prepare(std::string("DELETE FROM ") + table + " WHERE " + column + " = ?1");
      if (!del) return del.error();
      if (Status st = del->bind_all(session_id).run(); !st) return st;
      if (count) *count = db_->changes();
    }
    return Status::Ok();
  });
  const Status restored = db_->exec("PRAGMA secure_delete=" + std::to_string(secure_delete_was));
  if (!s.ok()) return s.error();
  if (!restored.ok()) return restored.error();
  return n;
}

int JournalStore::background_checkpoints() const { return checkpointer_ ? checkpointer_->checkpoints() : 0; }

Result<int> JournalStore::synchronous() {
  auto q = db_->prepare("PRAGMA synchronous");
  if (!q) return q.error();
  auto row = q->step();
  if (!row) return row.error();
  return static_cast<int>(q->column_int(0));
}

Status JournalStore::compact_files() {
  // Busy readers only make the truncation partial, which is not an error.
  return db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

Status JournalStore::vacuum() {
  if (Status s = db_->exec("VACUUM"); !s.ok()) return s;
  return compact_files();
}

Status JournalStore::create_session(const SessionRow& s) {
  return in_txn([&]() -> Status {
    auto st =
        db_->prepare("INSERT INTO sessions(id, created_at, config_json, ceo_model, status) VALUES (?1,?2,?3,?4,?5)");
    if (!st) return st.error();
    return st->bind_all(s.id, or_now(s.created_at), s.config.dump(), s.ceo_model, s.status).run();
  });
}

Status JournalStore::set_session_status(const std::string& session_id, const std::string& status) {
  return in_txn([&]() -> Status {
    auto st = db_->prepare("UPDATE sessions SET status = ?2 WHERE id = ?1");
    if (!st) return st.error();
    if (Status s = st->bind_all(session_id, status).run(); !s) return s;
    if (db_->changes() == 0) return not_found("no session '" + session_id + "'");
    return Status::Ok();
  });
}

Status JournalStore::start_task(const std::string& session_id, const std::string& task_id, const std::string& input,
                                int64_t started_at, const std::string& strategy) {
  return in_txn([&]() -> Status {
    auto st = db_->prepare(
        "INSERT INTO tasks(id, session_id, input, status, started_at, strategy) VALUES (?1,?2,?3,'running',?4,?5)");
    if (!st) return st.error();
    return st->bind_all(task_id, session_id, input, or_now(started_at), strategy).run();
  });
}

Status JournalStore::finish_task(const TaskOutcome& o) {
  if (Status c = check_in("task status", o.status, kTaskStatuses); !c) return c;
  return in_txn([&]() -> Status {
    auto st = db_->prepare(
        "UPDATE tasks SET status=?2, final_answer=?3, error=?4, finished_at=?5, "
        "wall_ms=MAX(0, ?5 - started_at), tokens_in=?6, tokens_out=?7, expense=?8 WHERE id=?1");
    if (!st) return st.error();
    if (Status s = st->bind_all(o.task_id, o.status, o.final_answer, o.error, or_now(o.finished_at), o.tokens_in,
                                o.tokens_out, o.expense)
                       .run();
        !s)
      return s;
    if (db_->changes() == 0) return not_found("no task '" + o.task_id + "'");
    // An ended task is not resumed: what it was fed is no longer needed
    // (an interrupted one keeps it for `kaisha resume`).
    if (o.status == "interrupted") return Status::Ok();
    for (const char* table : {"task_outcomes", "ask_steps"}) {
      auto del = db_->prepare(std::string("DELETE FROM ") + table + " WHERE task_id = ?1");
      if (!del) return del.error();
      if (Status s = del->bind_all(o.task_id).run(); !s) return s;
    }
    return Status::Ok();
  });
}

Status JournalStore::keep_outcome(const std::string& session_id, const std::string& task_id, int64_t seq,
                                  const std::string& outcome) {
  return in_txn([&]() -> Status {
    // An outcome that arrives after its task ended (it comes through the
    // ledger, the end does not) is not needed and is not kept.
    auto st = db_->prepare(
        "INSERT OR REPLACE INTO task_outcomes(task_id, seq, session_id, outcome_json) SELECT ?1, ?2, ?3, ?4 "
        "WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?1 AND status IN ('running', 'interrupted'))");
    if (!st) return st.error();
    return st->bind_all(task_id, seq, session_id, outcome).run();
  });
}

Result<std::vector<std::string>> JournalStore::kept_outcomes(const std::string& task_id) {
  auto st = db_->prepare("SELECT seq, outcome_json FROM task_outcomes WHERE task_id = ?1 ORDER BY seq");
  if (!st) return st.error();
  st->bind_all(task_id);
  // Only the run from 0 without a gap: an outcome whose predecessor was lost
  // with the process was fed after something the resume cannot replay.
  std::vector<std::string> kept;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r || st->column_int(0) != static_cast<int64_t>(kept.size())) return kept;
    kept.push_back(st->column_text(1));
  }
}

Status JournalStore::keep_ask_step(const std::string& session_id, const std::string& task_id, int64_t call,
                                   int64_t step, const std::string& text) {
  return in_txn([&]() -> Status {
    // As keep_outcome: a step that arrives after its task ended is not kept.
    auto st = db_->prepare(
        "INSERT OR REPLACE INTO ask_steps(task_id, call, step, session_id, step_json) SELECT ?1, ?2, ?3, ?4, ?5 "
        "WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?1 AND status IN ('running', 'interrupted'))");
    if (!st) return st.error();
    return st->bind_all(task_id, call, step, session_id, text).run();
  });
}

Result<std::map<int64_t, std::vector<std::string>>> JournalStore::kept_ask_steps(const std::string& task_id) {
  auto st = db_->prepare("SELECT call, step, step_json FROM ask_steps WHERE task_id = ?1 ORDER BY call, step");
  if (!st) return st.error();
  st->bind_all(task_id);
  // Each ask's run of steps from 0 without a gap, as kept_outcomes.
  std::map<int64_t, std::vector<std::string>> kept;
  std::set<int64_t> broken;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) return kept;
    const int64_t call = st->column_int(0);
    if (broken.count(call)) continue;
    auto& steps = kept[call];
    if (st->column_int(1) != static_cast<int64_t>(steps.size())) {
      broken.insert(call);
      continue;
    }
    steps.push_back(st->column_text(2));
  }
}

Status JournalStore::reopen_task(const std::string& task_id) {
  return in_txn([&]() -> Status {
    auto st = db_->prepare(
        "UPDATE tasks SET status = 'running', error = '', finished_at = 0 WHERE id = ?1 AND status = 'interrupted'");
    if (!st) return st.error();
    if (Status s = st->bind_all(task_id).run(); !s) return s;
    if (db_->changes() == 0) return not_found("no interrupted task '" + task_id + "'");
    return Status::Ok();
  });
}

Result<int64_t> JournalStore::append_step(const StepRow& step) {
  if (Status c = check_in("step kind", step.kind, kStepKinds); !c) return c.error();
  int64_t id = 0;
  Status s = in_txn([&]() -> Status {
    // seq = 1 + the task's last seq. Computed inside the write transaction,
    // and there is one writer, so numbers are dense and never repeat.
    const std::string seq_key = step.task_id.empty() ? "\n" + step.session_id : step.task_id;
    int64_t seq = 0;
    if (auto known = batch_next_seq_.find(seq_key); in_batch_ && known != batch_next_seq_.end()) {
      seq = known->second;
    } else {
      auto next = step.task_id.empty() ? db_->prepare(
                                             "SELECT COALESCE(MAX(seq), 0) + 1 FROM steps "
                                             "WHERE session_id = ?1 AND task_id IS NULL")
                                       : db_->prepare("SELECT COALESCE(MAX(seq), 0) + 1 FROM steps WHERE task_id = ?1");
      if (!next) return next.error();
      next->bind(1, step.task_id.empty() ? step.session_id : step.task_id);
      auto r = next->step();
      if (!r) return r.error();
      seq = next->column_int(0);
    }
    auto st = db_->prepare(
        "INSERT INTO steps(session_id, task_id, seq, agent, kind, payload_json, tokens_in, "
        "tokens_out, expense, at) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
    if (!st) return st.error();
    st->bind(1, step.session_id).bind_or_null(2, step.task_id).bind(3, seq).bind(4, step.agent);
    st->bind(5, step.kind).bind(6, text_of(step.payload)).bind(7, step.tokens_in);
    st->bind(8, step.tokens_out).bind(9, step.expense).bind(10, or_now(step.at));
    if (Status s = st->run(); !s) return s;
    id = db_->last_insert_rowid();
    if (in_batch_) batch_next_seq_[seq_key] = seq + 1;
    return Status::Ok();
  });
  if (!s) return s.error();
  return id;
}

Status JournalStore::record_hire(const AgentRow& a) {
  return in_txn([&]() -> Status {
    auto st = db_->prepare(
        "INSERT INTO agents(session_id, name, base_model, model_ref, type, system_prompt, "
        "description, costs_json, state, hired_at, fired_at) "
        "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,'hired',"
        // hired_at is part of the key: a re-hire in the same millisecond as the
        // last hire of that name gets the next millisecond instead of failing.
        "MAX(?9, COALESCE((SELECT MAX(hired_at) + 1 FROM agents WHERE session_id=?1 AND name=?2), ?9)),0)");
    if (!st) return st.error();
    return st
        ->bind_all(a.session_id, a.name, a.base_model, a.model_ref, a.type, a.system_prompt, a.description,
                   a.costs.dump(), or_now(a.hired_at))
        .run();
  });
}

Status JournalStore::set_agent_state(const std::string& session_id, const std::string& name, const std::string& state,
                                     int64_t at) {
  if (Status c = check_in("agent state", state, kAgentStates); !c) return c;
  return in_txn([&]() -> Status {
    auto st = db_->prepare("UPDATE agents SET state=?3, fired_at=?4 WHERE session_id=?1 AND name=?2 AND state='hired'");
    if (!st) return st.error();
    if (Status s = st->bind_all(session_id, name, state, or_now(at)).run(); !s) return s;
    if (db_->changes() == 0) return not_found("no hired agent '" + name + "' in session '" + session_id + "'");
    return Status::Ok();
  });
}

Status JournalStore::record_fire(const std::string& session_id, const std::string& name, int64_t at) {
  return set_agent_state(session_id, name, "fired", at);
}

Status JournalStore::mark_agent_lost(const std::string& session_id, const std::string& name, int64_t at) {
  return set_agent_state(session_id, name, "lost", at);
}

Result<int64_t> JournalStore::record_ledger_entry(const LedgerEntryRow& e) {
  if (Status c = check_in("ledger", e.ledger, kLedgers); !c) return c.error();
  if (Status c = check_in("ledger entry kind", e.kind, kLedgerKinds); !c) return c.error();
  int64_t id = 0;
  Status s = in_txn([&]() -> Status {
    auto st = db_->prepare(
        "INSERT INTO ledger_entries(session_id, task_id, ledger, kind, amount, agent, reason, "
        "used_after, total_after, at) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
    if (!st) return st.error();
    st->bind(1, e.session_id).bind_or_null(2, e.task_id).bind(3, e.ledger).bind(4, e.kind);
    st->bind(5, e.amount).bind(6, e.agent).bind(7, e.reason).bind(8, e.used_after);
    st->bind(9, e.total_after).bind(10, or_now(e.at));
    if (Status s = st->run(); !s) return s;
    id = db_->last_insert_rowid();
    return Status::Ok();
  });
  if (!s) return s.error();
  return id;
}

Status JournalStore::save_budget_state(const std::string& session_id, const json& state) {
  return in_txn([&]() -> Status {
    auto st = db_->prepare(
        "INSERT INTO budget_state(session_id, state_json, updated_at) VALUES (?1,?2,?3) "
        "ON CONFLICT(session_id) DO UPDATE SET state_json=excluded.state_json, "
        "updated_at=excluded.updated_at "
        // Sessions sharing one budget save it from their own journals: the
        // newest snapshot wins, whatever order the commits come in.
        "WHERE COALESCE(json_extract(excluded.state_json, '$.seq'), 0) >= "
        "COALESCE(json_extract(budget_state.state_json, '$.seq'), 0)");
    if (!st) return st.error();
    return st->bind_all(session_id, text_of(state), now_ms()).run();
  });
}

Status JournalStore::save_cost_table(const std::string& session_id, const json& table) {
  if (!table.is_object()) return Error{"store", "cost table snapshot must be a JSON object"};
  return in_txn([&]() -> Status {
    auto del = db_->prepare("DELETE FROM cost_table WHERE session_id = ?1");
    if (!del) return del.error();
    if (Status s = del->bind_all(session_id).run(); !s) return s;
    auto ins = db_->prepare("INSERT INTO cost_table(session_id, name, costs_json) VALUES (?1,?2,?3)");
    if (!ins) return ins.error();
    for (auto it = table.begin(); it != table.end(); ++it) {
      ins->reset();
      if (Status s = ins->bind_all(session_id, it.key(), it.value().dump()).run(); !s) return s;
    }
    return Status::Ok();
  });
}

Status JournalStore::save_handle(const HandleRow& h) {
  if (h.protocol.empty() || h.handle.empty()) return Error{"store", "a protocol handle needs a protocol and a handle"};
  if (h.ttl_ms < 0) return Error{"store", "invalid ttl_ms " + std::to_string(h.ttl_ms) + " of handle " + h.handle};
  return in_txn([&]() -> Status {
    // Handles past their TTL answer nobody any more: they make room here.
    auto purge = db_->prepare("DELETE FROM protocol_handles WHERE ttl_ms > 0 AND created_at + ttl_ms <= ?1");
    if (!purge) return purge.error();
    if (Status s = purge->bind_all(now_ms()).run(); !s) return s;
    auto ins = db_->prepare(
        "INSERT OR REPLACE INTO protocol_handles(protocol, handle, task_id, session_id, created_at, ttl_ms, data_json) "
        "VALUES (?1,?2,?3,?4,?5,?6,?7)");
    if (!ins) return ins.error();
    return ins
        ->bind_all(h.protocol, h.handle, h.task_id, h.session_id, or_now(h.created_at), h.ttl_ms, dump_text(h.data))
        .run();
  });
}

// ---- reads ----------------------------------------------------------------------

namespace {
const char* kHandleCols = "protocol, handle, task_id, session_id, created_at, ttl_ms, data_json";
HandleRow read_handle(const Statement& s) {
  HandleRow h;
  h.protocol = s.column_text(0);
  h.handle = s.column_text(1);
  h.task_id = s.column_text(2);
  h.session_id = s.column_text(3);
  h.created_at = s.column_int(4);
  h.ttl_ms = s.column_int(5);
  h.data = parse_json(s.column_text(6));
  return h;
}
}  // namespace

Result<std::optional<HandleRow>> JournalStore::get_handle(const std::string& protocol, const std::string& handle) {
  auto st =
      db_->prepare(std::string("SELECT ") + kHandleCols + " FROM protocol_handles WHERE protocol = ?1 AND handle = ?2");
  if (!st) return st.error();
  st->bind(1, protocol).bind(2, handle);
  auto rows = collect<HandleRow>(*st, read_handle);
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<HandleRow>();
  return std::optional<HandleRow>(std::move(rows->front()));
}

Result<std::vector<HandleRow>> JournalStore::live_handles(const std::string& protocol, int64_t now, int limit) {
  auto st = db_->prepare(std::string("SELECT ") + kHandleCols +
                         " FROM protocol_handles WHERE protocol = ?1 AND (ttl_ms = 0 OR created_at + ttl_ms > ?2)"
                         " ORDER BY created_at DESC, handle LIMIT ?3");
  if (!st) return st.error();
  st->bind(1, protocol).bind(2, now).bind(3, static_cast<int64_t>(limit > 0 ? limit : -1));
  return collect<HandleRow>(*st, read_handle);
}

Result<std::vector<SessionRow>> JournalStore::list_sessions(int limit) {
  auto st = db_->prepare(std::string("SELECT ") + kSessionCols +
                         " FROM sessions ORDER BY created_at DESC, rowid DESC LIMIT ?1");
  if (!st) return st.error();
  st->bind(1, static_cast<int64_t>(limit > 0 ? limit : -1));
  return collect<SessionRow>(*st, read_session);
}

Result<std::set<std::string>> JournalStore::sessions_with_unfinished_tasks() {
  auto st = db_->prepare("SELECT DISTINCT session_id FROM tasks WHERE status IN ('running', 'interrupted')");
  if (!st) return st.error();
  std::set<std::string> ids;
  while (true) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) return ids;
    ids.insert(st->column_text(0));
  }
}

Result<std::optional<SessionRow>> JournalStore::latest_session() {
  auto st = db_->prepare(std::string("SELECT ") + kSessionCols +
                         " FROM sessions WHERE json_extract(config_json, '$.host_session') IS NULL"
                         " ORDER BY created_at DESC, rowid DESC LIMIT 1");
  if (!st) return st.error();
  auto rows = collect<SessionRow>(*st, read_session);
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<SessionRow>();
  return std::optional<SessionRow>(std::move(rows->front()));
}

Result<std::vector<SessionRow>> JournalStore::hosted_sessions(const std::string& host_session) {
  auto st = db_->prepare(std::string("SELECT ") + kSessionCols +
                         " FROM sessions WHERE json_extract(config_json, '$.host_session') = ?1"
                         " ORDER BY created_at, rowid");
  if (!st) return st.error();
  st->bind(1, host_session);
  return collect<SessionRow>(*st, read_session);
}

Result<std::optional<SessionRow>> JournalStore::get_session(const std::string& id) {
  auto st = db_->prepare(std::string("SELECT ") + kSessionCols + " FROM sessions WHERE id = ?1");
  if (!st) return st.error();
  st->bind(1, id);
  auto rows = collect<SessionRow>(*st, read_session);
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<SessionRow>();
  return std::optional<SessionRow>(std::move(rows->front()));
}

Result<std::vector<TaskRow>> JournalStore::tasks(const std::string& session_id) {
  auto st =
      db_->prepare(std::string("SELECT ") + kTaskCols + " FROM tasks WHERE session_id = ?1 ORDER BY started_at, rowid");
  if (!st) return st.error();
  st->bind(1, session_id);
  return collect<TaskRow>(*st, read_task);
}

Result<std::vector<TaskRow>> JournalStore::hosted_tasks(const std::string& host_session, int limit) {
  auto st = db_->prepare(std::string("SELECT ") + kTaskCols +
                         " FROM tasks WHERE session_id = ?1 OR session_id IN (SELECT id FROM sessions WHERE"
                         " json_extract(config_json, '$.host_session') = ?1)"
                         " ORDER BY started_at DESC, rowid DESC LIMIT ?2");
  if (!st) return st.error();
  st->bind(1, host_session);
  st->bind(2, static_cast<int64_t>(limit > 0 ? limit : -1));  // SQLite: a negative LIMIT is none
  return collect<TaskRow>(*st, read_task);
}

Result<JournalStore::TaskPage> JournalStore::search_hosted_tasks(const std::string& host_session,
                                                                 const std::string& text, const std::string& status,
                                                                 int limit, int offset) {
  // SQLite's lower() folds ASCII only, as promised; instr() takes the text
  // literally (LIKE would read % and _ in it as wildcards).
  const std::string where =
      " FROM tasks WHERE (session_id = ?1 OR session_id IN (SELECT id FROM sessions WHERE"
      " json_extract(config_json, '$.host_session') = ?1)) AND (?2 = '' OR status = ?2) AND (?3 = '' OR"
      " instr(lower(id), ?3) > 0 OR instr(lower(input), ?3) > 0 OR instr(lower(final_answer), ?3) > 0)";
  std::string needle = text;
  for (char& c : needle)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  auto count = db_->prepare("SELECT count(*)" + where);
  if (!count) return count.error();
  count->bind(1, host_session).bind(2, status).bind(3, needle);
  auto counted = count->step();
  if (!counted) return counted.error();
  TaskPage page;
  page.total = count->column_int(0);
  auto st = db_->prepare(std::string("SELECT ") + kTaskCols + where +
                         " ORDER BY started_at DESC, rowid DESC LIMIT ?4 OFFSET ?5");
  if (!st) return st.error();
  st->bind(1, host_session).bind(2, status).bind(3, needle);
  st->bind(4, static_cast<int64_t>(limit)).bind(5, static_cast<int64_t>(offset));
  auto rows = collect<TaskRow>(*st, read_task);
  if (!rows) return rows.error();
  page.rows = std::move(*rows);
  return page;
}

Result<std::optional<TaskRow>> JournalStore::get_task(const std::string& task_id) {
  auto st = db_->prepare(std::string("SELECT ") + kTaskCols + " FROM tasks WHERE id = ?1");
  if (!st) return st.error();
  st->bind(1, task_id);
  auto rows = collect<TaskRow>(*st, read_task);
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<TaskRow>();
  return std::optional<TaskRow>(std::move(rows->front()));
}

Result<std::vector<StepRow>> JournalStore::query_steps(const std::string& column, const std::string& id, int limit) {
  // Every step: one ordered read. (Through the subquery below, SQLite sorts
  // the rows, payloads and all, twice.)
  if (limit <= 0) {
    auto st = db_->prepare(std::string("SELECT ") + kStepCols + " FROM steps WHERE " + column + " = ?1 ORDER BY id");
    if (!st) return st.error();
    st->bind(1, id);
    return collect<StepRow>(*st, read_step);
  }
  // The last `limit` steps, then back to chronological order.
  auto st = db_->prepare(std::string("SELECT * FROM (SELECT ") + kStepCols + " FROM steps WHERE " + column +
                         " = ?1 ORDER BY id DESC LIMIT ?2) ORDER BY id");
  if (!st) return st.error();
  st->bind(1, id).bind(2, static_cast<int64_t>(limit));
  return collect<StepRow>(*st, read_step);
}

Result<std::vector<StepRow>> JournalStore::session_steps(const std::string& session_id, int limit) {
  return query_steps("session_id", session_id, limit);
}

Result<std::vector<StepRow>> JournalStore::task_steps(const std::string& task_id, int limit) {
  return query_steps("task_id", task_id, limit);
}

Result<std::vector<AgentRow>> JournalStore::query_agents(const std::string& where, const std::string& session_id) {
  auto st =
      db_->prepare(std::string("SELECT ") + kAgentCols + " FROM agents WHERE " + where + " ORDER BY hired_at, rowid");
  if (!st) return st.error();
  st->bind(1, session_id);
  return collect<AgentRow>(*st, read_agent);
}

Result<std::vector<AgentRow>> JournalStore::active_agents(const std::string& session_id) {
  return query_agents("session_id = ?1 AND state = 'hired'", session_id);
}

Result<std::vector<AgentRow>> JournalStore::all_agents(const std::string& session_id) {
  return query_agents("session_id = ?1", session_id);
}

Status JournalStore::save_quality(const QualityRow& row) {
  return in_txn([&]() -> Status {
    auto st = db_->prepare(
        "INSERT INTO agent_quality(agent, q, verdicts, updated_at) VALUES (?1,?2,?3,?4) "
        "ON CONFLICT(agent) DO UPDATE SET q=excluded.q, verdicts=excluded.verdicts, "
        "updated_at=excluded.updated_at");
    if (!st) return st.error();
    return st->bind_all(row.agent, row.q, row.verdicts, or_now(row.updated_at)).run();
  });
}

Result<std::optional<QualityRow>> JournalStore::load_quality(const std::string& agent) {
  auto st = db_->prepare("SELECT agent, q, verdicts, updated_at FROM agent_quality WHERE agent = ?1");
  if (!st) return st.error();
  st->bind(1, agent);
  auto r = st->step();
  if (!r) return r.error();
  if (!*r) return std::optional<QualityRow>();
  return std::optional<QualityRow>(
      QualityRow{st->column_text(0), st->column_double(1), st->column_int(2), st->column_int(3)});
}

Result<std::vector<QualityRow>> JournalStore::quality_rows(const std::string& prefix) {
  // Keys from `prefix` on, compared as bytes (no LIKE: '%' and '_' in a prefix are literal).
  auto st = db_->prepare("SELECT agent, q, verdicts, updated_at FROM agent_quality WHERE agent >= ?1 ORDER BY agent");
  if (!st) return st.error();
  st->bind(1, prefix);
  std::vector<QualityRow> rows;
  while (true) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    std::string agent = st->column_text(0);
    if (agent.compare(0, prefix.size(), prefix) != 0) break;
    rows.push_back(QualityRow{std::move(agent), st->column_double(1), st->column_int(2), st->column_int(3)});
  }
  return rows;
}

Status JournalStore::save_state(const StateRow& row) {
  if (row.strategy.empty() || row.key.empty())
    return Error{"store", "strategy state needs a strategy and a key (got '" + row.strategy + "', '" + row.key + "')"};
  return in_txn([&]() -> Status {
    // A change already saved (the same task, change and key: a resumed
    // task's replay, or its outcome made again because it was not kept)
    // keeps its place among the versions and takes the value made now.
    auto st = db_->prepare(
        "INSERT INTO strategy_state(strategy, key, value_json, task_id, change, at) "
        "VALUES (?1, ?2, ?3, NULLIF(?4, ''), NULLIF(?5, ''), ?6) "
        "ON CONFLICT(strategy, task_id, change, key) DO UPDATE SET value_json = excluded.value_json");
    if (!st) return st.error();
    return st->bind_all(row.strategy, row.key, row.value.dump(), row.task_id, row.change, or_now(row.at)).run();
  });
}

namespace {
const char* kStateCols = "strategy, key, value_json, COALESCE(task_id, ''), COALESCE(change, ''), at";
}  // namespace

Result<std::vector<StateRow>> JournalStore::query_state(const std::string& where, const std::string& arg) {
  auto st = db_->prepare(std::string("SELECT ") + kStateCols + " FROM strategy_state s WHERE " + where +
                         " ORDER BY strategy, key");
  if (!st) return st.error();
  st->bind(1, arg);
  std::vector<StateRow> rows;
  while (true) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    rows.push_back(StateRow{st->column_text(0), st->column_text(1), parse_json(st->column_text(2)), st->column_text(3),
                            st->column_text(4), st->column_int(5)});
  }
  return rows;
}

Result<std::vector<StateRow>> JournalStore::state(const std::string& strategy) {
  return query_state(
      "strategy = ?1 AND id = (SELECT max(id) FROM strategy_state t WHERE t.strategy = s.strategy AND t.key = s.key)",
      strategy);
}

Result<std::vector<StateRow>> JournalStore::state_versions(const std::string& strategy, const std::string& key) {
  auto st = db_->prepare(std::string("SELECT ") + kStateCols +
                         " FROM strategy_state s WHERE strategy = ?1 AND key = ?2 ORDER BY id");
  if (!st) return st.error();
  st->bind(1, strategy);
  st->bind(2, key);
  std::vector<StateRow> rows;
  while (true) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    rows.push_back(StateRow{st->column_text(0), st->column_text(1), parse_json(st->column_text(2)), st->column_text(3),
                            st->column_text(4), st->column_int(5)});
  }
  return rows;
}

Result<std::vector<StateRow>> JournalStore::state_before_task(const std::string& task_id) {
  // Versions are rows in the order they were written: the latest of each
  // key written before the task's first change (every latest one when the
  // task changed nothing).
  return query_state(
      "id = (SELECT max(id) FROM strategy_state t WHERE t.strategy = s.strategy AND t.key = s.key AND "
      "t.id < COALESCE((SELECT min(id) FROM strategy_state WHERE task_id = ?1), 9223372036854775807))",
      task_id);
}

Result<std::optional<json>> JournalStore::load_budget_state(const std::string& session_id) {
  auto st = db_->prepare("SELECT state_json FROM budget_state WHERE session_id = ?1");
  if (!st) return st.error();
  st->bind(1, session_id);
  auto r = st->step();
  if (!r) return r.error();
  if (!*r) return std::optional<json>();
  return std::optional<json>(parse_json(st->column_text(0)));
}

Result<std::optional<json>> JournalStore::load_cost_table(const std::string& session_id) {
  auto st = db_->prepare("SELECT name, costs_json FROM cost_table WHERE session_id = ?1 ORDER BY rowid");
  if (!st) return st.error();
  st->bind(1, session_id);
  json table = json::object();
  bool any = false;
  while (true) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    any = true;
    table[st->column_text(0)] = parse_json(st->column_text(1));
  }
  if (!any) return std::optional<json>();
  return std::optional<json>(std::move(table));
}

Result<std::vector<LedgerEntryRow>> JournalStore::ledger_entries(const std::string& session_id) {
  auto st =
      db_->prepare(std::string("SELECT ") + kLedgerCols + " FROM ledger_entries WHERE session_id = ?1 ORDER BY id");
  if (!st) return st.error();
  st->bind(1, session_id);
  return collect<LedgerEntryRow>(*st, read_ledger);
}

Result<SpendTotals> JournalStore::spend_totals(const std::string& session_id) {
  auto st = db_->prepare(
      "SELECT count(*), COALESCE(SUM(status='done'), 0), COALESCE(SUM(status='failed'), 0), "
      "COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0), COALESCE(SUM(expense), 0), "
      "COALESCE(SUM(wall_ms), 0) FROM tasks WHERE ?1 = '' OR session_id = ?1 OR session_id IN "
      "(SELECT id FROM sessions WHERE json_extract(config_json, '$.host_session') = ?1)");
  if (!st) return st.error();
  st->bind(1, session_id);
  auto r = st->step();
  if (!r) return r.error();
  SpendTotals t;
  t.tasks = st->column_int(0);
  t.tasks_done = st->column_int(1);
  t.tasks_failed = st->column_int(2);
  t.tokens_in = st->column_int(3);
  t.tokens_out = st->column_int(4);
  t.expense = st->column_double(5);
  t.wall_ms = st->column_int(6);
  auto steps = db_->prepare(
      "SELECT count(*) FROM steps WHERE ?1 = '' OR session_id = ?1 OR session_id IN "
      "(SELECT id FROM sessions WHERE json_extract(config_json, '$.host_session') = ?1)");
  if (!steps) return steps.error();
  steps->bind(1, session_id);
  auto rs = steps->step();
  if (!rs) return rs.error();
  t.steps = steps->column_int(0);
  return t;
}

}  // namespace kaisha::store
