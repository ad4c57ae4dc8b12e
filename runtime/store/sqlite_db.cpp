#include "runtime/store/sqlite_db.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <mutex>

namespace kaisha::store {

namespace {

// An error names the statement it came from, but a migration is a page of
// SQL: its first line, at most 80 bytes (cut before a UTF-8 continuation
// byte), says which statement it was.
std::string sql_excerpt(const std::string& sql) {
  size_t start = sql.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return "";
  size_t end = std::min(sql.find('\n', start), start + 80);
  while (end < sql.size() && end > start && (static_cast<unsigned char>(sql[end]) & 0xC0) == 0x80) --end;
  std::string out = sql.substr(start, end - start);
  return end < sql.size() ? out + " ..." : out;
}

}  // namespace

// ---- Statement ----------------------------------------------------------------

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt, std::string sql, const std::string* path, SqliteDb* owner)
    : db_(db), stmt_(stmt), sql_(std::move(sql)), path_(path), owner_(owner) {}

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_),
      stmt_(o.stmt_),
      sql_(std::move(o.sql_)),
      path_(o.path_),
      owner_(o.owner_),
      bind_error_(std::move(o.bind_error_)) {
  o.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    if (stmt_) {
      if (owner_)
        owner_->give_back(std::move(sql_), stmt_);
      else
        sqlite3_finalize(stmt_);
    }
    owner_ = o.owner_;
    db_ = o.db_;
    stmt_ = o.stmt_;
    sql_ = std::move(o.sql_);
    path_ = o.path_;
    bind_error_ = std::move(o.bind_error_);
    o.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() {
  if (!stmt_) return;
  if (owner_)
    owner_->give_back(std::move(sql_), stmt_);
  else
    sqlite3_finalize(stmt_);
}

Error Statement::error(int rc) const {
  std::string msg = sqlite3_errmsg(db_);
  if (msg.empty() || msg == "not an error") msg = sqlite3_errstr(rc);
  return Error{"store", (path_ ? *path_ : std::string("?")) + ": " + msg + " (in: " + sql_excerpt(sql_) + ")"};
}

#define KAISHA_BIND(call)                                           \
  do {                                                              \
    int rc_ = (call);                                               \
    if (rc_ != SQLITE_OK && !bind_error_) bind_error_ = error(rc_); \
  } while (0)

Statement& Statement::bind(int index, int64_t value) {
  KAISHA_BIND(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, double value) {
  KAISHA_BIND(sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  KAISHA_BIND(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::bind_null(int index) {
  KAISHA_BIND(sqlite3_bind_null(stmt_, index));
  return *this;
}

#undef KAISHA_BIND

Statement& Statement::bind_or_null(int index, const std::string& text) {
  return text.empty() ? bind_null(index) : bind(index, std::string_view(text));
}

Result<bool> Statement::step() {
  if (bind_error_) return *bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Error e = error(rc);
  sqlite3_reset(stmt_);
  return e;
}

Status Statement::run() {
  while (true) {
    auto r = step();
    if (!r) return r.error();
    if (!*r) return Status::Ok();
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_.reset();
}

int64_t Statement::column_int(int col) const { return sqlite3_column_int64(stmt_, col); }

double Statement::column_double(int col) const { return sqlite3_column_double(stmt_, col); }

std::string Statement::column_text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col));
}

bool Statement::column_is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

// ---- SqliteDb -----------------------------------------------------------------

SqliteDb::SqliteDb(sqlite3* db, std::string path, bool read_only)
    : db_(db), path_(std::move(path)), read_only_(read_only) {}

SqliteDb::~SqliteDb() {
  for (auto& [sql, stmts] : cache_)
    for (sqlite3_stmt* s : stmts) sqlite3_finalize(s);
  sqlite3_close_v2(db_);
}

void SqliteDb::give_back(std::string sql, sqlite3_stmt* stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  cache_[std::move(sql)].push_back(stmt);
}

Error SqliteDb::error(const std::string& what, const std::string& sql) const {
  std::string msg = what + " " + sqlite3_errmsg(db_);
  if (!sql.empty()) msg += " (in: " + sql_excerpt(sql) + ")";
  return Error{"store", path_ + ": " + msg};
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::open(const std::string& path, Options options) {
  // SQLite's memory statistics (sqlite3_memory_used, which nothing here
  // reads) take a global mutex on every allocation and free: about 2,000
  // lock/unlock pairs per journaled effgen task. Set before SQLite starts;
  // if something in the process started it already, it stays on (harmless).
  static std::once_flag no_memstatus;
  std::call_once(no_memstatus, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  int flags = SQLITE_OPEN_NOMUTEX;
  if (options.read_only)
    flags |= SQLITE_OPEN_READONLY;
  else
    flags |= SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0);
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close_v2(raw);
    return Error{"store", "cannot open database '" + path + "': " + msg};
  }
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, path, options.read_only));
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  // Reading the schema forces SQLite to look at the file header: a file that
  // is not a database fails here rather than at the first real query.
  std::string setup = "SELECT count(*) FROM sqlite_master;";
  // WAL with synchronous=NORMAL: a commit is in the WAL file (the kernel's
  // page cache) when it returns, so it survives the process being killed
  // (SIGKILL, OOM); only a power loss can lose the last commits, never
  // corrupt the file. FULL adds an fsync of the log to every commit, so a
  // commit survives a power loss as well. Either way a checkpoint syncs the
  // log before copying it and the database file after.
  if (!options.read_only) {
    const char* sync = options.durability == Durability::full ? "FULL" : "NORMAL";
    setup = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=") + sync + "; " + setup;
  }
  setup += " PRAGMA foreign_keys=ON;";
  if (sqlite3_exec(raw, setup.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error{"store", "cannot open database '" + path + "': " + sqlite3_errmsg(raw)};
  }
  return db;
}

Status SqliteDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Error{"store", path_ + ": " + msg + " (in: " + sql_excerpt(sql) + ")"};
  }
  return Status::Ok();
}

Result<Statement> SqliteDb::prepare(const std::string& sql) {
  if (auto it = cache_.find(sql); it != cache_.end() && !it->second.empty()) {
    sqlite3_stmt* cached = it->second.back();
    it->second.pop_back();
    return Statement(db_, cached, sql, &path_, this);
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
    return error("cannot prepare:", sql);
  }
  return Statement(db_, stmt, sql, &path_, this);
}

Status SqliteDb::begin() { return exec("BEGIN IMMEDIATE"); }
Status SqliteDb::commit() { return exec("COMMIT"); }
Status SqliteDb::rollback() { return exec("ROLLBACK"); }

// When `body` throws, the transaction is rolled back and the exception goes on.
Status SqliteDb::transaction(const std::function<Status()>& body) {
  if (Status s = begin(); !s) return s;
  Status s = [&] {
    try {
      return body();
    } catch (...) {
      // Left open, the transaction would make every later begin() fail.
      (void)rollback();
      throw;
    }
  }();
  if (!s) {
    (void)rollback();
    return s;
  }
  if (Status c = commit(); !c) {
    (void)rollback();
    return c;
  }
  return Status::Ok();
}

int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDb::changes() const { return sqlite3_changes(db_); }

}  // namespace kaisha::store
