// The dashboard on a real HttpServer with a bearer token, over a real
// journal file: its page without the token (content types, ETag, 304, the
// page's content policy), its API only with it, foreign origins refused,
// and acting on the company (submit, cancel) as the protocols do.
#include "protocols/dashboard/dashboard_endpoints.hpp"

#include <httplib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "protocols/dashboard/service_company.hpp"
#include "protocols/dashboard/static_assets.hpp"
#include "runtime/store/journal_store.hpp"
#include "tests/protocols/fake_company_service.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::dashboard {
namespace {

const httplib::Headers kAuth{{"Authorization", "Bearer s3cret"}};

class DashboardEndpointsTest : public store::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    std::filesystem::create_directories(file("web"));
    std::ofstream(file("web/index.html")) << "<!doctype html><title>kaisha</title>";
    std::ofstream(file("web/app.js")) << "console.log('hi');";
    {
      auto s = store::JournalStore::open(file("k.db"));
      ASSERT_TRUE(s.ok()) << s.error().message;
      store::SessionRow row;
      row.id = "host";
      row.ceo_model = "openai:ceo-model";
      ASSERT_TRUE((*s)->create_session(row).ok());
      ASSERT_TRUE((*s)->start_task("host", "jt1", "research rivers", 1000, "hashiru").ok());
      store::StepRow st;
      st.session_id = "host";
      st.task_id = "jt1";
      st.agent = "CEO";
      st.kind = "llm_request";
      st.payload = json{{"prompt", "the secret prompt"}};
      ASSERT_TRUE((*s)->append_step(st).ok());
    }
    protocols::HttpServerOptions o;
    o.bearer_token = "s3cret";
    server_ = std::make_unique<protocols::HttpServer>(o);
    DashboardOptions d;
    d.store_path = file("k.db");
    d.host_session = "host";
    d.assets_dir = file("web");
    ASSERT_TRUE(mount_dashboard(*server_, view_, d).ok());
    ASSERT_TRUE(server_->start().ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  void TearDown() override {
    server_->stop();
    TempDirTest::TearDown();
  }

  testing::FakeCompanyService company_;
  struct Raise {
    std::string session, which;
    double amount;
  };
  std::vector<Raise> raises_;
  ServiceCompany view_{company_, budgets()};
  ServiceBudgets budgets() {
    ServiceBudgets b;
    b.per_session = true;
    b.budget = [](const std::string& session) -> Result<json> {
      if (session == "closed") return Error{"not_found", "session 'closed' is not open on this server"};
      return json{{"of", session}};
    };
    b.raise = [this](const std::string& session, const std::string& which, double amount) -> Status {
      if (session == "closed") return Error{"not_found", "session 'closed' is not open on this server"};
      raises_.push_back({session, which, amount});
      return Status::Ok();
    };
    return b;
  }
  std::unique_ptr<protocols::HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST(StaticAssets, ContentTypesAndETags) {
  EXPECT_EQ(content_type_for("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(content_type_for("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(content_type_for("dashboard.css"), "text/css; charset=utf-8");
  EXPECT_EQ(content_type_for("favicon.svg"), "image/svg+xml");
  EXPECT_EQ(content_type_for("notes.bin"), "application/octet-stream");
  EXPECT_EQ(etag_for("abc"), etag_for("abc"));
  EXPECT_NE(etag_for("abc"), etag_for("abd"));
  EXPECT_EQ(etag_for("abc").front(), '"');
}

TEST(StaticAssets, ADirectoryWithoutAPageIsAnErrorNamingIt) {
  auto a = StaticAssets::load("/nonexistent/kaisha-dashboard");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("/nonexistent/kaisha-dashboard"), std::string::npos) << a.error().message;
}

TEST_F(DashboardEndpointsTest, ThePageIsServedWithoutTheTokenAndRevalidatedByETag) {
  auto page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->get_header_value("Cache-Control"), "no-cache");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(page->body, "<!doctype html><title>kaisha</title>");
  const std::string etag = page->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  auto again = client_->Get("/", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  auto js = client_->Get("/dashboard/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js->get_header_value("X-Content-Type-Options"), "nosniff");
  auto auth = client_->Get("/dashboard/auth");
  ASSERT_TRUE(auth);
  EXPECT_EQ(auth->status, 200);
  EXPECT_EQ(json::parse(auth->body)["token_required"], true);
  auto missing = client_->Get("/dashboard/other.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  // Only GET is public: the token rule still holds for the same paths otherwise.
  auto post = client_->Post("/", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 401);
}

TEST_F(DashboardEndpointsTest, TheApiNeedsTheTokenAndALoopbackOrigin) {
  for (const char* path :
       {"/dashboard/api/info", "/dashboard/api/agents", "/dashboard/api/tasks", "/dashboard/api/ledger",
        "/dashboard/api/cluster", "/dashboard/api/tasks/jt1/tree", "/dashboard/api/tasks/jt1/transcript"}) {
    auto none = client_->Get(path);
    ASSERT_TRUE(none) << path;
    EXPECT_EQ(none->status, 401) << path;
    auto wrong = client_->Get(path, {{"Authorization", "Bearer wrong"}});
    ASSERT_TRUE(wrong) << path;
    EXPECT_EQ(wrong->status, 401) << path;
    EXPECT_EQ(wrong->body.find("research rivers"), std::string::npos) << path;
    httplib::Headers foreign = kAuth;
    foreign.emplace("Origin", "https://evil.example");
    auto other = client_->Get(path, foreign);
    ASSERT_TRUE(other) << path;
    EXPECT_EQ(other->status, 403) << path;
    EXPECT_EQ(other->body.find("research rivers"), std::string::npos) << path;
    httplib::Headers local = kAuth;
    local.emplace("Origin", "http://127.0.0.1:" + std::to_string(server_->port()));
    auto ok = client_->Get(path, local);
    ASSERT_TRUE(ok) << path;
    EXPECT_EQ(ok->status, 200) << path << ": " << ok->body;
    EXPECT_EQ(ok->get_header_value("Cache-Control"), "no-store") << path;
  }
  auto page = client_->Get("/", {{"Origin", "https://evil.example"}});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 403);
}

TEST_F(DashboardEndpointsTest, ReadsTheJournalHidingPromptsByDefault) {
  auto tasks = client_->Get("/dashboard/api/tasks?q=RIVERS", kAuth);
  ASSERT_TRUE(tasks);
  json t = json::parse(tasks->body);
  ASSERT_EQ(t["total"], 1) << tasks->body;
  EXPECT_EQ(t["tasks"][0]["id"], "jt1");
  auto transcript = client_->Get("/dashboard/api/tasks/jt1/transcript", kAuth);
  ASSERT_TRUE(transcript);
  EXPECT_EQ(transcript->status, 200);
  EXPECT_EQ(transcript->body.find("the secret prompt"), std::string::npos) << transcript->body;
  EXPECT_EQ(json::parse(transcript->body)["total"], 1);
  auto tree = client_->Get("/dashboard/api/tasks/jt1/tree", kAuth);
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->status, 200);
  EXPECT_EQ(json::parse(tree->body)["tree"]["kind"], "task") << tree->body;
  auto unknown = client_->Get("/dashboard/api/tasks/nope/tree", kAuth);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto ledger = client_->Get("/dashboard/api/ledger", kAuth);
  ASSERT_TRUE(ledger);
  json l = json::parse(ledger->body);
  EXPECT_TRUE(l["points"].is_array());
  EXPECT_TRUE(l.contains("budget"));
  // One process: no cluster, and no agent is given a node.
  auto cluster = client_->Get("/dashboard/api/cluster", kAuth);
  ASSERT_TRUE(cluster);
  EXPECT_EQ(json::parse(cluster->body), json({{"cluster", false}})) << cluster->body;
  auto agents = client_->Get("/dashboard/api/agents", kAuth);
  ASSERT_TRUE(agents);
  const json listed = json::parse(agents->body);  // a range-for over a temporary's member would dangle
  for (const auto& a : listed["agents"]) EXPECT_EQ(a["node"], "") << a.dump();
}

TEST_F(DashboardEndpointsTest, SubmitsAndCancelsThroughTheCompany) {
  auto form = client_->Post("/dashboard/api/tasks", kAuth, "input=hi", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  auto empty = client_->Post("/dashboard/api/tasks", kAuth, R"({"input": "  "})", "application/json");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400);
  EXPECT_TRUE(company_.inputs.empty());
  httplib::Headers foreign = kAuth;
  foreign.emplace("Origin", "https://evil.example");
  auto other = client_->Post("/dashboard/api/tasks", foreign, R"({"input": "x"})", "application/json");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 403);
  EXPECT_TRUE(company_.inputs.empty());
  auto ok = client_->Post("/dashboard/api/tasks", kAuth, R"({"input": "東京の天気 <script>"})", "application/json");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 202) << ok->body;
  const std::string id = json::parse(ok->body)["task"];
  ASSERT_EQ(company_.inputs.size(), 1u);
  EXPECT_EQ(company_.inputs[0], "東京の天気 <script>");
  // Known to the company, not journaled yet: pending, not unknown.
  auto pending = client_->Get("/dashboard/api/tasks/" + id + "/tree", kAuth);
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->status, 200);
  EXPECT_EQ(json::parse(pending->body)["pending"], true) << pending->body;
  // An answer needs its text; a task that asks nothing refuses it (409).
  auto no_text = client_->Post("/dashboard/api/tasks/" + id + "/input", kAuth, R"({"answer": 1})", "application/json");
  ASSERT_TRUE(no_text);
  EXPECT_EQ(no_text->status, 400);
  auto unasked =
      client_->Post("/dashboard/api/tasks/" + id + "/input", kAuth, R"({"text": "Osaka"})", "application/json");
  ASSERT_TRUE(unasked);
  EXPECT_EQ(unasked->status, 409) << unasked->body;
  auto cancel = client_->Post("/dashboard/api/tasks/" + id + "/cancel", kAuth, "{}", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202) << cancel->body;
  EXPECT_EQ(company_.cancels, 1);
  auto twice = client_->Post("/dashboard/api/tasks/" + id + "/cancel", kAuth, "{}", "application/json");
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->status, 409);
}

TEST_F(DashboardEndpointsTest, RaisesABudgetOnlyWithTheTokenAPositiveAmountAndAKnownLedger) {
  const std::string path = "/dashboard/api/budget/raise";
  const std::string good = R"({"ledger": "expense", "amount": 1.5})";
  auto none = client_->Post(path, good, "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  httplib::Headers foreign = kAuth;
  foreign.emplace("Origin", "https://evil.example");
  auto other = client_->Post(path, foreign, good, "application/json");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 403);
  auto form = client_->Post(path, kAuth, "ledger=expense&amount=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  for (const char* bad : {R"({"ledger": "expense", "amount": 0})", R"({"ledger": "expense", "amount": -2})",
                          R"({"ledger": "expense", "amount": "5"})", R"({"ledger": "fun", "amount": 1})",
                          R"({"amount": 1})", R"({"ledger": "resource", "amount": 1e999})"}) {
    auto r = client_->Post(path, kAuth, bad, "application/json");
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad << ": " << r->body;
  }
  EXPECT_TRUE(raises_.empty());
  auto ok = client_->Post(path, kAuth, good, "application/json");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_TRUE(json::parse(ok->body).contains("budget"));
  ASSERT_EQ(raises_.size(), 1u);
  EXPECT_EQ(raises_[0].session, "");
  EXPECT_EQ(raises_[0].which, "expense");
  EXPECT_EQ(raises_[0].amount, 1.5);
}

// With a budget per session, the raise and the ledger's budget are those of the session the page names.
TEST_F(DashboardEndpointsTest, ARaiseGoesToTheSessionItNames) {
  const std::string path = "/dashboard/api/budget/raise";
  auto r =
      client_->Post(path, kAuth, R"({"ledger": "resource", "amount": 2, "session": "client-1"})", "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["budget"]["of"], "client-1");
  ASSERT_EQ(raises_.size(), 1u);
  EXPECT_EQ(raises_[0].session, "client-1");
  EXPECT_EQ(raises_[0].which, "resource");
  auto closed =
      client_->Post(path, kAuth, R"({"ledger": "expense", "amount": 1, "session": "closed"})", "application/json");
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->status, 404) << closed->body;
  EXPECT_NE(closed->body.find("not open"), std::string::npos) << closed->body;
  auto bad = client_->Post(path, kAuth, R"({"ledger": "expense", "amount": 1, "session": 7})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400) << bad->body;
  EXPECT_EQ(raises_.size(), 1u);
  auto ledger = client_->Get("/dashboard/api/ledger?session=client-1", kAuth);
  ASSERT_TRUE(ledger);
  ASSERT_EQ(ledger->status, 200) << ledger->body;
  const json l = json::parse(ledger->body);
  EXPECT_EQ(l["session"], "client-1");
  EXPECT_EQ(l["budget"]["of"], "client-1");
  auto info = client_->Get("/dashboard/api/info", kAuth);
  ASSERT_TRUE(info);
  EXPECT_EQ(json::parse(info->body)["per_session_budget"], true);
}

TEST(DashboardRaise, ACompanyWithoutARaiseRefusesItSayingSo) {
  testing::FakeCompanyService company;
  ServiceCompany view(company);
  Status s = view.raise_budget("", "expense", 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot be raised"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace kaisha::dashboard
