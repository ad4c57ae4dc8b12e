#include "runtime/store/session_retention.hpp"

#include <algorithm>
#include <map>

#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"

namespace kaisha::store {
namespace {

constexpr int64_t kDayMs = 24LL * 60 * 60 * 1000;

std::string count_of(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string RetentionPolicy::describe() const {
  std::string out;
  if (keep_days > 0) out += "journal.keep_days " + std::to_string(keep_days);
  if (keep_sessions > 0)
    out += (out.empty() ? "" : ", ") + std::string("journal.keep_sessions ") + std::to_string(keep_sessions);
  return out;
}

std::vector<std::string> sessions_past_retention(const std::vector<RetentionCandidate>& sessions,
                                                 const RetentionPolicy& policy, const std::string& current,
                                                 int64_t now_ms) {
  if (!policy.active()) return {};
  std::vector<RetentionCandidate> newest_first = sessions;
  std::stable_sort(
      newest_first.begin(), newest_first.end(),
      [](const RetentionCandidate& a, const RetentionCandidate& b) { return a.created_at > b.created_at; });
  std::vector<std::string> out;
  for (size_t rank = 0; rank < newest_first.size(); ++rank) {
    const RetentionCandidate& s = newest_first[rank];
    const bool too_old = policy.keep_days > 0 && s.created_at < now_ms - policy.keep_days * kDayMs;
    const bool too_many = policy.keep_sessions > 0 && static_cast<int64_t>(rank) >= policy.keep_sessions;
    if ((too_old || too_many) && s.id != current && !s.unfinished) out.push_back(s.id);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

int64_t RetentionReport::steps() const {
  int64_t n = 0;
  for (const auto& f : forgotten) n += f.rows.steps;
  return n;
}

int64_t RetentionReport::memories() const {
  int64_t n = 0;
  for (const auto& f : forgotten) n += f.memories;
  return n;
}

std::string RetentionReport::summary(const RetentionPolicy& policy) const {
  if (forgotten.empty()) return "";
  std::string line = "journal retention (" + policy.describe() + "): forgot " +
                     count_of(static_cast<int64_t>(forgotten.size()), "session", "sessions") + " (" +
                     count_of(steps(), "step", "steps");
  if (memories() > 0) line += ", " + count_of(memories(), "memory", "memories");
  line += ")";
  if (!held.empty())
    line += "; " + count_of(static_cast<int64_t>(held.size()), "session", "sessions") +
            " past retention kept (held by a live process)";
  return line;
}

Result<RetentionReport> apply_retention(JournalStore& journal, SessionForgetter& forgetter,
                                        const RetentionPolicy& policy, const std::string& current, int64_t now_ms) {
  RetentionReport report;
  if (!policy.active()) return report;
  auto sessions = journal.list_sessions();
  if (!sessions.ok()) return sessions.error();
  auto unfinished = journal.sessions_with_unfinished_tasks();
  if (!unfinished.ok()) return unfinished.error();
  std::vector<RetentionCandidate> candidates;
  std::map<std::string, std::string> host_of;  // a server's client session -> the server's own
  candidates.reserve(sessions->size());
  for (const auto& s : *sessions) {
    candidates.push_back({s.id, s.created_at, unfinished->count(s.id) > 0});
    if (s.config.is_object() && s.config.contains("host_session") && s.config["host_session"].is_string())
      host_of[s.id] = s.config["host_session"].get<std::string>();
  }
  for (const std::string& id : sessions_past_retention(candidates, policy, current, now_ms)) {
    // Again under the session's lock: a process may have started a task in
    // it since the listing (and ended, releasing the lock).
    auto still_finished = [&]() -> Status {
      if (auto host = host_of.find(id); host != host_of.end()) {
        auto holder = SessionLock::holder(forgetter.store_path(), host->second);
        if (!holder.ok()) return holder.error();
        if (holder->has_value())
          return Error{"session_busy", "session " + id + " belongs to a server running in " + **holder};
      }
      auto tasks = journal.tasks(id);
      if (!tasks.ok()) return tasks.error();
      for (const auto& t : *tasks)
        if (t.status == "running" || t.status == "interrupted")
          return Error{"unfinished", "session " + id + " has an unfinished task"};
      return Status::Ok();
    };
    auto f = forgetter.forget(id, still_finished);
    if (f.ok()) {
      report.forgotten.push_back(std::move(f).value());
    } else if (f.error().code == "unfinished") {
      continue;
    } else if (f.error().code == "session_busy") {
      report.held.push_back(id);
    } else {
      return f.error();
    }
  }
  if (!report.forgotten.empty())
    if (Status s = forgetter.compact_files(); !s.ok()) return s.error();
  return report;
}

}  // namespace kaisha::store
