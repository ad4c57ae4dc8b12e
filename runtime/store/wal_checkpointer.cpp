#include "runtime/store/wal_checkpointer.hpp"

#include <sqlite3.h>

#include "runtime/store/sqlite_db.hpp"

namespace kaisha::store {

Result<std::unique_ptr<WalCheckpointer>> WalCheckpointer::start(SqliteDb& writer, const std::string& path, int pages) {
  auto own = SqliteDb::open(path);
  if (!own.ok()) return own.error();
  // A log that grew during a burst is cut back to this when it starts over
  // (SQLite otherwise keeps the file at its largest size).
  if (Status st = writer.exec("PRAGMA journal_size_limit=" + std::to_string(int64_t(pages) * 4096)); !st.ok())
    return st.error();
  return std::unique_ptr<WalCheckpointer>(new WalCheckpointer(writer, std::move(own).value(), pages));
}

WalCheckpointer::WalCheckpointer(SqliteDb& writer, std::unique_ptr<SqliteDb> own, int pages)
    : writer_(writer), own_(std::move(own)), pages_(pages) {
  // Replaces the automatic checkpoint (itself a WAL hook) of the writer.
  sqlite3_wal_hook(
      writer_.handle(),
      [](void* self, sqlite3*, const char*, int wal_pages) {
        static_cast<WalCheckpointer*>(self)->on_commit(wal_pages);
        return SQLITE_OK;
      },
      this);
  thread_ = std::thread([this] { loop(); });
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_autocheckpoint(writer_.handle(), 1000);  // the writer's own again
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

int WalCheckpointer::checkpoints() const {
  std::lock_guard<std::mutex> g(mu_);
  return done_;
}

void WalCheckpointer::on_commit(int wal_pages) {
  if (wal_pages < pages_) return;
  {
    std::lock_guard<std::mutex> g(mu_);
    due_ = true;
  }
  cv_.notify_one();
}

void WalCheckpointer::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return due_ || stop_; });
    if (stop_) return;
    due_ = false;
    lock.unlock();
    // Passive: copies what no reader still needs, waits for nobody. A
    // failure (the file is busy) is retried at the next commit past the mark.
    sqlite3_wal_checkpoint_v2(own_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    lock.lock();
    ++done_;
  }
}

}  // namespace kaisha::store
