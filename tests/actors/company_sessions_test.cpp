// CompanySessions: one company session per client conversation, tasks of
// different conversations at the same time, one budget for all, and the
// limits on sessions, pending and running tasks — over the real actors, a
// real SQLite store and the mock LLM over HTTP.
//
// Nothing here depends on timing: "at the same time" is shown by two tasks
// both working while their model calls take 20 s each, then canceled.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "actors/company/company_sessions.hpp"
#include "runtime/company/run_slots.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::actors {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using company::TaskState;

const char* kSessionsScript = R"(
rules:
  - name: hire-first
    match: { last_user: "hire and ask", last_role: user }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Helper, base_model: helper, system_prompt: "You help.", description: "Helps" }
  - name: then-ask-user
    match: { last_role: tool, last_tool_name: AgentCreator }
    reply: { tool_calls: [ { name: AskUser, arguments: { question: "Which city?" } } ] }
  - name: answered
    match: { last_role: tool, last_tool_name: AskUser }
    reply: { text: "Forecast for {{last_tool}}" }
  - name: ask
    match: { last_user: "which city" }
    reply: { tool_calls: [ { name: AskUser, arguments: { question: "Which city?" } } ] }
  - name: slow
    match: { last_user: "slowly" }
    reply: { text: "finally done", latency_ms: 20000 }
  - name: echo
    reply: { text: "answer to {{last_user}}", usage: { input_tokens: 1000, output_tokens: 500 } }
)";

// The CEO's model is paid, so that every task charges the shared ledger.
const char* kSessionsCostTable = R"(
models:
  ceo:
    model_ref: ollama:ceo
    type: cloud
    invoke_expense_cost: 1.0
    output_expense_cost: 2.0
    description: "The CEO's model"
  helper:
    model_ref: ollama:helper
    type: cloud
    create_resource_cost: 10
    invoke_resource_cost: 5
    invoke_expense_cost: 1.0
    output_expense_cost: 2.0
    description: "An employee's model"
)";

class CompanySessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto script = mockllm::parse_mock_script(kSessionsScript, "company_sessions_test");
    ASSERT_TRUE(script) << script.error().message;
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    char tmpl[] = "/tmp/kaisha-sessions-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    port_ = *port;
  }
  void TearDown() override {
    sessions_.reset();
    mock_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void start(SessionLimits limits) {
    config::Config c;
    config::ProviderConfig p;
    p.name = "ollama";
    p.dialect = "ollama";
    p.base_url = "http://127.0.0.1:" + std::to_string(port_);
    p.timeout_ms = 60000;
    c.providers["ollama"] = p;
    c.ceo.model = "ollama:ceo";
    c.store_path = db();
    const std::string costs = (fs::path(dir_) / "costs.yaml").string();
    FILE* f = std::fopen(costs.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kSessionsCostTable, f);
    std::fclose(f);
    c.cost_table_file = costs;
    c.budget.expense_total = 1000;
    RuntimeOptions o;
    o.config = c;
    o.scheduler_threads = 2;
    o.metrics = metrics_;
    auto s = CompanySessions::start(std::move(o), limits);
    ASSERT_TRUE(s.ok()) << s.error().message;
    sessions_ = std::move(s).value();
  }

  std::string db() const { return (fs::path(dir_) / "kaisha.db").string(); }

  // Waits until the task is in `state` (or any final state); false after 30 s.
  bool reaches(const std::string& id, TaskState state) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto t = sessions_->task(id);
      if (t && (t->state == state || company::is_final(t->state))) return t->state == state;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  std::string dir_;
  uint16_t port_ = 0;
  std::unique_ptr<mockllm::MockLlmServer> mock_;
  telemetry::MetricsRegistry* metrics_ = nullptr;
  std::unique_ptr<CompanySessions> sessions_;
};

TEST_F(CompanySessionsTest, EachConversationIsItsOwnSessionAndTheDefaultIsOne) {
  start({});
  auto a1 = sessions_->submit_in("ctx-a", "question one", {});
  auto b1 = sessions_->submit_in("ctx-b", "question two", {});
  auto d1 = sessions_->submit("question three", {});
  ASSERT_TRUE(a1.ok() && b1.ok() && d1.ok());
  auto ra = sessions_->wait(*a1, 30s);
  auto rb = sessions_->wait(*b1, 30s);
  auto rd = sessions_->wait(*d1, 30s);
  ASSERT_TRUE(ra.ok() && rb.ok() && rd.ok());
  EXPECT_EQ(ra->answer, "answer to question one");
  EXPECT_EQ(rb->answer, "answer to question two");
  EXPECT_EQ(rd->answer, "answer to question three");
  EXPECT_EQ(ra->conversation, "ctx-a");
  EXPECT_EQ(rb->conversation, "ctx-b");
  EXPECT_EQ(rd->conversation, "");
  EXPECT_EQ(rd->session_id, sessions_->session_id());
  EXPECT_NE(ra->session_id, rb->session_id);
  EXPECT_NE(ra->session_id, sessions_->session_id());
  EXPECT_EQ(sessions_->open_sessions(), 3u);

  // The same conversation stays in its session.
  auto a2 = sessions_->submit_in("ctx-a", "question four", {});
  ASSERT_TRUE(a2.ok());
  auto ra2 = sessions_->wait(*a2, 30s);
  ASSERT_TRUE(ra2.ok());
  EXPECT_EQ(ra2->session_id, ra->session_id);
  EXPECT_EQ(sessions_->open_sessions(), 3u);

  // The journal knows which session ran what.
  auto st = store::JournalStore::open_read_only(db());
  ASSERT_TRUE(st.ok());
  auto row = (*st)->get_task(*b1);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((**row).session_id, rb->session_id);

  // Listing covers every session, newest first.
  auto all = sessions_->tasks(10);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].id, *a2);
}

TEST_F(CompanySessionsTest, TasksOfDifferentConversationsRunAtTheSameTime) {
  start({});
  auto a = sessions_->submit_in("ctx-a", "do it slowly A", {});
  auto b = sessions_->submit_in("ctx-b", "do it slowly B", {});
  auto a_next = sessions_->submit_in("ctx-a", "then this", {});
  ASSERT_TRUE(a.ok() && b.ok() && a_next.ok());
  // Both slow tasks work while neither has ended (each model call takes 20 s).
  EXPECT_TRUE(reaches(*a, TaskState::working));
  EXPECT_TRUE(reaches(*b, TaskState::working));
  // A conversation's own tasks stay in order.
  EXPECT_EQ(sessions_->task(*a_next)->state, TaskState::submitted);
  EXPECT_FALSE(company::is_final(sessions_->task(*a)->state));
  EXPECT_FALSE(company::is_final(sessions_->task(*b)->state));
  EXPECT_TRUE(sessions_->cancel(*a).ok());
  EXPECT_TRUE(sessions_->cancel(*b).ok());
  auto next = sessions_->wait(*a_next, 30s);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->answer, "answer to then this");
  EXPECT_EQ(sessions_->task(*a)->state, TaskState::canceled);
}

TEST_F(CompanySessionsTest, OneBudgetForEverySessionAndTheLedgersAddUp) {
  start({});
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    auto id = sessions_->submit_in("ctx-" + std::to_string(i % 3), "question " + std::to_string(i), {});
    ASSERT_TRUE(id.ok()) << id.error().message;
    ids.push_back(*id);
  }
  double sum = 0;
  std::set<std::string> session_ids;
  for (const auto& id : ids) {
    auto r = sessions_->wait(id, 30s);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->state, TaskState::completed) << r->error;
    EXPECT_GT(r->expense, 0);
    sum += r->expense;
    session_ids.insert(r->session_id);
  }
  EXPECT_EQ(session_ids.size(), 3u);
  const json budget = sessions_->budget();
  EXPECT_NEAR(budget.value("current_expense", -1.0), sum, 1e-9) << budget.dump();

  // The journal's expense ledger over the three sessions says the same.
  auto st = store::JournalStore::open_read_only(db());
  ASSERT_TRUE(st.ok());
  double journaled = 0;
  for (const auto& s : session_ids) {
    auto rows = (*st)->ledger_entries(s);
    ASSERT_TRUE(rows.ok());
    for (const auto& e : *rows)
      if (e.ledger == "expense" && (e.kind == "ceo_call" || e.kind == "ask_settle" || e.kind == "hire"))
        journaled += e.amount;
  }
  EXPECT_NEAR(journaled, sum, 1e-9);
}

TEST_F(CompanySessionsTest, PerSessionBudgetsAreSeparate) {
  SessionLimits l;
  l.per_session_budget = true;
  start(l);
  auto a = sessions_->submit_in("ctx-a", "question one", {});
  ASSERT_TRUE(a.ok());
  auto r = sessions_->wait(*a, 30s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->state, TaskState::completed);
  EXPECT_GT(r->expense, 0);
  // The default session's budget did not pay for another session's task.
  EXPECT_EQ(sessions_->budget().value("current_expense", -1.0), 0.0);
}

TEST_F(CompanySessionsTest, SharedModeRunsEveryConversationInTheDefaultSession) {
  SessionLimits l;
  l.shared = true;
  start(l);
  auto a = sessions_->submit_in("ctx-a", "question one", {});
  ASSERT_TRUE(a.ok());
  auto r = sessions_->wait(*a, 30s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->session_id, sessions_->session_id());
  EXPECT_EQ(r->conversation, "ctx-a");
  EXPECT_EQ(sessions_->open_sessions(), 1u);
}

TEST_F(CompanySessionsTest, TheSessionLimitClosesAnIdleSessionOrRefusesClearly) {
  SessionLimits l;
  l.max_sessions = 2;  // the default one and one more
  start(l);
  auto slow = sessions_->submit_in("ctx-a", "do it slowly", {});
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(reaches(*slow, TaskState::working));
  auto refused = sessions_->submit_in("ctx-b", "question", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("serve.max_sessions"), std::string::npos) << refused.error().message;
  const std::string a_session = sessions_->task(*slow)->session_id;
  ASSERT_TRUE(sessions_->cancel(*slow).ok());
  ASSERT_TRUE(sessions_->wait(*slow, 30s).ok());

  // ctx-a is idle now: ctx-b's session takes its place.
  auto b = sessions_->submit_in("ctx-b", "question two", {});
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_TRUE(sessions_->wait(*b, 30s).ok());
  EXPECT_EQ(sessions_->open_sessions(), 2u);
  // The closed session's task is still found, from the journal.
  auto closed = sessions_->task(*slow);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->state, TaskState::canceled);
  EXPECT_EQ(closed->conversation, "ctx-a");
  // ... and listed, with the open sessions' tasks, newest first.
  auto listed = sessions_->tasks(0);
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].id, *b);
  EXPECT_EQ(listed[0].state, TaskState::completed);
  EXPECT_EQ(listed[1].id, *slow);
  EXPECT_EQ(listed[1].state, TaskState::canceled);
  EXPECT_EQ(listed[1].conversation, "ctx-a");
  EXPECT_EQ(sessions_->tasks(1).size(), 1u);
  // A late subscriber gets its end.
  std::vector<msg::ProgressEvent> got;
  ASSERT_TRUE(sessions_->subscribe(*slow, [&](const msg::ProgressEvent& e) { got.push_back(e); }).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, msg::EventKind::canceled);
  EXPECT_TRUE(sessions_->journal(*slow).ok());

  // ctx-a comes back to its own session, reopened from the journal.
  auto a2 = sessions_->submit_in("ctx-a", "question three", {});
  ASSERT_TRUE(a2.ok()) << a2.error().message;
  auto r = sessions_->wait(*a2, 30s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, TaskState::completed);
  EXPECT_EQ(r->session_id, a_session);
}

TEST_F(CompanySessionsTest, ThePendingTaskLimitRefusesClearly) {
  SessionLimits l;
  l.max_tasks = 2;
  start(l);
  auto a = sessions_->submit_in("ctx-a", "do it slowly", {});
  auto b = sessions_->submit_in("ctx-a", "and then slowly", {});
  ASSERT_TRUE(a.ok() && b.ok());
  auto c = sessions_->submit_in("ctx-b", "one more", {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("serve.max_tasks"), std::string::npos) << c.error().message;
  ASSERT_TRUE(sessions_->cancel(*a).ok());
  ASSERT_TRUE(sessions_->cancel(*b).ok());
  ASSERT_TRUE(sessions_->wait(*b, 30s).ok());
  auto d = sessions_->submit_in("ctx-b", "one more", {});
  EXPECT_TRUE(d.ok()) << d.error().message;
}

TEST_F(CompanySessionsTest, TheRunningTaskLimitMakesOthersWaitTheirTurn) {
  SessionLimits l;
  l.max_running_tasks = 1;
  start(l);
  auto a = sessions_->submit_in("ctx-a", "do it slowly", {});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(reaches(*a, TaskState::working));
  auto b = sessions_->submit_in("ctx-b", "question", {});
  ASSERT_TRUE(b.ok());
  // b's session is open and idle otherwise, but the one slot is a's.
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(sessions_->task(*b)->state, TaskState::submitted);
  ASSERT_TRUE(sessions_->cancel(*a).ok());
  auto r = sessions_->wait(*b, 30s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->answer, "answer to question");
  // A task waiting for a slot can be canceled as a waiting one.
  auto c = sessions_->submit_in("ctx-a", "do it slowly", {});
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(reaches(*c, TaskState::working));
  auto d = sessions_->submit_in("ctx-b", "question", {});
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(sessions_->cancel(*d).ok());
  auto rd = sessions_->wait(*d, 30s);
  ASSERT_TRUE(rd.ok());
  EXPECT_EQ(rd->state, TaskState::canceled);
  ASSERT_TRUE(sessions_->cancel(*c).ok());
}

TEST_F(CompanySessionsTest, ATaskAsksItsUserAndGoesOnWithTheAnswer) {
  SessionLimits l;
  l.input_timeout = 60s;
  start(l);
  std::mutex mu;
  std::vector<msg::ProgressEvent> events;
  auto a = sessions_->submit_in("ctx-a", "the weather, but which city?", [&](const msg::ProgressEvent& e) {
    std::lock_guard lock(mu);
    events.push_back(e);
  });
  ASSERT_TRUE(a.ok());
  auto asked = sessions_->wait(*a, 30s);  // returns at the question
  ASSERT_TRUE(asked.ok());
  ASSERT_EQ(asked->state, TaskState::input_required) << company::to_string(asked->state);
  EXPECT_EQ(asked->question, "Which city?");
  {
    std::lock_guard lock(mu);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().kind, msg::EventKind::input_required);
    EXPECT_EQ(events.back().text, "Which city?");
  }
  // Another conversation's task runs to its end meanwhile.
  auto b = sessions_->submit_in("ctx-b", "hello", {});
  ASSERT_TRUE(b.ok());
  auto rb = sessions_->wait(*b, 30s);
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(rb->answer, "answer to hello");
  EXPECT_EQ(sessions_->task(*a)->state, TaskState::input_required);
  auto not_asking = sessions_->provide_input(*b, "x");
  ASSERT_FALSE(not_asking.ok());
  EXPECT_NE(not_asking.error().message.find("asks for no input"), std::string::npos) << not_asking.error().message;

  ASSERT_TRUE(sessions_->provide_input(*a, "大阪 🏯").ok());
  auto done = sessions_->wait(*a, 30s);
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->state, TaskState::completed) << done->error;
  EXPECT_NE(done->answer.find("大阪 🏯"), std::string::npos) << done->answer;
  // The question and its answer are journaled as the AskUser call.
  auto steps = sessions_->journal(*a);
  ASSERT_TRUE(steps.ok());
  EXPECT_NE(steps->dump().find("AskUser"), std::string::npos);
  EXPECT_NE(steps->dump().find("大阪"), std::string::npos);
}

// What a paused task holds: no reservation (its model call is settled), no
// thread of the runtime's; its employees stay hired.
TEST_F(CompanySessionsTest, APausedTaskHoldsNoReservationAndKeepsItsEmployees) {
  SessionLimits l;
  l.input_timeout = 60s;
  start(l);
  auto a = sessions_->submit("hire and ask", {});
  ASSERT_TRUE(a.ok());
  auto asked = sessions_->wait(*a, 30s);
  ASSERT_TRUE(asked.ok());
  ASSERT_EQ(asked->state, TaskState::input_required) << asked->error;
  const json budget = sessions_->budget();
  EXPECT_EQ(budget.value("inflight_asks", -1), 0) << budget.dump();
  EXPECT_EQ(budget.value("reserved_expense", -1.0), 0.0) << budget.dump();
  EXPECT_EQ(budget.value("hired_agents", -1), 1) << budget.dump();
  EXPECT_TRUE(sessions_->agents().contains("Helper")) << sessions_->agents().dump();
  ASSERT_TRUE(sessions_->provide_input(*a, "Kobe").ok());
  auto done = sessions_->wait(*a, 30s);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, TaskState::completed) << done->error;
  EXPECT_TRUE(sessions_->agents().contains("Helper"));
}

TEST_F(CompanySessionsTest, AQuestionLeftUnansweredFailsTheTaskSayingSo) {
  SessionLimits l;
  l.input_timeout = 300ms;
  start(l);
  auto a = sessions_->submit_in("ctx-a", "which city is it?", {});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(reaches(*a, TaskState::failed))
      << to_string(sessions_->task(*a)->state) << ": " << sessions_->task(*a)->error;
  auto t = sessions_->task(*a);
  EXPECT_NE(t->error.find("no answer came"), std::string::npos) << t->error;
  auto st = store::JournalStore::open_read_only(db());
  ASSERT_TRUE(st.ok());
  auto row = (*st)->get_task(*a);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((**row).status, "failed");
  // The session goes on with its next task.
  auto b = sessions_->submit_in("ctx-a", "hello again", {});
  ASSERT_TRUE(b.ok());
  auto rb = sessions_->wait(*b, 30s);
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(rb->answer, "answer to hello again");
}

TEST_F(CompanySessionsTest, ATaskWaitingForItsUserCanBeCanceled) {
  SessionLimits l;
  l.input_timeout = 60s;
  start(l);
  auto a = sessions_->submit_in("ctx-a", "which city now?", {});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(reaches(*a, TaskState::input_required));
  ASSERT_TRUE(sessions_->cancel(*a).ok());
  ASSERT_TRUE(reaches(*a, TaskState::canceled));
  EXPECT_FALSE(sessions_->provide_input(*a, "too late").ok());
}

TEST_F(CompanySessionsTest, EverySessionsJournalCommitsAreMeasured) {
  telemetry::MetricsRegistry registry;
  metrics_ = &registry;
  start({});
  auto a = sessions_->submit_in("ctx-a", "question one", {});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(sessions_->wait(*a, 30s).ok());
  const std::string text = registry.render();
  EXPECT_EQ(text.find("kaisha_journal_commit_seconds_count 0"), std::string::npos) << text;
  EXPECT_NE(text.find("kaisha_journal_commit_seconds_count"), std::string::npos) << text;
  sessions_.reset();
}

TEST(RunSlots, AcquireWaitsForAReleaseOrGivesUp) {
  company::RunSlots slots(1);
  EXPECT_TRUE(slots.acquire([] { return false; }));
  EXPECT_EQ(slots.free(), 0);
  std::atomic<bool> stop{false};
  std::atomic<int> got{-1};
  std::thread t([&] { got = slots.acquire([&] { return stop.load(); }) ? 1 : 0; });
  slots.release();
  t.join();
  EXPECT_EQ(got.load(), 1);
  std::thread u([&] { got = slots.acquire([&] { return stop.load(); }) ? 1 : 0; });
  stop = true;
  slots.wake();
  u.join();
  EXPECT_EQ(got.load(), 0);
  EXPECT_EQ(slots.free(), 0);
}

}  // namespace
}  // namespace kaisha::actors
