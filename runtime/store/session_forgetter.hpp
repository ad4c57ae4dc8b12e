// SessionForgetter: deletes sessions from an installation — their journal
// rows (JournalStore::forget_session) and what another store keeps of them
// (the memories, through SessionRecords) — each under its session lock, so
// that no process continues a session half-forgotten and none is forgotten
// while a process runs it. `kaisha forget` and retention on start
// (session_retention.hpp) both forget through it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "runtime/core/result.hpp"
#include "runtime/store/journal_rows.hpp"

namespace kaisha::store {

class JournalStore;

// Records another store keeps per session (memory::MemoryStore), forgotten
// with the session's journal.
class SessionRecords {
 public:
  virtual ~SessionRecords() = default;
  // Removes every record of `session_id`, its content zeroed; how many.
  virtual Result<int64_t> remove_session(const std::string& session_id) = 0;
  // Empties the store's write-ahead log (no copy of removed content stays).
  virtual Status compact_files() = 0;
};

// What forgetting one session removed.
struct ForgottenSession {
  std::string id;
  ForgottenRows rows;
  int64_t memories = 0;
};

class SessionForgetter {
 public:
  // `store_path` is the journal's (its session locks live beside it);
  // `records` may be null (no memory store yet). Both must outlive this.
  SessionForgetter(JournalStore& journal, std::string store_path, SessionRecords* records)
      : journal_(journal), store_path_(std::move(store_path)), records_(records) {}

  // Forgets one session: its journal rows, then its records, then its lock
  // file. Fails with code "session_busy" (naming the holder) when a process
  // holds the session — this one included — and forgets nothing then; so
  // too when `check`, run with the lock held, fails (its error). A failed
  // write is an error saying what was forgotten and what not.
  Result<ForgottenSession> forget(const std::string& session_id, const std::function<Status()>& check = {});
  // Empties the write-ahead logs of the journal and the records, so deleted
  // rows leave no copy there: call once after forgetting.
  Status compact_files();
  const std::string& store_path() const { return store_path_; }

 private:
  JournalStore& journal_;
  std::string store_path_;
  SessionRecords* records_;
};

}  // namespace kaisha::store
