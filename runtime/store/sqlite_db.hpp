// SqliteDb / Statement: a small RAII layer over the SQLite C API.
//
// A connection opened read-write is put in WAL mode (readers in other
// processes never block the writer, nor the writer them) with
// synchronous=NORMAL (a commit survives the process being killed, not a
// power loss) or, with Durability::full, synchronous=FULL (it survives a
// power loss too); it waits up to
// busy_timeout = 5000 ms for locks held by other connections, and enforces
// foreign keys. Every failure comes back as an Error (code "store") holding
// SQLite's message, the database path and the statement text.
//
// A SqliteDb, and the Statements prepared from it, belong to one thread at a
// time (SQLite's multi-thread mode); a Statement must not outlive its SqliteDb.
#pragma once

#include <unordered_map>
#include <vector>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/result.hpp"
#include "runtime/store/durability.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace kaisha::store {

class SqliteDb;

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds by 1-based index. A bind failure is remembered and returned by the
  // next step()/run(), so binds can be chained.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind_null(int index);
  // Binds NULL for an empty string (optional foreign keys such as task_id).
  Statement& bind_or_null(int index, const std::string& text);

  // Binds args to ?1, ?2, ... in order.
  template <class... Args>
  Statement& bind_all(const Args&... args) {
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }

  // Advances: true when a row is available, false when done.
  Result<bool> step();
  // Steps to completion (INSERT/UPDATE/DDL).
  Status run();
  // Rewinds for re-execution and clears bindings.
  void reset();

  // Column accessors for the current row (0-based). NULL reads as 0 / "".
  int64_t column_int(int col) const;
  double column_double(int col) const;
  std::string column_text(int col) const;
  bool column_is_null(int col) const;

 private:
  friend class SqliteDb;
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string sql, const std::string* path, SqliteDb* owner);
  Error error(int rc) const;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  const std::string* path_ = nullptr;  // owned by the SqliteDb
  SqliteDb* owner_ = nullptr;          // gets the compiled statement back for reuse
  std::optional<Error> bind_error_;
};

class SqliteDb {
 public:
  struct Options {
    bool read_only = false;  // SQLITE_OPEN_READONLY; the file must exist
    bool create = true;      // create the file when missing (read-write only)
    int busy_timeout_ms = 5000;
    Durability durability = Durability::normal;  // read-write only
  };

  // Opens and verifies that the file is a SQLite database (a text file or a
  // corrupt header fails here, naming the path).
  static Result<std::unique_ptr<SqliteDb>> open(const std::string& path, Options options);
  static Result<std::unique_ptr<SqliteDb>> open(const std::string& path) { return open(path, Options{}); }
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements without results.
  Status exec(const std::string& sql);
  // Compiled statements are cached by SQL text: a Statement hands its
  // sqlite3_stmt back (reset, bindings cleared) when destroyed, and the next
  // prepare() of the same text reuses it instead of compiling again.
  Result<Statement> prepare(const std::string& sql);

  // BEGIN IMMEDIATE / COMMIT / ROLLBACK. Immediate so that a writer takes the
  // write lock up front (waiting busy_timeout) instead of failing at COMMIT.
  Status begin();
  Status commit();
  Status rollback();
  // Runs `body` in a transaction: commits when it returns Ok, rolls back
  // otherwise (and returns its error). Returns only after the commit.
  Status transaction(const std::function<Status()>& body);

  int64_t last_insert_rowid() const;
  int changes() const;
  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  sqlite3* handle() { return db_; }

 private:
  SqliteDb(sqlite3* db, std::string path, bool read_only);
  Error error(const std::string& what, const std::string& sql) const;

  friend class Statement;
  void give_back(std::string sql, sqlite3_stmt* stmt);

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> cache_;
  bool read_only_;
};

}  // namespace kaisha::store
