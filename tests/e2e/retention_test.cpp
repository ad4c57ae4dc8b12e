// Retention on start (config journal.keep_sessions): a new `kaisha run`
// forgets the sessions past retention, as `kaisha forget` does, and keeps
// the ones that are still needed — a session another process holds, one
// with an interrupted task (which then still resumes) — and the state kept
// across sessions (agent_quality).
#include "cluster_fixture.hpp"
#include "e2e_fixture.hpp"
#include "runtime/memory/memory_store.hpp"
#include "runtime/store/session_lock.hpp"

namespace kaisha::e2e::retention_test {
namespace {

constexpr const char* kScript = R"(
rules:
  - name: remember
    match: { model: ceo-model, last_user: "Remember", turn: 0 }
    reply: { tool_calls: [ { name: MemoryManager, arguments: { action: add_memory, key: tea, memory: "The user drinks 抹茶 🍵." } } ] }
  - name: wait-open
    match: { model: ceo-model, last_user: "Wait", turn: 0 }
    reply: { tool_calls: [ { name: GetBudget, arguments: {} } ] }
  - name: wait-slow
    match: { model: ceo-model, last_user: "Wait", turn: 1 }
    times: 1
    reply: { text: "too late", latency_ms: 8000 }
  - name: wait-answer
    match: { model: ceo-model, last_user: "Wait", turn: 1 }
    reply: { text: "待ちました ✅" }
  - match: { model: ceo-model }
    reply: { text: "Done: {{last_user}}" }
)";

class RetentionTest : public E2eTest {
 protected:
  std::string run_session(const std::string& cfg, const std::string& task) {
    RunResult r = run_json(cfg, task);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return session_of(r);
  }
  std::vector<std::string> session_ids() {
    std::vector<std::string> ids;
    auto j = journal();
    if (!j) return ids;
    auto sessions = j->list_sessions();
    EXPECT_TRUE(sessions.ok());
    if (sessions.ok())
      for (const auto& s : *sessions) ids.push_back(s.id);
    return ids;
  }
};

TEST_F(RetentionTest, KeepSessionsForgetsTheOldOnesAndKeepsWhatIsStillNeeded) {
  start_mock(kScript);
  const std::string plain = write_config();
  const std::string s1 = run_session(plain, "Remember my tea.");
  const std::string s2 = run_session(plain, "Two.");
  // s3: killed while its second model call is in flight, its first call and
  // the budget read kept for a resume.
  std::string s3;
  {
    BackgroundProcess p(KAISHA_EXE, {"run", "--config", plain, "--json", "Wait for me."},
                        {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}}, dir_.file("wait.log"));
    ASSERT_TRUE(wait_for(
        [&] {
          auto t = latest_task(db());
          return t && t->task.input == "Wait for me." && t->kept.size() >= 2 && by_rule("wait-slow").size() == 1;
        },
        std::chrono::seconds(30)))
        << p.log();
    p.kill9();
    auto t = latest_task(db());
    ASSERT_TRUE(t);
    ASSERT_EQ(t->task.status, "running");
    s3 = t->task.session_id;
  }
  const std::string s4 = run_session(plain, "Four.");
  {
    auto j = store::JournalStore::open(db());
    ASSERT_TRUE(j.ok()) << j.error().message;
    store::QualityRow q;
    q.agent = "hashiru:Poet";
    q.q = 0.75;
    q.verdicts = 3;
    q.updated_at = store::JournalStore::now_ms();
    ASSERT_TRUE((*j)->save_quality(q).ok());
  }
  const std::string memory_db = dir_.file("kaisha.memory.db");
  ASSERT_EQ((*memory::MemoryStore::open(memory_db))->list(0, s1)->size(), 1u);

  ConfigOptions keep_two;
  keep_two.extra = "journal:\n  keep_sessions: 2\n";
  const std::string retention = write_config(keep_two, "retention.yaml");
  auto held = store::SessionLock::acquire(db(), s2);  // as a live process would
  ASSERT_TRUE(held.ok()) << held.error().message;

  // s5 and s4 are the newest two; s3 has an unfinished task and s2 is held:
  // only s1 goes.
  RunResult five = run_json(retention, "Five.");
  ASSERT_EQ(five.exit_code, 0) << five.describe();
  const std::string s5 = session_of(five);
  EXPECT_NE(five.err.find("kaisha: journal retention (journal.keep_sessions 2): forgot 1 session ("), std::string::npos)
      << five.describe();
  EXPECT_NE(five.err.find(" steps, 1 memory); 1 session past retention kept (held by a live process)\n"),
            std::string::npos)
      << five.describe();
  EXPECT_EQ(session_ids(), (std::vector<std::string>{s5, s4, s3, s2}));
  EXPECT_TRUE((*memory::MemoryStore::open(memory_db))->list(0, s1)->empty());

  RunResult gone = kaisha({"history", "--config", retention, "--session", s1});
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.err.find("no session '" + s1 + "'"), std::string::npos) << gone.describe();
  for (const auto& [session, text] : {std::pair<std::string, std::string>{s4, "Four."}, {s3, "Wait for me."}}) {
    RunResult tree = kaisha({"history", "--config", retention, "--tree", "--session", session});
    EXPECT_EQ(tree.exit_code, 0) << tree.describe();
    EXPECT_NE(tree.out.find("(hashiru): " + text), std::string::npos) << tree.describe();
  }

  // The interrupted session still resumes, without asking again for the
  // call its journal kept; and, its holder gone, s2 is forgotten now.
  held = Error{"", ""};
  RunResult resumed = kaisha({"resume", "--config", retention, "--session", s3, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_EQ(resumed.result().value("answer", ""), "待ちました ✅") << resumed.describe();
  EXPECT_EQ(by_rule("wait-open").size(), 1u);
  EXPECT_EQ(by_rule("wait-answer").size(), 1u);
  EXPECT_NE(resumed.err.find("kaisha: journal retention (journal.keep_sessions 2): forgot 1 session ("),
            std::string::npos)
      << resumed.describe();
  EXPECT_EQ(session_ids(), (std::vector<std::string>{s5, s4, s3}));

  // Nothing past retention: nothing said.
  ConfigOptions keep_ten;
  keep_ten.extra = "journal:\n  keep_sessions: 10\n  keep_days: 30\n";
  RunResult quiet = run_json(write_config(keep_ten, "keep-ten.yaml"), "Six.");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.describe();
  EXPECT_EQ(quiet.err.find("retention"), std::string::npos) << quiet.describe();
  const std::string s6 = session_of(quiet);

  // State kept across sessions is untouched.
  auto q = journal()->load_quality("hashiru:Poet");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->has_value());
  EXPECT_EQ((*q)->verdicts, 3);
  EXPECT_DOUBLE_EQ((*q)->q, 0.75);

  // `kaisha journal compact` keeps history, retention or not.
  RunResult compacted = kaisha({"journal", "compact", "--config", retention});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.describe();
  EXPECT_EQ(session_ids(), (std::vector<std::string>{s6, s5, s4, s3}));
}

}  // namespace
}  // namespace kaisha::e2e::retention_test
