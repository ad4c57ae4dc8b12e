// The dashboard's journal views on a real journal file: the org chart, the
// task list and its search, an effgen task's subtask graph from effgen's own
// tree builder, a transcript with and without its text, the ledgers.
#include "runtime/dashboard/journal_views.hpp"

#include <gtest/gtest.h>

#include "runtime/store/journal_store.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::dashboard {
namespace {

using Views = store::testing::TempDirTest;

class JournalViewsTest : public Views {
 protected:
  void SetUp() override {
    Views::SetUp();
    auto s = store::JournalStore::open(file("k.db"));
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(s).value();
    session("host", json::object());
    session("client", json{{"host_session", "host"}, {"conversation", "c1"}});
  }

  void session(const std::string& id, json config) {
    store::SessionRow row;
    row.id = id;
    row.created_at = 1000;
    row.config = std::move(config);
    row.ceo_model = "openai:ceo-model";
    ASSERT_TRUE(store_->create_session(row).ok());
  }

  void step(const std::string& session, const std::string& task, const std::string& agent, const std::string& kind,
            json payload, int64_t tin = 0, int64_t tout = 0, double usd = 0, int64_t at = 2000) {
    store::StepRow r;
    r.session_id = session;
    r.task_id = task;
    r.agent = agent;
    r.kind = kind;
    r.payload = std::move(payload);
    r.tokens_in = tin;
    r.tokens_out = tout;
    r.expense = usd;
    r.at = at;
    auto id = store_->append_step(r);
    ASSERT_TRUE(id.ok()) << id.error().message;
  }

  void ledger(const std::string& session, const std::string& which, double amount, double used, double total,
              int64_t at) {
    store::LedgerEntryRow r;
    r.session_id = session;
    r.ledger = which;
    r.kind = "ask_settle";
    r.amount = amount;
    r.agent = "Kawa";
    r.used_after = used;
    r.total_after = total;
    r.at = at;
    ASSERT_TRUE(store_->record_ledger_entry(r).ok());
  }

  // The org chart's sums, through a read-only connection of their own as the server has.
  StepSums& sums() {
    if (!sums_) {
      auto s = StepSums::open_read_only(file("k.db"));
      EXPECT_TRUE(s.ok()) << s.error().message;
      if (s.ok()) sums_ = std::move(s).value();
    }
    return *sums_;
  }

  std::unique_ptr<store::JournalStore> store_;
  std::unique_ptr<StepSums> sums_;
};

TEST_F(JournalViewsTest, StepSumsAddUpEachAgentsStepsInTheOrderOfItsFirstStep) {
  ASSERT_TRUE(store_->start_task("host", "t1", "research rivers", 1500, "hashiru").ok());
  step("host", "t1", "Kawa", "answer", {{"text", "川"}}, 200, 20, 0.25);
  step("host", "t1", "CEO", "llm_response", {{"text", "ask"}}, 100, 10, 0.5);
  step("host", "t1", "", "note", {{"text", "no author"}}, 1000, 1000, 9.0);
  step("host", "t1", "Kawa", "answer", {{"text", "川"}}, 50, 5, 0.05);
  step("client", "", "Yama", "answer", {{"text", "山"}}, 7, 7, 7.0);
  auto s = sums().of_session("host");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0].agent, "Kawa");
  EXPECT_EQ((*s)[0].tokens_in, 250);
  EXPECT_EQ((*s)[0].tokens_out, 25);
  EXPECT_NEAR((*s)[0].usd, 0.30, 1e-9);
  EXPECT_EQ((*s)[0].steps, 2);
  EXPECT_EQ((*s)[1].agent, "CEO");
  EXPECT_EQ((*s)[1].steps, 1);
  // What is committed after the connection opened is counted too.
  step("host", "t1", "CEO", "llm_response", {{"text", "done"}}, 1, 1, 0.5);
  s = sums().of_session("host");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)[1].steps, 2);
  EXPECT_NEAR((*s)[1].usd, 1.0, 1e-9);
}

TEST_F(JournalViewsTest, OrgChartHasTheCeoTheHiredAndTheOtherAuthorsWithTheirSpend) {
  ASSERT_TRUE(store_->start_task("host", "t1", "research rivers", 1500, "hashiru").ok());
  store::AgentRow kawa;
  kawa.session_id = "host";
  kawa.name = "Kawa";
  kawa.base_model = "gemini-2.5-pro";
  kawa.model_ref = "gemini:gemini-2.5-pro";
  kawa.type = "cloud";
  kawa.hired_at = 1600;
  ASSERT_TRUE(store_->record_hire(kawa).ok());
  step("host", "t1", "CEO", "llm_response", {{"text", "hire"}}, 100, 10, 0.0);
  step("host", "t1", "Kawa", "answer", {{"text", "川"}}, 200, 20, 0.25);
  step("host", "t1", "Kawa", "answer", {{"text", "川"}}, 50, 5, 0.05);
  step("host", "t1", "Judge", "note", {{"verdict", {{"status", "success"}}}});
  auto j = agents_json(*store_, sums(), "host");
  ASSERT_TRUE(j.ok()) << j.error().message;
  const json a = (*j)["agents"];
  ASSERT_EQ(a.size(), 3u) << a.dump();
  EXPECT_EQ(a[0]["role"], "ceo");
  EXPECT_EQ(a[0]["model"], "openai:ceo-model");
  EXPECT_EQ(a[0]["tokens_in"], 100);
  EXPECT_EQ(a[1]["name"], "Kawa");
  EXPECT_EQ(a[1]["role"], "employee");
  EXPECT_EQ(a[1]["state"], "hired");
  EXPECT_EQ(a[1]["model"], "gemini:gemini-2.5-pro");
  EXPECT_EQ(a[1]["tokens_in"], 250);
  EXPECT_EQ(a[1]["tokens_out"], 25);
  EXPECT_NEAR(a[1]["usd"].get<double>(), 0.30, 1e-9);
  EXPECT_EQ(a[2]["name"], "Judge");
  EXPECT_EQ(a[2]["role"], "judge");
  // A client's session shows once it has done something.
  ASSERT_TRUE(store_->start_task("client", "t2", "hello", 1800).ok());
  step("client", "t2", "CEO", "llm_response", {{"text", "hi"}}, 7, 1, 0.0);
  j = agents_json(*store_, sums(), "host");
  ASSERT_TRUE(j.ok());
  ASSERT_EQ((*j)["agents"].size(), 4u);
  EXPECT_EQ((*j)["agents"][3]["session"], "client");
  EXPECT_EQ((*j)["agents"][3]["tokens_in"], 7);
  ASSERT_TRUE(store_->record_fire("host", "Kawa", 1700).ok());
  j = agents_json(*store_, sums(), "host");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["agents"][1]["state"], "fired");
}

TEST_F(JournalViewsTest, TaskListCoversHostedSessionsNewestFirstWithSearchAndPages) {
  ASSERT_TRUE(store_->start_task("host", "t1", "research rivers", 1000).ok());
  ASSERT_TRUE(store_->start_task("client", "t2", "compare GPU prices", 2000).ok());
  ASSERT_TRUE(store_->start_task("host", "t3", "東京の天気", 3000).ok());
  auto all = tasks_json(*store_, "host", TaskQuery{});
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ((*all)["total"], 3);
  EXPECT_EQ((*all)["tasks"][0]["id"], "t3");
  EXPECT_EQ((*all)["tasks"][1]["session"], "client");
  TaskQuery q;
  q.text = "GPU";
  auto found = tasks_json(*store_, "host", q);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ((*found)["total"], 1);
  EXPECT_EQ((*found)["tasks"][0]["id"], "t2");
  q.text = "天気";
  EXPECT_EQ((*tasks_json(*store_, "host", q))["tasks"][0]["id"], "t3");
  TaskQuery page;
  page.limit = 1;
  page.offset = 1;
  auto second = tasks_json(*store_, "host", page);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)["total"], 3);
  ASSERT_EQ((*second)["tasks"].size(), 1u);
  EXPECT_EQ((*second)["tasks"][0]["id"], "t2");
}

TEST_F(JournalViewsTest, TaskSearchFoldsAsciiCaseTakesTextLiterallyAndFiltersStatus) {
  ASSERT_TRUE(store_->start_task("host", "t1", "grow 50% faster", 1000).ok());
  ASSERT_TRUE(store_->start_task("host", "t2", "grow 50 times FASTER", 2000).ok());
  ASSERT_TRUE(store_->start_task("client", "t3", "snake_case names", 3000).ok());
  store::TaskOutcome done;
  done.task_id = "t3";
  done.status = "done";
  done.final_answer = "Renamed to camelCase";
  ASSERT_TRUE(store_->finish_task(done).ok());
  auto ids = [&](const std::string& text, const std::string& status = "") {
    TaskQuery q;
    q.text = text;
    q.status = status;
    auto r = tasks_json(*store_, "host", q);
    EXPECT_TRUE(r.ok()) << r.error().message;
    std::vector<std::string> out;
    for (const auto& t : (*r)["tasks"]) out.push_back(t["id"]);
    EXPECT_EQ((*r)["total"], out.size());
    return out;
  };
  EXPECT_EQ(ids("50%"), std::vector<std::string>{"t1"});             // % is no wildcard
  EXPECT_EQ(ids("e_c"), std::vector<std::string>{"t3"});             // nor is _
  EXPECT_EQ(ids("faster"), (std::vector<std::string>{"t2", "t1"}));  // ASCII case folded
  EXPECT_EQ(ids("CAMELCASE"), std::vector<std::string>{"t3"});       // the answer is searched
  EXPECT_EQ(ids("", "done"), std::vector<std::string>{"t3"});
  EXPECT_EQ(ids("grow", "done"), std::vector<std::string>{});
  EXPECT_EQ(ids("T2"), std::vector<std::string>{"t2"});  // the id is searched
}

TEST_F(JournalViewsTest, EffgenTreeCarriesTheSubtaskGraph) {
  ASSERT_TRUE(store_->start_task("host", "t1", "a complex task", 1000, "effgen").ok());
  json plan = json::array({json{{"id", "s1"}, {"description", "research"}, {"depends_on", json::array()}},
                           json{{"id", "s2"}, {"description", "compare"}, {"depends_on", {"s1"}}},
                           json{{"id", "s3"}, {"description", "report"}, {"depends_on", {"s1", "s2"}}}});
  step("host", "t1", "Planner", "note", {{"plan", plan}, {"shape", "chain"}});
  step("host", "t1", "worker_1", "llm_response", {{"job", "s1"}, {"text", "r1"}}, 10, 5, 0.01, 2100);
  auto j = task_tree_json(*store_, "t1");
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)["strategy"], "effgen");
  std::map<std::string, json> keyed;
  std::function<void(const json&)> walk = [&](const json& n) {
    if (n.contains("key")) keyed[n["key"]] = n;
    for (const auto& c : n["children"]) walk(c);
  };
  walk((*j)["tree"]);
  ASSERT_EQ(keyed.size(), 3u) << j->dump(2);
  EXPECT_FALSE(keyed["s1"].contains("after"));
  EXPECT_EQ(keyed["s2"]["after"], json::array({"s1"}));
  EXPECT_EQ(keyed["s3"]["after"], json::array({"s1", "s2"}));
  EXPECT_EQ(keyed["s1"]["agent"], "worker_1");
  EXPECT_EQ(keyed["s3"]["status"], "not run");
}

TEST_F(JournalViewsTest, UnknownTaskIsNotFound) {
  auto j = task_tree_json(*store_, "nope");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().code, "not_found");
  auto t = transcript_json(*store_, "nope", true, 0, 10);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "not_found");
}

TEST_F(JournalViewsTest, TranscriptShowsTextOnlyWhenAllowedAndPages) {
  ASSERT_TRUE(store_->start_task("host", "t1", "say hi", 1000).ok());
  step("host", "t1", "CEO", "llm_request", {{"prompt", "secret prompt"}});
  step("host", "t1", "CEO", "llm_response", {{"text", "<script>x</script>"}}, 5, 6, 0.5);
  step("host", "t1", "CEO", "note", {{"text", "third"}});
  auto hidden = transcript_json(*store_, "t1", false, 0, 100);
  ASSERT_TRUE(hidden.ok());
  EXPECT_EQ((*hidden)["text_included"], false);
  EXPECT_EQ((*hidden)["total"], 3);
  EXPECT_EQ(hidden->dump().find("secret prompt"), std::string::npos);
  EXPECT_FALSE((*hidden)["steps"][0].contains("payload"));
  EXPECT_EQ((*hidden)["steps"][1]["tokens_out"], 6);
  auto shown = transcript_json(*store_, "t1", true, 1, 1);
  ASSERT_TRUE(shown.ok());
  ASSERT_EQ((*shown)["steps"].size(), 1u);
  EXPECT_EQ((*shown)["steps"][0]["seq"], 2);
  EXPECT_EQ((*shown)["steps"][0]["payload"]["text"], "<script>x</script>");
}

TEST_F(JournalViewsTest, LedgerPointsInWrittenOrderAcrossServedSessions) {
  ledger("host", "expense", 0.1, 0.1, 10, 1000);
  ledger("client", "expense", 0.2, 0.3, 10, 2000);
  ledger("host", "resource", 10, 10, 100, 3000);
  auto j = ledger_json(*store_, "host");
  ASSERT_TRUE(j.ok()) << j.error().message;
  const json& p = (*j)["points"];
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1]["session"], "client");
  EXPECT_DOUBLE_EQ(p[1]["used"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(p[1]["total"].get<double>(), 10);
  EXPECT_EQ(p[2]["ledger"], "resource");
}

}  // namespace
}  // namespace kaisha::dashboard
