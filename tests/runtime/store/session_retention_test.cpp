#include "runtime/store/session_retention.hpp"

#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"
#include "store_test_util.hpp"

namespace kaisha::store {
namespace {

using testing::TempDirTest;

constexpr int64_t kDay = 24LL * 60 * 60 * 1000;
constexpr int64_t kNow = 1'800'000'000'000;  // ms since the epoch

// Sessions s1 (oldest) .. s5 (newest), one day apart, the newest a day old.
std::vector<RetentionCandidate> five_days() {
  std::vector<RetentionCandidate> v;
  for (int i = 1; i <= 5; ++i) v.push_back({"s" + std::to_string(i), kNow - (6 - i) * kDay, false});
  return v;
}

TEST(RetentionSelection, NothingWithoutAPolicy) {
  EXPECT_TRUE(sessions_past_retention(five_days(), {}, "", kNow).empty());
  EXPECT_FALSE(RetentionPolicy{}.active());
}

TEST(RetentionSelection, OlderThanKeepDaysOldestFirst) {
  // s1 is 5 days old, s2 4, s3 3, s4 2, s5 1: keep 3 days forgets s1 and s2;
  // s3, exactly 3 days old, stays.
  EXPECT_EQ(sessions_past_retention(five_days(), {3, 0}, "", kNow), (std::vector<std::string>{"s1", "s2"}));
  EXPECT_TRUE(sessions_past_retention(five_days(), {30, 0}, "", kNow).empty());
}

TEST(RetentionSelection, AllButTheNewestKeepSessions) {
  EXPECT_EQ(sessions_past_retention(five_days(), {0, 2}, "", kNow), (std::vector<std::string>{"s1", "s2", "s3"}));
  EXPECT_TRUE(sessions_past_retention(five_days(), {0, 5}, "", kNow).empty());
  // The order given does not matter: creation time decides.
  auto shuffled = five_days();
  std::swap(shuffled[0], shuffled[4]);
  std::swap(shuffled[1], shuffled[3]);
  EXPECT_EQ(sessions_past_retention(shuffled, {0, 2}, "", kNow), (std::vector<std::string>{"s1", "s2", "s3"}));
}

TEST(RetentionSelection, BothSettingsForgetWhatEitherForgets) {
  // keep_days 4 alone forgets s1; keep_sessions 3 alone s1 and s2.
  EXPECT_EQ(sessions_past_retention(five_days(), {4, 3}, "", kNow), (std::vector<std::string>{"s1", "s2"}));
  // keep_days 2 alone forgets s1..s3; keep_sessions 4 alone s1.
  EXPECT_EQ(sessions_past_retention(five_days(), {2, 4}, "", kNow), (std::vector<std::string>{"s1", "s2", "s3"}));
}

TEST(RetentionSelection, TheCurrentAndUnfinishedSessionsAreKept) {
  auto sessions = five_days();
  sessions[1].unfinished = true;  // s2: a task running or interrupted
  EXPECT_EQ(sessions_past_retention(sessions, {0, 1}, "s1", kNow), (std::vector<std::string>{"s3", "s4"}));
  // A resumed old session (the current one) stays, and does not make room
  // for older ones: the newest keep_sessions are counted as they are.
  EXPECT_EQ(sessions_past_retention(five_days(), {1, 0}, "s3", kNow), (std::vector<std::string>{"s1", "s2", "s4"}));
}

// apply_retention() on a real journal: locked and unfinished sessions stay,
// state kept across sessions is untouched, and records elsewhere go with
// their session.
class RetentionApplyTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    db_ = file("kaisha.db");
    auto j = JournalStore::open(db_);
    ASSERT_TRUE(j.ok()) << j.error().message;
    journal_ = std::move(j).value();
  }
  // A session created `days_ago` days before now with one task in `status`
  // and two steps.
  void add_session(const std::string& id, int64_t days_ago, const std::string& status = "done",
                   const json& config = json::object()) {
    SessionRow s;
    s.id = id;
    s.config = config;
    s.created_at = JournalStore::now_ms() - days_ago * kDay;
    ASSERT_TRUE(journal_->create_session(s).ok());
    ASSERT_TRUE(journal_->start_task(id, id + "-t", "task of " + id, s.created_at).ok());
    for (int i = 0; i < 2; ++i) {
      StepRow step;
      step.session_id = id;
      step.task_id = id + "-t";
      step.kind = "note";
      step.at = s.created_at;
      ASSERT_TRUE(journal_->append_step(step).ok());
    }
    if (status != "running") {
      TaskOutcome o;
      o.task_id = id + "-t";
      o.status = status;
      ASSERT_TRUE(journal_->finish_task(o).ok());
    }
  }
  std::vector<std::string> session_ids() {
    std::vector<std::string> ids;
    auto sessions = journal_->list_sessions();
    EXPECT_TRUE(sessions.ok());
    if (sessions.ok())
      for (const auto& s : *sessions) ids.push_back(s.id);
    return ids;
  }

  // Memories of a session kept elsewhere, counted when removed.
  struct FakeRecords : SessionRecords {
    std::map<std::string, int64_t> per_session;
    int compactions = 0;
    Result<int64_t> remove_session(const std::string& id) override {
      const int64_t n = per_session[id];
      per_session.erase(id);
      return n;
    }
    Status compact_files() override {
      ++compactions;
      return Status::Ok();
    }
  };

  std::string db_;
  std::unique_ptr<JournalStore> journal_;
};

TEST_F(RetentionApplyTest, ForgetsOnlyWhatNobodyNeedsAndSaysWhat) {
  add_session("old-done", 10);
  add_session("old-locked", 9);
  add_session("old-interrupted", 8, "interrupted");
  add_session("old-running", 7, "running");
  add_session("old-failed", 6, "failed");
  add_session("new", 0);
  QualityRow q;
  q.agent = "hashiru:Poet";
  q.q = 0.8;
  q.verdicts = 4;
  ASSERT_TRUE(journal_->save_quality(q).ok());
  FakeRecords memories;
  memories.per_session = {{"old-done", 2}, {"new", 1}};

  auto held = SessionLock::acquire(db_, "old-locked");  // as another live process would
  ASSERT_TRUE(held.ok());
  SessionForgetter forgetter(*journal_, db_, &memories);
  auto report = apply_retention(*journal_, forgetter, {0, 1}, "new", JournalStore::now_ms());
  ASSERT_TRUE(report.ok()) << report.error().message;

  EXPECT_EQ(session_ids(), (std::vector<std::string>{"new", "old-running", "old-interrupted", "old-locked"}));
  ASSERT_EQ(report->forgotten.size(), 2u);
  EXPECT_EQ(report->forgotten[0].id, "old-done");
  EXPECT_EQ(report->forgotten[1].id, "old-failed");
  EXPECT_EQ(report->steps(), 4);
  EXPECT_EQ(report->memories(), 2);
  EXPECT_EQ(report->held, (std::vector<std::string>{"old-locked"}));
  EXPECT_EQ(report->summary({0, 1}),
            "journal retention (journal.keep_sessions 1): forgot 2 sessions (4 steps, 2 memories); 1 session past "
            "retention kept (held by a live process)");
  EXPECT_EQ(memories.per_session, (std::map<std::string, int64_t>{{"new", 1}}));
  EXPECT_EQ(memories.compactions, 1);
  EXPECT_TRUE(journal_->task_steps("old-done-t")->empty());
  EXPECT_EQ(journal_->task_steps("old-interrupted-t")->size(), 2u);
  // State kept across sessions stays.
  auto kept = journal_->load_quality("hashiru:Poet");
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(kept->has_value());
  EXPECT_EQ((*kept)->verdicts, 4);

  // Released, the locked session goes the next time; nothing else changes.
  held = Error{"", ""};
  auto again = apply_retention(*journal_, forgetter, {0, 1}, "new", JournalStore::now_ms());
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->forgotten.size(), 1u);
  EXPECT_EQ(again->forgotten[0].id, "old-locked");
  EXPECT_EQ(again->summary({0, 1}), "journal retention (journal.keep_sessions 1): forgot 1 session (2 steps)");
  auto nothing = apply_retention(*journal_, forgetter, {0, 1}, "new", JournalStore::now_ms());
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing->forgotten.empty());
  EXPECT_EQ(nothing->summary({0, 1}), "");
  EXPECT_EQ(memories.compactions, 2);  // not when nothing was forgotten
}

TEST_F(RetentionApplyTest, TheSessionOfThisProcessIsKeptByItsLockToo) {
  add_session("mine", 30);
  add_session("other", 20);
  // This process runs "mine" (it holds the lock) but names no current session.
  auto mine = SessionLock::acquire(db_, "mine");
  ASSERT_TRUE(mine.ok());
  SessionForgetter forgetter(*journal_, db_, nullptr);
  auto report = apply_retention(*journal_, forgetter, {7, 0}, "", JournalStore::now_ms());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(session_ids(), (std::vector<std::string>{"mine"}));
  EXPECT_EQ(report->held, (std::vector<std::string>{"mine"}));
  EXPECT_EQ(report->summary({7, 0}),
            "journal retention (journal.keep_days 7): forgot 1 session (2 steps); 1 session past retention kept "
            "(held by a live process)");
}

// A live server closes an idle client session and reopens it when its
// client returns: while the server holds its own session, its client
// sessions stay.
TEST_F(RetentionApplyTest, AClientSessionOfALiveServerIsKept) {
  add_session("server", 30);
  add_session("client-a", 29, "done", json{{"host_session", "server"}, {"conversation", "c-1"}});
  add_session("other", 28);
  SessionForgetter forgetter(*journal_, db_, nullptr);
  {
    auto serving = SessionLock::acquire(db_, "server");
    ASSERT_TRUE(serving.ok());
    auto report = apply_retention(*journal_, forgetter, {7, 0}, "", JournalStore::now_ms());
    ASSERT_TRUE(report.ok()) << report.error().message;
    EXPECT_EQ(session_ids(), (std::vector<std::string>{"client-a", "server"}));
    EXPECT_EQ(report->held, (std::vector<std::string>{"server", "client-a"}));
  }
  auto report = apply_retention(*journal_, forgetter, {7, 0}, "", JournalStore::now_ms());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(session_ids().empty());
}

// A task started in a session after the listing (its process gone again by
// the time retention takes the lock) keeps the session: the check runs again
// under the lock.
TEST_F(RetentionApplyTest, AnUnfinishedTaskSeenUnderTheLockKeepsTheSession) {
  add_session("old", 30);
  SessionForgetter forgetter(*journal_, db_, nullptr);
  auto refused = forgetter.forget("old", [] { return Status(Error{"unfinished", "a task started meanwhile"}); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "unfinished");
  EXPECT_EQ(session_ids(), (std::vector<std::string>{"old"}));
  auto forgotten = forgetter.forget("old");
  ASSERT_TRUE(forgotten.ok()) << forgotten.error().message;
  EXPECT_EQ(forgotten->rows.tasks, 1);
  EXPECT_EQ(forgotten->rows.steps, 2);
  EXPECT_TRUE(session_ids().empty());
  EXPECT_FALSE(std::filesystem::exists(SessionLock::lock_path(db_, "old")));
}

}  // namespace
}  // namespace kaisha::store
