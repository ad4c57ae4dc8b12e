#include "runtime/store/session_forgetter.hpp"

#include <filesystem>

#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"

namespace kaisha::store {

Result<ForgottenSession> SessionForgetter::forget(const std::string& session_id, const std::function<Status()>& check) {
  // Held while deleting: nobody continues the session half-forgotten.
  auto lock = SessionLock::acquire(store_path_, session_id);
  if (!lock.ok()) return lock.error();
  if (check)
    if (Status s = check(); !s.ok()) return s.error();
  ForgottenSession out;
  out.id = session_id;
  auto rows = journal_.forget_session(session_id);
  if (!rows.ok()) return rows.error();
  out.rows = *rows;
  if (records_) {
    auto n = records_->remove_session(session_id);
    if (!n.ok())
      return Error{n.error().code,
                   "session " + session_id + "'s journal is forgotten, its memories not: " + n.error().message};
    out.memories = *n;
  }
  std::error_code ec;
  std::filesystem::remove(SessionLock::lock_path(store_path_, session_id), ec);
  return out;
}

Status SessionForgetter::compact_files() {
  if (Status s = journal_.compact_files(); !s.ok()) return s;
  if (records_) return records_->compact_files();
  return Status::Ok();
}

}  // namespace kaisha::store
