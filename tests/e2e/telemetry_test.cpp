// What `kaisha serve` shows of itself: /metrics checked against `kaisha
// budget` after a scripted task, /events read by `kaisha watch` (whole, and
// resumed after an event id), and both endpoints refusing what the protocol
// endpoints refuse.
#include "runtime/telemetry/prometheus_text.hpp"
#include "tests/e2e/serve_fixture.hpp"

namespace kaisha::e2e {
namespace {

// The CEO hires a priced cloud helper and asks it, so both ledgers move.
const char* kScript = R"(
rules:
  - match: { model: ceo-model, last_role: user }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Helper, base_model: gemini-2.0-flash, system_prompt: "You help.", description: "A helper" }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AgentCreator }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Helper, prompt: "挨拶して 🚀" } } ] }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AskAgent }
    reply: { text: "ヘルパーが挨拶しました 🎉" }
  - match: { model: gemini-2.0-flash }
    reply: { text: "こんにちは from the helper" }
)";

const std::string kTask = "ヘルパーに挨拶させて 🚀";

class TelemetryTest : public ServeTest {
 protected:
  // Sends kTask over A2A; `wait`: until it has ended. Returns the task id.
  std::string send_task(bool wait) {
    json message{{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", kTask}}})}};
    json params{{"message", message}};
    if (!wait) params["configuration"] = {{"returnImmediately", true}};
    auto sent = request("POST", "/a2a",
                        json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "SendMessage"}, {"params", params}}.dump(),
                        {{"A2A-Version", "1.0"}});
    EXPECT_EQ(sent.status, 200) << sent.body << server_->log();
    json task = json::parse(sent.body, nullptr, false);
    if (!task.is_object() || !task.contains("result")) return "";
    if (wait) EXPECT_EQ(task["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED") << sent.body;
    return task["result"]["task"].value("id", "");
  }
};

TEST_F(TelemetryTest, MetricsAgreeWithKaishaBudgetAfterAScriptedTask) {
  start_mock(kScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_FALSE(send_task(true).empty());

  auto m = request("GET", "/metrics", "");
  ASSERT_EQ(m.status, 200) << m.body;
  EXPECT_EQ(m.header("content-type").rfind("text/plain; version=0.0.4", 0), 0u) << m.header("content-type");
  auto p = telemetry::parse_prometheus_text(m.body);
  ASSERT_TRUE(p.ok()) << p.error().message << "\n" << m.body;
  EXPECT_EQ(p->value("kaisha_tasks_total", {{"outcome", "completed"}}), 1) << m.body;
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "hire"}}), 1) << m.body;
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "ask"}}), 1) << m.body;
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "refusal"}}), 0) << m.body;
  // Every request the mock answered was one model call, measured.
  const double calls = static_cast<double>(requests_for("ceo-model").size() + requests_for("gemini-2.0-flash").size());
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(p->sum("kaisha_model_calls_total", {{"outcome", "ok"}}), calls) << m.body;
  EXPECT_EQ(p->sum("kaisha_model_call_seconds_count"), calls) << m.body;
  EXPECT_EQ(p->sum("kaisha_model_calls_total", {{"model", "gemini-2.0-flash"}}), 1) << m.body;
  EXPECT_GT(p->value("kaisha_journal_commit_seconds_count").value_or(0), 0) << m.body;
  EXPECT_EQ(p->value("kaisha_asks_in_flight"), 0) << m.body;
  EXPECT_EQ(p->value("kaisha_hired_agents"), 1) << m.body;
  EXPECT_EQ(p->types["kaisha_model_call_seconds"], "histogram");

  server_->stop();
  RunResult budget = kaisha({"budget", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  json b = json::parse(budget.out);
  const json& totals = b["totals"];
  const json& ledgers = b["budget"];
  EXPECT_GT(totals["expense"].get<double>(), 0) << b.dump();
  EXPECT_NEAR(p->value("kaisha_task_cost_usd_total").value_or(-1), totals["expense"].get<double>(), 1e-12);
  EXPECT_EQ(p->value("kaisha_task_tokens_total", {{"direction", "input"}}), totals["tokens_in"].get<double>());
  EXPECT_EQ(p->value("kaisha_task_tokens_total", {{"direction", "output"}}), totals["tokens_out"].get<double>());
  EXPECT_NEAR(p->value("kaisha_ledger_used", {{"ledger", "expense"}}).value_or(-1),
              ledgers["current_expense"].get<double>(), 1e-12);
  EXPECT_EQ(p->value("kaisha_ledger_used", {{"ledger", "resource"}}), ledgers["current_resource_usage"].get<double>());
  EXPECT_EQ(p->value("kaisha_ledger_total", {{"ledger", "expense"}}), ledgers["total_expense_budget"].get<double>());
  EXPECT_NEAR(p->value("kaisha_ledger_remaining", {{"ledger", "expense"}}).value_or(-1),
              ledgers["current_remaining_expense_budget"].get<double>(), 1e-12);
}

uint64_t event_number(const json& line) {
  const std::string id = line.value("id", "");
  return std::stoull(id.substr(id.find('-') + 1));
}

TEST_F(TelemetryTest, WatchReadsATasksEventsAndResumesAfterAnEventId) {
  start_mock(kScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const std::string task = send_task(false);
  ASSERT_FALSE(task.empty());

  // The whole task, from its first event (held by the server) to its end.
  RunResult whole = kaisha({"watch", base_, "--task", task, "--json"});
  ASSERT_EQ(whole.exit_code, 0) << whole.describe() << server_->log();
  auto lines = whole.events();
  ASSERT_GE(lines.size(), 5u) << whole.out;
  EXPECT_EQ(lines.front()["event"], "task") << whole.out;
  EXPECT_EQ(lines.front()["text"], kTask);
  EXPECT_EQ(lines.back()["event"], "final") << whole.out;
  EXPECT_GT(lines.back()["usd"].get<double>(), 0) << whole.out;
  size_t hire = lines.size();
  std::vector<std::string> kinds;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["task"], task);
    if (i > 0) EXPECT_GT(event_number(lines[i]), event_number(lines[i - 1])) << whole.out;
    kinds.push_back(lines[i]["event"]);
    if (lines[i]["event"] == "hire" && lines[i]["data"].value("agent", "") == "Helper") hire = i;
  }
  ASSERT_LT(hire, lines.size()) << whole.out;
  EXPECT_NE(std::find(kinds.begin() + hire, kinds.end(), "ask"), kinds.end()) << whole.out;
  EXPECT_NE(std::find(kinds.begin() + hire, kinds.end(), "answer"), kinds.end()) << whole.out;

  // Resumed after the hire: exactly the events that followed it.
  RunResult resumed = kaisha({"watch", base_, "--task", task, "--json", "--after", lines[hire]["id"]});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  auto rest = resumed.events();
  ASSERT_EQ(rest.size(), lines.size() - hire - 1) << resumed.out;
  for (size_t i = 0; i < rest.size(); ++i) EXPECT_EQ(rest[i]["id"], lines[hire + 1 + i]["id"]);

  // An id from another server process: told so on stderr, shown what is held.
  RunResult stale = kaisha({"watch", base_, "--task", task, "--json", "--after", "1-5"});
  ASSERT_EQ(stale.exit_code, 0) << stale.describe();
  EXPECT_NE(stale.err.find("no longer holds some events"), std::string::npos) << stale.err;
  EXPECT_EQ(stale.events().size(), lines.size());

  // The plain transcript names the agents.
  RunResult plain = kaisha({"watch", base_, "--task", task, "--plain"});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  EXPECT_NE(plain.out.find("[Helper] answer: Helper: こんにちは from the helper"), std::string::npos) << plain.out;
}

TEST_F(TelemetryTest, TheEndpointsRefuseBadFiltersAndForeignOrigins) {
  start_mock(kScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto bad = request("GET", "/events?kinds=ask,dance", "");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("'dance' is not an event kind"), std::string::npos) << bad.body;
  for (const char* path : {"/events", "/metrics"}) {
    auto foreign = request("GET", path, "", {{"Origin", "https://evil.example"}});
    EXPECT_EQ(foreign.status, 403) << path << " " << foreign.body;
    auto rebound = request("GET", path, "", {{"Host", "evil.example"}});
    EXPECT_EQ(rebound.status, 403) << path << " " << rebound.body;
  }
  // kaisha watch reports a refusal it cannot fix instead of retrying forever.
  RunResult w = kaisha({"watch", base_ + "/events?kinds=dance"});
  EXPECT_EQ(w.exit_code, 2) << w.describe();
  EXPECT_NE(w.err.find("400"), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("dance"), std::string::npos) << w.err;
}

}  // namespace
}  // namespace kaisha::e2e
