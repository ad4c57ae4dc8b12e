#include "runtime/memory/memory_store.hpp"

#include <chrono>
#include <cstring>

#include "runtime/memory/fts_query.hpp"

namespace kaisha::memory {
namespace {

using store::SqliteDb;
using store::Statement;

// Forward migrations: kMigrations[i] takes the schema from version i to i+1.
// Never edit a released entry; append a new one.
const std::vector<std::string> kMigrations = {
    // 0 -> 1. `memories` and its indices are effgen.md §8.2 verbatim.
    R"sql(
CREATE TABLE memories (
  id TEXT PRIMARY KEY, content TEXT NOT NULL, memory_type TEXT NOT NULL,
  importance INTEGER NOT NULL, timestamp REAL NOT NULL, session_id TEXT,
  metadata TEXT, access_count INTEGER DEFAULT 0, last_accessed REAL, tags TEXT);
CREATE INDEX idx_timestamp ON memories(timestamp);
CREATE INDEX idx_importance ON memories(importance);
CREATE INDEX idx_session ON memories(session_id);
CREATE INDEX idx_type ON memories(memory_type);
-- AUTOINCREMENT: a label is never reused, so a persisted vector index can
-- never confuse a deleted memory with a new one.
CREATE TABLE memory_index (
  label     INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id TEXT NOT NULL UNIQUE REFERENCES memories(id) ON DELETE CASCADE,
  model     TEXT NOT NULL DEFAULT '',
  dims      INTEGER NOT NULL DEFAULT 0,
  vector    BLOB
);
CREATE INDEX memory_index_by_model ON memory_index(model, label);
CREATE VIRTUAL TABLE memories_fts USING fts5(content);
CREATE TABLE memory_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO memory_meta(name, value) VALUES ('generation', 0);
)sql",
};

const char* kEntrySelect =
    "SELECT m.id, m.content, m.memory_type, m.importance, m.timestamp, COALESCE(m.session_id, ''), "
    "COALESCE(m.metadata, '{}'), COALESCE(m.access_count, 0), COALESCE(m.last_accessed, 0), "
    "COALESCE(m.tags, '[]'), i.label FROM memories m JOIN memory_index i ON i.memory_id = m.id ";

MemoryEntry read_entry(const Statement& s) {
  MemoryEntry e;
  e.id = s.column_text(0);
  e.content = s.column_text(1);
  e.type = parse_type(s.column_text(2)).value_or(MemoryType::fact);
  const int64_t imp = s.column_int(3);
  e.importance = static_cast<Importance>(imp < 1 ? 1 : imp > 4 ? 4 : imp);
  e.timestamp = s.column_double(4);
  e.session_id = s.column_text(5);
  json meta = json::parse(s.column_text(6), nullptr, false);
  e.metadata = meta.is_object() ? meta : json::object();
  e.access_count = s.column_int(7);
  e.last_accessed = s.column_double(8);
  json tags = json::parse(s.column_text(9), nullptr, false);
  if (tags.is_array())
    for (const auto& t : tags)
      if (t.is_string()) e.tags.push_back(t.get<std::string>());
  e.label = s.column_int(10);
  return e;
}

std::string to_bytes(const std::vector<float>& v) {
  std::string bytes(v.size() * sizeof(float), '\0');
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

std::vector<float> from_bytes(const std::string& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

}  // namespace

double now_seconds() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) / 1000.0;
}

int MemoryStore::current_schema_version() { return static_cast<int>(kMigrations.size()); }

Result<std::unique_ptr<MemoryStore>> MemoryStore::open(const std::string& path, store::Durability durability) {
  SqliteDb::Options o;
  o.durability = durability;
  auto db = SqliteDb::open(path, o);
  if (!db) return db.error();
  std::unique_ptr<MemoryStore> store(new MemoryStore(std::move(*db)));
  if (Status s = store->migrate(); !s) return s.error();
  return store;
}

Status MemoryStore::migrate() {
  return db_->transaction([&]() -> Status {
    if (Status s = db_->exec("CREATE TABLE IF NOT EXISTS memory_schema_version (version INTEGER NOT NULL)"); !s)
      return s;
    auto q = db_->prepare("SELECT COALESCE(MAX(version), 0) FROM memory_schema_version");
    if (!q) return q.error();
    if (auto r = q->step(); !r) return r.error();
    int version = static_cast<int>(q->column_int(0));
    if (version > current_schema_version())
      return Error{"store", db_->path() + ": memory schema version " + std::to_string(version) +
                                " is newer than this kaisha (" + std::to_string(current_schema_version()) + ")"};
    for (; version < current_schema_version(); ++version)
      if (Status s = db_->exec(kMigrations[version]); !s) return s;
    if (Status s = db_->exec("DELETE FROM memory_schema_version"); !s) return s;
    auto ins = db_->prepare("INSERT INTO memory_schema_version(version) VALUES (?1)");
    if (!ins) return ins.error();
    return ins->bind_all(version).run();
  });
}

Status MemoryStore::bump_generation() {
  return db_->exec("UPDATE memory_meta SET value = value + 1 WHERE name = 'generation'");
}

Status MemoryStore::insert(MemoryEntry& e) {
  if (e.timestamp == 0) e.timestamp = now_seconds();
  json tags = e.tags;
  auto ins = db_->prepare(
      "INSERT INTO memories(id, content, memory_type, importance, timestamp, session_id, metadata, "
      "access_count, last_accessed, tags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!ins) return ins.error();
  ins->bind_all(e.id, e.content, std::string(type_name(e.type)), static_cast<int64_t>(e.importance), e.timestamp);
  ins->bind_or_null(6, e.session_id);
  ins->bind(7, e.metadata.dump()).bind(8, e.access_count);
  if (e.last_accessed > 0)
    ins->bind(9, e.last_accessed);
  else
    ins->bind_null(9);
  ins->bind(10, tags.dump());
  if (Status s = ins->run(); !s) return s;
  auto idx = db_->prepare("INSERT INTO memory_index(memory_id) VALUES (?1)");
  if (!idx) return idx.error();
  if (Status s = idx->bind_all(e.id).run(); !s) return s;
  e.label = db_->last_insert_rowid();
  auto fts = db_->prepare("INSERT INTO memories_fts(rowid, content) VALUES (?1, ?2)");
  if (!fts) return fts.error();
  return fts->bind_all(e.label, e.content).run();
}

Result<int64_t> MemoryStore::add(MemoryEntry& e) {
  if (e.id.empty()) return Error{"memory", "a memory needs a non-empty id"};
  auto existing = find(e.id);
  if (!existing) return existing.error();
  if (existing->has_value()) return Error{"exists", "memory '" + e.id + "' already exists"};
  Status s = db_->transaction([&]() -> Status {
    if (Status st = insert(e); !st) return st;
    return bump_generation();
  });
  if (!s) return s.error();
  return e.label;
}

Result<size_t> MemoryStore::add_many(std::vector<MemoryEntry>& entries) {
  size_t added = 0;
  Status s = db_->transaction([&]() -> Status {
    auto exists = db_->prepare("SELECT 1 FROM memories WHERE id = ?1");
    if (!exists) return exists.error();
    for (auto& e : entries) {
      exists->reset();
      auto r = exists->bind_all(e.id).step();
      if (!r) return r.error();
      if (*r || e.id.empty()) continue;
      if (Status st = insert(e); !st) return st;
      ++added;
    }
    return bump_generation();
  });
  if (!s) return s.error();
  return added;
}

Result<bool> MemoryStore::remove(const std::string& id) {
  bool removed = false;
  Status s = db_->transaction([&]() -> Status {
    auto q = db_->prepare("SELECT label FROM memory_index WHERE memory_id = ?1");
    if (!q) return q.error();
    auto r = q->bind_all(id).step();
    if (!r) return r.error();
    if (!*r) return Status::Ok();
    const int64_t label = q->column_int(0);
    auto fts = db_->prepare("DELETE FROM memories_fts WHERE rowid = ?1");
    if (!fts) return fts.error();
    if (Status st = fts->bind_all(label).run(); !st) return st;
    auto del = db_->prepare("DELETE FROM memories WHERE id = ?1");  // memory_index row cascades
    if (!del) return del.error();
    if (Status st = del->bind_all(id).run(); !st) return st;
    removed = true;
    return bump_generation();
  });
  if (!s) return s.error();
  return removed;
}

Result<int64_t> MemoryStore::remove_session(const std::string& session) {
  if (session.empty()) return Error{"memory", "remove_session needs a session id"};
  if (Status s = db_->exec("PRAGMA secure_delete=ON"); !s) return s.error();
  auto entries = list(0, session);
  if (!entries.ok()) return entries.error();
  int64_t removed = 0;
  for (const auto& e : *entries) {
    auto r = remove(e.id);
    if (!r.ok()) return r.error();
    removed += *r;
  }
  return removed;
}

Status MemoryStore::compact_files() {
  if (Status s = db_->exec("INSERT INTO memories_fts(memories_fts) VALUES('optimize')"); !s) return s;
  return db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

Result<std::vector<MemoryEntry>> MemoryStore::query(const std::string& tail,
                                                    const std::function<void(Statement&)>& bind) {
  auto q = db_->prepare(kEntrySelect + tail);
  if (!q) return q.error();
  bind(*q);
  std::vector<MemoryEntry> out;
  while (true) {
    auto r = q->step();
    if (!r) return r.error();
    if (!*r) return out;
    out.push_back(read_entry(*q));
  }
}

Result<std::optional<MemoryEntry>> MemoryStore::find(const std::string& id) {
  auto rows = query("WHERE m.id = ?1", [&](Statement& s) { s.bind(1, id); });
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<MemoryEntry>();
  return std::optional<MemoryEntry>(std::move(rows->front()));
}

Result<std::optional<MemoryEntry>> MemoryStore::find_by_content(const std::string& content) {
  auto rows = query("WHERE m.content = ?1 ORDER BY i.label LIMIT 1", [&](Statement& s) { s.bind(1, content); });
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<MemoryEntry>();
  return std::optional<MemoryEntry>(std::move(rows->front()));
}

Result<std::vector<MemoryEntry>> MemoryStore::by_labels(const std::vector<int64_t>& labels) {
  std::vector<MemoryEntry> out;
  for (int64_t label : labels) {
    auto rows = query("WHERE i.label = ?1", [&](Statement& s) { s.bind(1, label); });
    if (!rows) return rows.error();
    for (auto& e : *rows) out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<MemoryEntry>> MemoryStore::list(int64_t limit, const std::string& session) {
  std::string tail = session.empty() ? "" : "WHERE m.session_id = ?2 ";
  tail += "ORDER BY i.label LIMIT ?1";
  return query(tail, [&](Statement& s) {
    s.bind(1, limit > 0 ? limit : int64_t{-1});
    if (!session.empty()) s.bind(2, session);
  });
}

Result<int64_t> MemoryStore::count() {
  auto q = db_->prepare("SELECT count(*) FROM memories");
  if (!q) return q.error();
  if (auto r = q->step(); !r) return r.error();
  return q->column_int(0);
}

Status MemoryStore::set_vector(int64_t label, const std::string& model, const std::vector<float>& vec) {
  return set_vectors({{label, vec}}, model);
}

Status MemoryStore::set_vectors(const std::vector<std::pair<int64_t, std::vector<float>>>& vectors,
                                const std::string& model) {
  return db_->transaction([&]() -> Status {
    auto q = db_->prepare("UPDATE memory_index SET model = ?2, dims = ?3, vector = CAST(?4 AS BLOB) WHERE label = ?1");
    if (!q) return q.error();
    for (const auto& [label, vec] : vectors) {
      q->reset();
      if (Status s = q->bind_all(label, model, static_cast<int64_t>(vec.size()), to_bytes(vec)).run(); !s) return s;
    }
    return bump_generation();
  });
}

Result<std::optional<std::vector<float>>> MemoryStore::vector(int64_t label, const std::string& model) {
  auto q = db_->prepare("SELECT vector FROM memory_index WHERE label = ?1 AND model = ?2 AND vector IS NOT NULL");
  if (!q) return q.error();
  auto r = q->bind_all(label, model).step();
  if (!r) return r.error();
  if (!*r) return std::optional<std::vector<float>>();
  return std::optional<std::vector<float>>(from_bytes(q->column_text(0)));
}

Result<std::vector<std::pair<int64_t, std::string>>> MemoryStore::missing_vectors(const std::string& model,
                                                                                  int64_t after_label, int64_t limit) {
  auto q = db_->prepare(
      "SELECT i.label, m.content FROM memory_index i JOIN memories m ON m.id = i.memory_id "
      "WHERE i.label > ?3 AND (i.model != ?1 OR i.vector IS NULL) ORDER BY i.label LIMIT ?2");
  if (!q) return q.error();
  q->bind_all(model, limit > 0 ? limit : int64_t{-1}, after_label);
  std::vector<std::pair<int64_t, std::string>> out;
  while (true) {
    auto r = q->step();
    if (!r) return r.error();
    if (!*r) return out;
    out.emplace_back(q->column_int(0), q->column_text(1));
  }
}

Status MemoryStore::for_each_vector(const std::string& model,
                                    const std::function<void(int64_t, const std::vector<float>&)>& fn) {
  auto q =
      db_->prepare("SELECT label, vector FROM memory_index WHERE model = ?1 AND vector IS NOT NULL ORDER BY label");
  if (!q) return q.error();
  q->bind_all(model);
  while (true) {
    auto r = q->step();
    if (!r) return r.error();
    if (!*r) return Status::Ok();
    fn(q->column_int(0), from_bytes(q->column_text(1)));
  }
}

Result<int64_t> MemoryStore::vector_count(const std::string& model) {
  auto q = db_->prepare("SELECT count(*) FROM memory_index WHERE model = ?1 AND vector IS NOT NULL");
  if (!q) return q.error();
  if (auto r = q->bind_all(model).step(); !r) return r.error();
  return q->column_int(0);
}

Result<std::vector<LexicalHit>> MemoryStore::lexical(const std::string& text, int limit,
                                                     const std::set<std::string>& stopwords) {
  std::vector<LexicalHit> out;
  const std::string expr = fts_match_expression(text, stopwords);
  if (expr.empty() || limit <= 0) return out;
  auto q = db_->prepare(
      "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?1 "
      "ORDER BY bm25(memories_fts) LIMIT ?2");
  if (!q) return q.error();
  q->bind_all(expr, static_cast<int64_t>(limit));
  while (true) {
    auto r = q->step();
    if (!r) return r.error();
    if (!*r) return out;
    out.push_back({q->column_int(0), -q->column_double(1)});  // bm25: lower is better
  }
}

Status MemoryStore::touch(const std::vector<int64_t>& labels, double now) {
  if (labels.empty()) return Status::Ok();
  return db_->transaction([&]() -> Status {
    auto q = db_->prepare(
        "UPDATE memories SET access_count = COALESCE(access_count, 0) + 1, last_accessed = ?2 "
        "WHERE id = (SELECT memory_id FROM memory_index WHERE label = ?1)");
    if (!q) return q.error();
    for (int64_t label : labels) {
      q->reset();
      if (Status s = q->bind_all(label, now).run(); !s) return s;
    }
    return Status::Ok();
  });
}

Result<int64_t> MemoryStore::max_access_count() {
  auto q = db_->prepare("SELECT COALESCE(MAX(access_count), 0) FROM memories");
  if (!q) return q.error();
  if (auto r = q->step(); !r) return r.error();
  return q->column_int(0);
}

Result<int64_t> MemoryStore::generation() {
  auto q = db_->prepare("SELECT value FROM memory_meta WHERE name = 'generation'");
  if (!q) return q.error();
  if (auto r = q->step(); !r) return r.error();
  return q->column_int(0);
}

}  // namespace kaisha::memory
