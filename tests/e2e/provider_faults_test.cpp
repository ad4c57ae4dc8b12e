// Provider faults through the CLI, on an employee's model and on the CEO's:
// 429 with Retry-After, 500 until the retries run out, a hanging server, and a
// response cut off half-way. A failed CEO call fails the task (exit 1) with a
// message naming the model, URL and attempts, and keeps the journal so far; a
// failed employee call goes back to the CEO as a tool error.
//
// The CLI does not stream model answers (neither the CEO's nor the
// employees' requests set `stream`), so `cut_stream` here cuts a plain JSON
// body in half; the streamed variant is covered at the provider level by
// tests/runtime/provider (LlmClient against MockLlmServer).
#include <set>

#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

// CEO: hire Poet (llama3.2), ask it, answer with what it said. Faults are
// prepended per test.
std::string ceo_hires_and_asks(const std::string& faults) {
  return "rules:\n" + faults + R"(
  - name: poet
    match: { model: llama3.2 }
    reply: { text: "A river poem." }
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "Poems.", description: "Poems" } } ] }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Poet, prompt: "A poem, please." } } ] }
  - match: { model: ceo-model, turn: 2 }
    reply: { text: "Result: {{last_tool}}" }
)";
}

TEST_F(E2eTest, EmployeeModelRateLimitedOnceIsRetriedAfterRetryAfter) {
  start_mock(ceo_hires_and_asks(R"(
  - match: { model: llama3.2 }
    times: 1
    fault: { status: 429, retry_after: 1 }
)"));
  RunResult r = kaisha({"run", "--config", write_config(), "Write a poem."});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("A river poem."), std::string::npos) << r.out;
  // The Retry-After of 1 s was honoured and reported on stderr.
  EXPECT_NE(r.err.find("ollama:llama3.2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("retrying in 1000 ms (attempt 2)"), std::string::npos) << r.err;
  auto calls = requests_for("llama3.2");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["status"], 429);
  EXPECT_EQ(calls[1]["status"], 200);
}

TEST_F(E2eTest, CeoModelRateLimitedOnceIsRetried) {
  start_mock(ceo_hires_and_asks(R"(
  - match: { model: ceo-model }
    times: 1
    fault: { status: 429, retry_after: 1 }
)"));
  RunResult r = kaisha({"run", "--config", write_config(), "Write a poem."});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("openai:ceo-model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("retrying in 1000 ms"), std::string::npos) << r.err;
  EXPECT_EQ(requests_for("ceo-model").size(), 4u);  // 429 + three turns
}

TEST_F(E2eTest, CeoModelFailingWith500FailsTheTaskAndKeepsTheJournal) {
  // The hire (turn 0) succeeds; every later CEO call answers 500.
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "Poems.", description: "Poems" } } ] }
  - match: { model: ceo-model }
    fault: { status: 500 }
)");
  ConfigOptions o;
  o.max_attempts = 3;
  RunResult r = run_json(write_config(o), "Write a poem.");
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const json res = r.result();
  EXPECT_EQ(res["ok"], false);
  const std::string error = res["error"];
  EXPECT_NE(error.find("openai:ceo-model"), std::string::npos) << error;
  EXPECT_NE(error.find("http://127.0.0.1:" + std::to_string(port_) + "/v1/chat/completions"), std::string::npos)
      << error;
  EXPECT_NE(error.find("after 3 attempts"), std::string::npos) << error;
  EXPECT_EQ(requests_for("ceo-model").size(), 4u);  // turn 0 + 3 attempts

  // Nothing journaled before the failure is lost.
  auto j = journal();
  ASSERT_TRUE(j);
  auto tasks = j->tasks(session_of(r));
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "failed");
  EXPECT_NE((*tasks)[0].error.find("openai:ceo-model"), std::string::npos);
  auto steps = j->task_steps((*tasks)[0].id);
  ASSERT_TRUE(steps.ok());
  std::set<std::string> kinds;
  for (auto& s : *steps) kinds.insert(s.kind);
  for (const char* k : {"llm_request", "llm_response", "tool_call", "tool_result", "hire", "error"})
    EXPECT_TRUE(kinds.count(k)) << "missing step kind " << k;
  auto agents = j->active_agents(session_of(r));
  ASSERT_TRUE(agents.ok());
  ASSERT_EQ(agents->size(), 1u);
  EXPECT_EQ((*agents)[0].name, "Poet");
}

TEST_F(E2eTest, EmployeeModelFailingWith500GoesBackToTheCeo) {
  start_mock(ceo_hires_and_asks(R"(
  - match: { model: llama3.2 }
    fault: { status: 500 }
)"));
  ConfigOptions o;
  o.max_attempts = 2;
  RunResult r = run_json(write_config(o), "Write a poem.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto asks = r.tool_results("AskAgent");
  ASSERT_EQ(asks.size(), 1u);
  EXPECT_EQ(asks[0]["status"], "error");
  const std::string msg = asks[0]["message"];
  EXPECT_NE(msg.find("Agent Poet failed to answer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ollama:llama3.2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("after 2 attempts"), std::string::npos) << msg;
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);
  // The failed call released its hold: nothing stays reserved.
  EXPECT_DOUBLE_EQ(r.ledgers()["reserved_resource"].get<double>(), 0);
}

TEST_F(E2eTest, HangingCeoModelTimesOut) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    fault: { kind: hang }
)");
  ConfigOptions o;
  o.timeout_ms = 400;
  o.max_attempts = 2;
  RunResult r = run_json(write_config(o), "Anything.");
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const std::string error = r.result().value("error", "");
  EXPECT_NE(error.find("timed out (limit 400 ms)"), std::string::npos) << error;
  EXPECT_NE(error.find("after 2 attempts"), std::string::npos) << error;
  // Generous bound (noisy machine): far below the mock's 10 s hang release.
  EXPECT_LT(r.seconds, 9.0);
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);
}

TEST_F(E2eTest, CutOffEmployeeResponseIsRetried) {
  start_mock(ceo_hires_and_asks(R"(
  - match: { model: llama3.2 }
    times: 1
    fault: { kind: cut_stream }
)"));
  RunResult r = kaisha({"run", "--config", write_config(), "Write a poem."});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("A river poem."), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("unparseable response body"), std::string::npos) << r.err;
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);
}

TEST_F(E2eTest, CutOffCeoResponseFailsTheTaskCleanly) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    fault: { kind: cut_stream }
)");
  ConfigOptions o;
  o.max_attempts = 2;
  RunResult r = run_json(write_config(o), "Anything.");
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const std::string error = r.result().value("error", "");
  EXPECT_NE(error.find("unparseable response body"), std::string::npos) << error;
  EXPECT_NE(error.find("after 2 attempts"), std::string::npos) << error;
}

TEST_F(E2eTest, ProviderDownIsRetriedThenFailsWithThePartialJournalKept) {
  start_mock(ceo_hires_and_asks(""));
  // The CEO's provider (openai) points at a port nobody listens on.
  ConfigOptions o;
  o.max_attempts = 2;
  std::string yaml = config_yaml(o);
  const std::string live = "http://127.0.0.1:" + std::to_string(port_) + "/v1,";
  const std::string dead_url = "http://127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port()) + "/v1";
  const size_t at = yaml.find(live, yaml.find("  openai:"));
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, live.size() - 1, dead_url);
  RunResult r = run_json(dir_.write("down.yaml", yaml), "Write a poem.");
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const std::string error = r.result().value("error", "");
  EXPECT_NE(error.find("openai:ceo-model at " + dead_url), std::string::npos) << error;
  EXPECT_NE(error.find("after 2 attempts"), std::string::npos) << error;
  EXPECT_EQ(r.events("retry").size(), 1u) << r.out;
  EXPECT_TRUE(mock_->request_log().empty());

  auto j = journal();
  ASSERT_TRUE(j);
  auto tasks = j->tasks(session_of(r));
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "failed");
  EXPECT_EQ((*tasks)[0].input, "Write a poem.");
  auto steps = j->task_steps((*tasks)[0].id);
  ASSERT_TRUE(steps.ok());
  ASSERT_GE(steps->size(), 2u);
  EXPECT_EQ(steps->front().kind, "llm_request");
  EXPECT_EQ(steps->back().kind, "error");
}

}  // namespace
}  // namespace kaisha::e2e
