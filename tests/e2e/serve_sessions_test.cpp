// `kaisha serve` with many clients at once: fifty A2A clients, each in its
// own context, send a task at the same moment to the real binary over the
// scripted mock LLM. Every task completes with its own answer in its own
// company session; the tasks' model calls overlap (the mock saw several in
// flight at once); and the ledgers add up: what the tasks report, what the
// journal's expense ledger holds and the shared budget's saved state agree.
#include <condition_variable>
#include <set>
#include <thread>

#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "tests/e2e/serve_fixture.hpp"
#include "tests/protocols/mcp/mcp_client_test_util.hpp"

namespace kaisha::e2e {
namespace {

const char* kManyClientsScript = R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "answer to {{last_user}}", latency_ms: 300, usage: { input_tokens: 2000, output_tokens: 100 } }
)";

const char* kManyClientsCostTable = R"(
models:
  ceo:
    model_ref: openai:ceo-model
    type: cloud
    invoke_expense_cost: 0.5
    output_expense_cost: 1.5
    description: "The CEO's model"
)";

// The largest number of mock requests in flight at one moment.
size_t peak_mock_in_flight(const std::vector<json>& log) {
  std::vector<std::pair<int64_t, int>> edges;
  for (const auto& r : log) {
    if (!r.contains("answered_us")) continue;
    edges.push_back({r["received_us"].get<int64_t>(), +1});
    edges.push_back({r["answered_us"].get<int64_t>(), -1});
  }
  std::sort(edges.begin(), edges.end());  // an answer before a request of the same µs
  size_t now = 0, peak = 0;
  for (const auto& [_, d] : edges) {
    now += d;
    peak = std::max(peak, now);
  }
  return peak;
}

TEST_F(ServeTest, FiftyA2aClientsAtOnceEachGetTheirOwnAnswerAndTheLedgersAddUp) {
  constexpr int kClients = 50;
  start_mock(kManyClientsScript);
  ConfigOptions o;
  o.expense_total = 100;
  o.extra = "cost_table: " + dir_.write("costs.yaml", kManyClientsCostTable) +
            "\nserve:\n  max_sessions: 64\n  max_running_tasks: 16\n";
  cfg_ = write_config(o);
  start_serve();
  ASSERT_FALSE(HasFatalFailure());

  struct Outcome {
    int status = 0;
    json task;
    std::string body;
  };
  std::vector<Outcome> got(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      json message{{"messageId", "m" + std::to_string(i)},
                   {"contextId", "client-" + std::to_string(i)},
                   {"role", "ROLE_USER"},
                   {"parts", json::array({{{"text", "question " + std::to_string(i)}}})}};
      auto r = a2a_send(message, i);
      got[i].status = r.status;
      got[i].body = r.body;
      json j = json::parse(r.body, nullptr, false);
      if (!j.is_discarded()) got[i].task = j["result"]["task"];
    });
  }
  for (auto& t : clients) t.join();

  double reported = 0;
  std::set<std::string> task_ids;
  for (int i = 0; i < kClients; ++i) {
    ASSERT_EQ(got[i].status, 200) << got[i].body << server_->log();
    const json& t = got[i].task;
    ASSERT_EQ(t["status"]["state"], "TASK_STATE_COMPLETED") << got[i].body;
    EXPECT_EQ(t["artifacts"][0]["parts"][0]["text"], "answer to question " + std::to_string(i));
    EXPECT_EQ(t["contextId"], "client-" + std::to_string(i));
    reported += t["metadata"]["kaisha"]["expenseUsd"].get<double>();
    task_ids.insert(t["id"].get<std::string>());
  }
  EXPECT_EQ(task_ids.size(), static_cast<size_t>(kClients));
  // 2,000 tokens in at $0.5/M and 100 out at $1.5/M, once per task.
  EXPECT_NEAR(reported, kClients * (2000 * 0.5 + 100 * 1.5) / 1e6, 1e-9);
  // The sessions ran side by side: serialised, no two calls would overlap.
  EXPECT_GE(peak_mock_in_flight(mock_->request_log()), 2u);

  // A context's next task goes to the same session.
  json again{{"messageId", "m-again"},
             {"contextId", "client-7"},
             {"role", "ROLE_USER"},
             {"parts", json::array({{{"text", "question 7b"}}})}};
  auto r = a2a_send(again, 99);
  ASSERT_EQ(r.status, 200) << r.body;
  const json t7b = json::parse(r.body)["result"]["task"];
  EXPECT_EQ(t7b["artifacts"][0]["parts"][0]["text"], "answer to question 7b");
  reported += t7b["metadata"]["kaisha"]["expenseUsd"].get<double>();
  server_->stop();

  // The journal: one session per context, hosted by the server's default one.
  auto st = store::JournalStore::open_read_only(db());
  ASSERT_TRUE(st.ok());
  auto main = (*st)->latest_session();
  ASSERT_TRUE(main.ok() && main->has_value());
  auto hosted = (*st)->hosted_sessions((**main).id);
  ASSERT_TRUE(hosted.ok());
  ASSERT_EQ(hosted->size(), static_cast<size_t>(kClients));
  double journaled = 0, task_rows = 0;
  for (const auto& s : *hosted) {
    auto tasks = (*st)->tasks(s.id);
    ASSERT_TRUE(tasks.ok());
    const std::string conversation = s.config.value("conversation", "");
    EXPECT_EQ(tasks->size(), conversation == "client-7" ? 2u : 1u) << conversation;
    for (const auto& t : *tasks) {
      EXPECT_EQ(t.status, "done");
      task_rows += t.expense;
    }
    auto ledger = (*st)->ledger_entries(s.id);
    ASSERT_TRUE(ledger.ok());
    for (const auto& e : *ledger)
      if (e.ledger == "expense" && e.kind == "ask_settle") journaled += e.amount;  // the CEO's calls
  }
  EXPECT_NEAR(journaled, reported, 1e-9);
  EXPECT_NEAR(task_rows, reported, 1e-9);
  // One budget for all of them, saved under the default session.
  auto state = (*st)->load_budget_state((**main).id);
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_NEAR((**state)["expense"]["used"].get<double>(), reported, 1e-9) << (**state).dump();
  RunResult budget = kaisha({"budget", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  EXPECT_NEAR(json::parse(budget.out)["budget"]["current_expense"].get<double>(), reported, 1e-9) << budget.out;
}

TEST_F(ServeTest, ATaskAsksItsUserOverA2aAndAcpAndGoesOnWithTheAnswer) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());

  // A2A: the blocking send returns at the question; the next message with
  // the task's id answers it.
  json message{{"messageId", "m1"},
               {"contextId", "ctx-weather"},
               {"role", "ROLE_USER"},
               {"parts", json::array({{{"text", "the weather tomorrow"}}})}};
  auto sent = a2a_send(message, 1);
  ASSERT_EQ(sent.status, 200) << sent.body << server_->log();
  json task = json::parse(sent.body)["result"]["task"];
  ASSERT_EQ(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED") << sent.body;
  EXPECT_EQ(task["status"]["message"]["parts"][0]["text"], "どの都市ですか？") << sent.body;
  const std::string id = task["id"];

  // A message naming another context is refused; the task still waits.
  json wrong{{"messageId", "m2"},
             {"taskId", id},
             {"contextId", "ctx-other"},
             {"role", "ROLE_USER"},
             {"parts", json::array({{{"text", "Kyoto"}}})}};
  auto refused = a2a_send(wrong, 2);
  ASSERT_EQ(refused.status, 200) << refused.body;
  EXPECT_TRUE(json::parse(refused.body).contains("error")) << refused.body;

  json answer{{"messageId", "m3"},
              {"taskId", id},
              {"contextId", "ctx-weather"},
              {"role", "ROLE_USER"},
              {"parts", json::array({{{"text", "大阪"}}})}};
  auto resumed = a2a_send(answer, 3);
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  json done = json::parse(resumed.body)["result"]["task"];
  EXPECT_EQ(done["id"], id);
  EXPECT_EQ(done["status"]["state"], "TASK_STATE_COMPLETED") << resumed.body;
  EXPECT_NE(done["artifacts"][0]["parts"][0]["text"].get<std::string>().find("大阪"), std::string::npos)
      << resumed.body;

  // ACP: the run awaits; POST /runs/{id} with await_resume goes on.
  auto run = request("POST", "/acp/runs",
                     json{{"agent_name", "kaisha"},
                          {"mode", "sync"},
                          {"input", {{{"role", "user"}, {"parts", {{{"content", "weather in the evening"}}}}}}}}
                         .dump());
  ASSERT_EQ(run.status, 200) << run.body;
  json r = json::parse(run.body);
  ASSERT_EQ(r["status"], "awaiting") << run.body;
  EXPECT_EQ(r["await_request"]["message"]["parts"][0]["content"], "どの都市ですか？") << run.body;
  auto again =
      request("POST", "/acp/runs/" + r["run_id"].get<std::string>(),
              json{{"await_resume",
                    {{"type", "message"}, {"message", {{"role", "user"}, {"parts", {{{"content", "Sapporo"}}}}}}}},
                   {"mode", "sync"}}
                  .dump());
  ASSERT_EQ(again.status, 200) << again.body;
  json r2 = json::parse(again.body);
  EXPECT_EQ(r2["status"], "completed") << again.body;
  EXPECT_NE(r2["output"][0]["parts"][0]["content"].get<std::string>().find("Sapporo"), std::string::npos) << again.body;
  // A run that awaits nothing cannot be resumed.
  auto twice = request(
      "POST", "/acp/runs/" + r["run_id"].get<std::string>(),
      json{{"await_resume", {{"type", "message"}, {"message", {{"role", "user"}, {"parts", {{{"content", "x"}}}}}}}}}
          .dump());
  EXPECT_EQ(twice.status, 403) << twice.body;
}

// A 2026-07-28 MCP client: run_task answers with an InputRequiredResult
// carrying the question; the client retries with its user's answer and the
// same task goes on.
TEST_F(ServeTest, AStatelessMcpClientAnswersTheCompanysQuestion) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                  {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", json::object()}}}};
  const std::vector<std::pair<std::string, std::string>> headers{{"Accept", "application/json, text/event-stream"},
                                                                 {"MCP-Protocol-Version", "2026-07-28"},
                                                                 {"Mcp-Method", "tools/call"},
                                                                 {"Mcp-Name", "run_task"}};
  // One JSON object, or (on a slow machine) an event stream ending with it.
  auto last = [](const http::HttpResult& r) {
    return r.header("content-type").find("event-stream") != std::string::npos ? sse_events(r.body).back()
                                                                              : json::parse(r.body);
  };
  json params{{"name", "run_task"}, {"arguments", {{"task", "the weather at noon"}}}, {"_meta", meta}};
  auto first =
      request("POST", "/mcp", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", params}}.dump(),
              headers);
  ASSERT_EQ(first.status, 200) << first.body << server_->log();
  json r1 = last(first);
  ASSERT_EQ(r1["result"]["resultType"], "input_required") << r1.dump();
  const json& ask = r1["result"]["inputRequests"]["answer"];
  EXPECT_EQ(ask["method"], "elicitation/create") << r1.dump();
  EXPECT_EQ(ask["params"]["message"], "どの都市ですか？") << r1.dump();
  ASSERT_TRUE(r1["result"].contains("requestState")) << r1.dump();

  params["inputResponses"] = {{"answer", {{"action", "accept"}, {"content", {{"answer", "名古屋"}}}}}};
  params["requestState"] = r1["result"]["requestState"];
  auto second =
      request("POST", "/mcp", json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", params}}.dump(),
              headers);
  ASSERT_EQ(second.status, 200) << second.body;
  json r2 = last(second);
  EXPECT_EQ(r2["result"]["resultType"], "complete") << r2.dump();
  EXPECT_FALSE(r2["result"].value("isError", false)) << r2.dump();
  EXPECT_NE(r2["result"]["content"][0]["text"].get<std::string>().find("名古屋"), std::string::npos) << r2.dump();
  // One task, asked once: the retry did not start another.
  server_->stop();
  RunResult history = kaisha({"history", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  EXPECT_EQ(json::parse(history.out)["tasks"].size(), 1u) << history.out;
}

// A 2025-11-25 MCP client (kaisha's own, with its session): run_task asks
// the company's question as an elicitation/create request on the call's
// stream; the client's answer goes on with the same task. A user who
// declines ends the task as canceled.
TEST_F(ServeTest, ASessionMcpClientIsAskedByElicitationAndAnswers) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  http::HttpClient h;
  mcp::McpClientOptions o;
  o.protocol_version = "2025-11-25";
  o.capabilities = {{"elicitation", json::object()}};
  auto c = mcp::McpClient::create(std::make_unique<mcp::McpHttpClientTransport>(h, base_ + "/mcp"), h, o);
  std::mutex mu;
  std::vector<json> asked;
  std::string reply_with = "福岡";
  c->on_request([&](const std::string& method, const json& params, std::function<void(Result<json>)> reply) {
    std::lock_guard lock(mu);
    asked.push_back(json{{"method", method}, {"params", params}});
    if (reply_with.empty()) return reply(json{{"action", "decline"}});
    reply(json{{"action", "accept"}, {"content", {{"answer", reply_with}}}});
  });
  ASSERT_TRUE(mcp::testing::connect(*c).ok()) << server_->log();
  ASSERT_EQ(c->protocol_version(), "2025-11-25");

  auto r = mcp::testing::call(*c, "run_task", {{"task", "the weather tonight"}});
  ASSERT_TRUE(r.ok()) << r.error().message << server_->log();
  EXPECT_FALSE(r->value("isError", false)) << r->dump();
  EXPECT_NE((*r)["content"][0]["text"].get<std::string>().find("福岡"), std::string::npos) << r->dump();
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0]["method"], "elicitation/create");
    EXPECT_EQ(asked[0]["params"]["message"], "どの都市ですか？") << asked[0].dump();
    EXPECT_EQ(asked[0]["params"]["requestedSchema"]["required"][0], "answer") << asked[0].dump();
    reply_with.clear();
  }

  auto declined = mcp::testing::call(*c, "run_task", {{"task", "the weather next week"}});
  ASSERT_TRUE(declined.ok()) << declined.error().message;
  EXPECT_TRUE(declined->value("isError", false)) << declined->dump();
  EXPECT_NE((*declined)["content"][0]["text"].get<std::string>().find("declined"), std::string::npos)
      << declined->dump();
  c->close();

  // The session's company stops with the server: SIGTERM is enough.
  EXPECT_EQ(stop_and_wait_exit(), 0) << server_->log();
  RunResult history = kaisha({"history", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  std::multiset<std::string> states;
  const json listed = json::parse(history.out);
  for (const auto& t : listed["tasks"]) states.insert(t.value("status", ""));
  EXPECT_EQ(states, (std::multiset<std::string>{"canceled", "done"})) << history.out;
}

// SIGTERM while a session client's task waits for the answer to its
// elicitation: the call is canceled and the server still exits by itself.
TEST_F(ServeTest, AServerStopsOnSigtermWhileASessionMcpClientIsAsked) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  http::HttpClient h;
  mcp::McpClientOptions o;
  o.protocol_version = "2025-11-25";
  o.capabilities = {{"elicitation", json::object()}};
  auto c = mcp::McpClient::create(std::make_unique<mcp::McpHttpClientTransport>(h, base_ + "/mcp"), h, o);
  std::mutex mu;
  std::condition_variable cv;
  bool asked = false;
  std::function<void(Result<json>)> unanswered;  // the user never answers
  c->on_request([&](const std::string&, const json&, std::function<void(Result<json>)> reply) {
    std::lock_guard lock(mu);
    unanswered = std::move(reply);
    asked = true;
    cv.notify_all();
  });
  ASSERT_TRUE(mcp::testing::connect(*c).ok()) << server_->log();
  std::thread caller([&] { (void)mcp::testing::call(*c, "run_task", {{"task", "the weather at dawn"}}); });
  {
    std::unique_lock lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return asked; })) << server_->log();
  }
  EXPECT_EQ(stop_and_wait_exit(), 0) << server_->log();
  caller.join();
  c->close();
}

// A task run by a 2025-11-25 client in its MCP session runs in a company
// session of its own; SIGTERM then stops that session's actors and the
// server exits by itself, as it does with no task run.
TEST_F(ServeTest, AServerThatRanASessionMcpClientsTaskExitsOnSigterm) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const auto session = open_mcp_session();
  ASSERT_FALSE(session.empty());
  auto call = request("POST", "/mcp",
                      json{{"jsonrpc", "2.0"},
                           {"id", 2},
                           {"method", "tools/call"},
                           {"params", {{"name", "run_task"}, {"arguments", {{"task", "hello"}}}}}}
                          .dump(),
                      session);
  ASSERT_EQ(call.status, 200) << call.body << server_->log();
  // One JSON object, or an event stream ending with it.
  const bool stream = call.header("content-type").find("event-stream") != std::string::npos;
  const std::vector<json> events = stream ? sse_events(call.body) : std::vector<json>{json::parse(call.body)};
  ASSERT_FALSE(events.empty()) << call.body;
  EXPECT_EQ(events.back()["result"]["content"][0]["text"], "answer to hello") << call.body;

  EXPECT_EQ(stop_and_wait_exit(), 0) << server_->log();
}

// `kaisha serve` killed while a task waits for its user's answer: started
// again, it resumes the task from the journal (the CEO's turn is not asked
// again) and the question is asked again; the client's answer then goes on
// with the same task.
TEST_F(ServeTest, AQuestionPendingWhenTheServerDiesIsAskedAgainAfterTheRestart) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto sent = a2a_send(json{{"messageId", "m1"},
                            {"contextId", "ctx-restart"},
                            {"role", "ROLE_USER"},
                            {"parts", json::array({{{"text", "the weather on Sunday"}}})}},
                       1);
  ASSERT_EQ(sent.status, 200) << sent.body << server_->log();
  json task = json::parse(sent.body)["result"]["task"];
  ASSERT_EQ(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED") << sent.body;
  const std::string id = task["id"];
  ASSERT_TRUE(wait_for(
      [&] {
        auto t = latest_task(db());
        if (!t) return false;
        for (const auto& o : t->kept)  // the CEO's turn that asks the user
          if (o.find("\"type\":\"model\"") != std::string::npos && o.find("AskUser") != std::string::npos) return true;
        return false;
      },
      std::chrono::seconds(30)))
      << server_->log();
  server_->kill9();

  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  json again;
  ASSERT_TRUE(wait_for(
      [&] {
        auto got = request("POST", "/a2a",
                           json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "GetTask"}, {"params", {{"id", id}}}}.dump(),
                           {{"A2A-Version", "1.0"}});
        json j = json::parse(got.body, nullptr, false);
        if (j.is_discarded() || !j.contains("result")) return false;
        again = j["result"];
        return again["status"]["state"] == "TASK_STATE_INPUT_REQUIRED";
      },
      std::chrono::seconds(60)))
      << again.dump() << server_->log();
  EXPECT_EQ(again["status"]["message"]["parts"][0]["text"], "どの都市ですか？") << again.dump();

  auto resumed = a2a_send(json{{"messageId", "m2"},
                               {"taskId", id},
                               {"contextId", "ctx-restart"},
                               {"role", "ROLE_USER"},
                               {"parts", json::array({{{"text", "神戸"}}})}},
                          3);
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  json done = json::parse(resumed.body)["result"]["task"];
  EXPECT_EQ(done["status"]["state"], "TASK_STATE_COMPLETED") << resumed.body;
  EXPECT_NE(done["artifacts"][0]["parts"][0]["text"].get<std::string>().find("神戸"), std::string::npos)
      << resumed.body;
  // The CEO was asked twice in all: for the question, and with the answer.
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);
}

// The CEO asks its user to authorise a bigger budget (HASHIRU's economy):
// the task pauses like any question; "はい" raises the expense budget through
// the ledger, and `kaisha budget` shows the new total.

TEST_F(ServeTest, TheCeoAsksToRaiseTheBudgetAndTheUsersYesRaisesIt) {
  start_mock(kBudgetRaiseScript);
  ConfigOptions o;
  o.expense_total = 5;
  cfg_ = write_config(o);
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto sent = a2a_send(json{{"messageId", "m1"},
                            {"contextId", "ctx-budget"},
                            {"role", "ROLE_USER"},
                            {"parts", json::array({{{"text", "research the market"}}})}},
                       1);
  ASSERT_EQ(sent.status, 200) << sent.body << server_->log();
  json task = json::parse(sent.body)["result"]["task"];
  ASSERT_EQ(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED") << sent.body;
  const std::string question = task["status"]["message"]["parts"][0]["text"];
  EXPECT_NE(question.find("expense budget by $3.00"), std::string::npos) << question;
  EXPECT_NE(question.find("もっと詳しく調べるためです。"), std::string::npos) << question;

  auto answered = a2a_send(json{{"messageId", "m2"},
                                {"taskId", task["id"]},
                                {"contextId", "ctx-budget"},
                                {"role", "ROLE_USER"},
                                {"parts", json::array({{{"text", "はい"}}})}},
                           2);
  ASSERT_EQ(answered.status, 200) << answered.body;
  json done = json::parse(answered.body)["result"]["task"];
  EXPECT_EQ(done["status"]["state"], "TASK_STATE_COMPLETED") << answered.body;
  EXPECT_NE(done["artifacts"][0]["parts"][0]["text"].get<std::string>().find("raised by $3.00"), std::string::npos)
      << answered.body;

  server_->stop();
  RunResult budget = kaisha({"budget", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  const json b = json::parse(budget.out)["budget"];
  EXPECT_DOUBLE_EQ(b["total_expense_budget"].get<double>(), 8.0) << budget.out;  // 5 + the 3 authorised
  EXPECT_DOUBLE_EQ(b["total_resource_budget"].get<double>(), 100.0) << budget.out;
}

}  // namespace
}  // namespace kaisha::e2e
