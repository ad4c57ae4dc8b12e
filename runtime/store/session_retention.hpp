// Retention: how much history an installation keeps (config `journal:`
// keep_days, keep_sessions), applied by each process that opens the store to
// run tasks, through the same SessionForgetter as `kaisha forget`.
//
// A session is past retention when it was created more than keep_days days
// ago, or when it is not among the keep_sessions newest sessions (by
// creation; every session counts, a server's per-client sessions included).
// Never forgotten, whatever its age:
//   - the session the process is opening (new or resumed);
//   - a session with a task still `running` or `interrupted`: a resume can
//     still finish it;
//   - a session a live process holds (its session lock), this one included,
//     and a session a live server opened for a client beside the session it
//     holds (`kaisha serve` closes an idle client session and reopens it
//     when its client returns).
// What forgetting deletes and what it keeps (state kept across sessions) is
// written where the rows are deleted (JournalStore::forget_session).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/store/session_forgetter.hpp"

namespace kaisha::store {

class JournalStore;

struct RetentionPolicy {
  int64_t keep_days = 0;      // 0: age does not matter
  int64_t keep_sessions = 0;  // 0: the count does not matter
  bool active() const { return keep_days > 0 || keep_sessions > 0; }
  // "journal.keep_days 30, journal.keep_sessions 100" (the settings in force).
  std::string describe() const;
};

// A session as retention sees it.
struct RetentionCandidate {
  std::string id;
  int64_t created_at = 0;   // ms since the epoch
  bool unfinished = false;  // a task of it is `running` or `interrupted`
};

// The sessions `policy` forgets among `sessions`, oldest first; never
// `current`, never an unfinished one. Pure: session locks are the caller's
// (apply_retention() skips the held ones).
std::vector<std::string> sessions_past_retention(const std::vector<RetentionCandidate>& sessions,
                                                 const RetentionPolicy& policy, const std::string& current,
                                                 int64_t now_ms);

struct RetentionReport {
  std::vector<ForgottenSession> forgotten;
  std::vector<std::string> held;  // past retention, but a live process holds them: kept
  int64_t steps() const;
  int64_t memories() const;
  // The line a process prints: "journal retention (journal.keep_sessions 3):
  // forgot 2 sessions (40 steps, 1 memory)"; "" when nothing was forgotten.
  std::string summary(const RetentionPolicy& policy) const;
};

// Reads the journal's sessions, forgets those past retention (skipping any
// a live process holds, directly or as its server's host session), then empties the write-ahead logs when something
// was forgotten. Nothing when the policy is not active.
Result<RetentionReport> apply_retention(JournalStore& journal, SessionForgetter& forgetter,
                                        const RetentionPolicy& policy, const std::string& current, int64_t now_ms);

}  // namespace kaisha::store
