// SessionLock: at most one process runs a session's tasks. Two processes
// appending to one session (two `kaisha run --continue`, `kaisha serve` and
// `kaisha run` on one store, two CEO nodes) would interleave their ledgers
// and each resume the other's interrupted work; the second one is refused.
//
// The lock is an exclusive flock(2) on `<store>.locks/<session>.lock`. The
// kernel drops it when the holder exits, however it exits (SIGKILL
// included), so a lock left by a dead process is simply free: nothing is
// stale and nothing has to be broken. The file holds a line naming the
// holder (pid, command, host, since when), for the refusal message. Its
// descriptor is close-on-exec, so child processes (sandboxes, MCP servers)
// never keep it alive.
//
// Scope: processes on one machine sharing the store file, which is the only
// way two processes can share a session (the journal is a local SQLite file).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::store {

class SessionLock {
 public:
  // Takes `session_id`'s lock for the store at `store_path`, creating the
  // lock directory if needed. Fails with code "session_busy" and a message
  // naming the process that holds it, or "store" when the lock file cannot
  // be made.
  static Result<std::unique_ptr<SessionLock>> acquire(const std::string& store_path, const std::string& session_id);
  // Who holds `session_id`'s lock now ("pid 42 (kaisha run) on host ..."),
  // nullopt when nobody does. Takes and drops the lock to find out.
  static Result<std::optional<std::string>> holder(const std::string& store_path, const std::string& session_id);
  // Who holds any session lock of the store at `store_path` now, one line
  // per holder (empty: no live process runs a session of it).
  static std::vector<std::string> holders(const std::string& store_path);
  // Where the lock of `session_id` lives (characters outside [A-Za-z0-9._-]
  // are written %XX).
  static std::string lock_path(const std::string& store_path, const std::string& session_id);

  ~SessionLock();  // releases the lock (the file stays)
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

 private:
  explicit SessionLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace kaisha::store
