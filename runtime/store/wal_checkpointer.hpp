// WalCheckpointer: moves a writer's write-ahead log into the database file
// from a thread of its own, so that no commit of the writer waits for it.
//
// SQLite checkpoints a WAL database inside the COMMIT that takes the log past
// 1,000 pages, and a checkpoint syncs the database file: milliseconds, on
// whichever commit was unlucky. A journal commit is on reply paths (the
// ledger answers once its change is committed), so the writer's automatic
// checkpoints are turned off and this class runs them instead, on its own
// connection: a passive checkpoint never blocks the writer, which keeps
// appending to the log while older frames are copied. Once a checkpoint has
// copied the whole log, the writer starts it over from the beginning, and
// cuts the file back to `pages` pages if a burst made it longer.
//
// Durability needs nothing of its own here: at synchronous=NORMAL and FULL
// alike SQLite syncs the log before a checkpoint copies it and the database
// file after, and the writer syncs the log's header when it starts the log
// over; FULL only adds a sync of the log at each commit, which this class's
// connection never makes. (fullfsync and checkpoint_fullfsync ask for
// F_FULLFSYNC, which only macOS has; on Linux every sync is fdatasync.)
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/core/result.hpp"

namespace kaisha::store {

class SqliteDb;

class WalCheckpointer {
 public:
  // Takes over `writer`'s checkpoints (the database at `path`); checkpoints
  // once its log holds `pages` pages or more. `writer` must outlive this.
  static Result<std::unique_ptr<WalCheckpointer>> start(SqliteDb& writer, const std::string& path, int pages = 1000);
  // Stops the thread; the writer checkpoints by itself again.
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Checkpoints done so far (tests).
  int checkpoints() const;

 private:
  WalCheckpointer(SqliteDb& writer, std::unique_ptr<SqliteDb> own, int pages);
  void on_commit(int wal_pages);  // on the writer's thread
  void loop();

  SqliteDb& writer_;
  std::unique_ptr<SqliteDb> own_;
  const int pages_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool due_ = false;
  bool stop_ = false;
  int done_ = 0;
  std::thread thread_;
};

}  // namespace kaisha::store
