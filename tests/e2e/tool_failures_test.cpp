// Tools that fail, through the real binary, the scripted mock LLM and the
// scripted MCP server: a tool that fails transiently is retried after its
// backoff and the model sees only the success; a tool that keeps failing
// opens its circuit breaker, and the next call is refused at once; after
// its cool-down a trial call that succeeds closes it. The journal holds
// every attempt, the retry, the breaker's changes and the refusal, the
// events report them live, `kaisha tools` reads each tool's health back
// from the journal; the answer carries what the worker saw.
#include <map>

#include "cluster_fixture.hpp"
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

class ToolFailuresTest : public E2eTest {
 protected:
  std::string config(const std::string& failures =
                         "{ max_attempts: 3, backoff_ms: 50, max_backoff_ms: 200, breaker_failures: 2,\n"
                         "              breaker_cooldown_ms: 600000, breaker_half_open_calls: 1 }",
                     const std::string& name = "config.yaml") {
    ConfigOptions o;
    o.resource_total = 1000;
    o.extra = std::string("mcp_servers:\n  - name: t\n    command: ") + MCP_TEST_SERVER +
              "\n    restart_base_ms: 60000\n    restart_max_ms: 60000\n    stderr_log: " + dir_.file("t.log") +
              "\n"
              "tools:\n"
              "  failures: " +
              failures + "\n";
    std::string y = config_yaml(o);
    const std::string plain = "employee:\n  max_output_tokens: 1024\n";
    y.replace(y.find(plain), plain.size(), plain + "  tools:\n    agents:\n      Worker: [\"mcp:t\"]\n");
    return dir_.write(name, y);
  }

  // Runs `task` with `cfg` and kills it (SIGKILL) once a retry is journaled:
  // the retry is then waiting for its backoff.
  void kill_during_a_retry(const std::string& cfg, const std::string& task) {
    BackgroundProcess p(KAISHA_EXE, {"run", "--config", cfg, "--json", task},
                        {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}}, db() + ".log");
    auto retry_journaled = [&] {
      auto t = latest_task(db());
      if (!t) return false;
      auto j = store::JournalStore::open_read_only(db());
      if (!j.ok()) return false;
      auto steps = (*j)->task_steps(t->task.id);
      if (!steps.ok()) return false;
      for (const auto& s : *steps)
        if (s.kind == "note" && s.payload.contains("tool_retry")) return true;
      return false;
    };
    ASSERT_TRUE(wait_for(retry_journaled, std::chrono::seconds(30))) << p.log();
    p.kill9();
  }
};

TEST_F(ToolFailuresTest, ATransientFailureIsRetriedAndAToolThatKeepsFailingIsPaused) {
  start_mock(R"(rules:
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Worker, base_model: llama3.2, system_prompt: "Use your tools.", description: "works" } }
  - name: ceo-asks
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls: [ { name: AskAgent, arguments: { agent_name: Worker, prompt: "fetch, then try the broken tool" } } ]
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "Final: {{last_tool}}" }
  - name: worker-calls-flaky
    match: { model: llama3.2, turn: 0, has_tools: true }
    reply:
      tool_calls: [ { name: t__flaky, arguments: { fail_times: 1 } } ]
  - name: worker-calls-fail-three-times
    match: { model: llama3.2, last_tool: "ok after 1 failures" }
    reply:
      tool_calls:
        - { name: t__fail, arguments: {} }
        - { name: t__fail, arguments: {} }
        - { name: t__fail, arguments: {} }
  - name: worker-answers
    match: { model: llama3.2, last_tool_name: t__fail }
    reply: { text: "Worker saw {{last_tool}}" }
)");
  RunResult r = run_json(config(), "delegate");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string answer = r.result().value("answer", "");
  // The third call of the broken tool was refused without running it.
  EXPECT_NE(answer.find("Worker saw"), std::string::npos) << answer;
  EXPECT_NE(answer.find("circuit breaker open"), std::string::npos) << answer;

  // The model never saw the transient error: the request after the flaky
  // tool carries its success.
  auto reqs = requests_for("llama3.2");
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_NE(reqs[1].value("last_message", "").find("flaky: ok after 1 failures"), std::string::npos) << reqs[1];
  for (const auto& q : reqs) EXPECT_EQ(q.dump().find("temporarily unavailable"), std::string::npos) << q;

  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->session_steps(session_of(r));
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  std::vector<json> flaky_results, fail_results, retries, breaker_notes, refusals;
  int tool_calls = 0;
  for (const auto& s : *steps) {
    if (s.agent != "Worker") continue;
    if (s.kind == "tool_call") {
      ++tool_calls;
      EXPECT_EQ(s.payload["metadata"]["category"], "mcp") << s.payload;
    }
    if (s.kind == "tool_result" && s.payload.value("tool", "") == "t__flaky") flaky_results.push_back(s.payload);
    if (s.kind == "tool_result" && s.payload.value("tool", "") == "t__fail") fail_results.push_back(s.payload);
    if (s.kind == "note" && s.payload.contains("tool_retry")) retries.push_back(s.payload);
    if (s.kind == "note" && s.payload.contains("breaker")) breaker_notes.push_back(s.payload);
    if (s.kind == "refusal") refusals.push_back(s.payload);
  }
  // flaky: one failed attempt and its retry; fail: two that ran and one refused.
  EXPECT_EQ(tool_calls, 5);
  ASSERT_EQ(flaky_results.size(), 2u);
  EXPECT_EQ(flaky_results[0]["result"]["status"], "error");
  EXPECT_EQ(flaky_results[1]["result"]["status"], "success");
  ASSERT_EQ(retries.size(), 1u);
  EXPECT_EQ(retries[0]["tool_retry"], "t__flaky");
  EXPECT_EQ(retries[0]["attempt"], 2);
  EXPECT_EQ(retries[0]["error_class"], "transient");
  // The 50 ms backoff less its jitter (half at most, by default).
  EXPECT_GE(retries[0]["delay_ms"].get<int64_t>(), 25) << retries[0];
  EXPECT_LE(retries[0]["delay_ms"].get<int64_t>(), 50) << retries[0];
  // The broken tool is not retried (its error is not transient) and opens its breaker.
  ASSERT_EQ(fail_results.size(), 3u);
  for (const auto& f : fail_results) EXPECT_EQ(f["result"]["status"], "error");
  EXPECT_EQ(fail_results[2]["result"]["output"]["breaker"], "open");
  ASSERT_EQ(breaker_notes.size(), 1u);
  EXPECT_EQ(breaker_notes[0], (json{{"breaker", "t__fail"},
                                    {"from", "closed"},
                                    {"to", "open"},
                                    {"consecutive_failures", 2},
                                    {"cooldown_ms", 600000}}));
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0]["tool"], "t__fail");
  EXPECT_EQ(refusals[0]["breaker"], "open");
  EXPECT_GT(refusals[0]["retry_in_ms"].get<int64_t>(), 0);

  // And as events: the retry and the refusal.
  auto retry_events = r.events("retry");
  ASSERT_EQ(retry_events.size(), 1u) << r.describe();
  EXPECT_EQ(retry_events[0]["data"]["tool"], "t__flaky");
  bool refused_event = false;
  for (const auto& e : r.events("refusal")) refused_event |= e["data"].value("breaker", "") == "open";
  EXPECT_TRUE(refused_event) << r.describe();
  // The breaker's opening as a live event.
  auto breaker_events = r.events("breaker");
  ASSERT_EQ(breaker_events.size(), 1u) << r.describe();
  EXPECT_EQ(breaker_events[0]["data"]["tool"], "t__fail");
  EXPECT_EQ(breaker_events[0]["data"]["to"], "open");
  EXPECT_EQ(breaker_events[0]["agent"], "Worker");

  // `kaisha tools` reads it all back from the journal, after the company is gone.
  RunResult tools = kaisha({"tools", "--config", config(), "--json"});
  ASSERT_EQ(tools.exit_code, 0) << tools.describe();
  const json listed = json::parse(tools.out, nullptr, false);
  ASSERT_TRUE(listed.is_object()) << tools.out;
  EXPECT_EQ(listed["session"], session_of(r));
  std::map<std::string, json> rows;
  for (const auto& row : listed["tools"]) rows[row.value("tool", "")] = row;
  EXPECT_EQ(rows.count("AskAgent"), 0u);  // the CEO's management tools have no health
  ASSERT_EQ(rows.count("t__fail"), 1u) << tools.out;
  EXPECT_EQ(rows["t__fail"]["calls"], 2);
  EXPECT_EQ(rows["t__fail"]["failures"], 2);
  EXPECT_EQ(rows["t__fail"]["consecutive_failures"], 2);
  EXPECT_EQ(rows["t__fail"]["refused"], 1);
  EXPECT_EQ(rows["t__fail"]["health"], 0.0);
  EXPECT_EQ(rows["t__fail"]["breaker"], "open");
  EXPECT_EQ(rows["t__fail"]["cooldown_ms"], 600000);
  ASSERT_EQ(rows.count("t__flaky"), 1u) << tools.out;
  EXPECT_EQ(rows["t__flaky"]["calls"], 2);
  EXPECT_EQ(rows["t__flaky"]["failures"], 1);
  EXPECT_EQ(rows["t__flaky"]["consecutive_failures"], 0);
  EXPECT_EQ(rows["t__flaky"]["breaker"], "closed");
  EXPECT_DOUBLE_EQ(rows["t__flaky"]["health"].get<double>(), 0.5);  // MCP tools declare no timeout
  RunResult text = kaisha({"tools", "--config", config()});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("tool(s)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("t__fail"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("open ("), std::string::npos) << text.out;  // with the cool-down left
}

// A tool that keeps failing opens its breaker; once the cool-down is over a
// trial call goes through (half-open) and, succeeding, closes it: three
// `breaker` events and three notes. The retries' backoff (300 ms, then
// 600 ms; no jitter) outlasts the 100 ms cool-down whatever the load.
TEST_F(ToolFailuresTest, ABreakerOpensThenATrialThatSucceedsClosesIt) {
  start_mock(R"(rules:
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Worker, base_model: llama3.2, system_prompt: "Use your tools.", description: "works" } }
  - name: ceo-asks
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls: [ { name: AskAgent, arguments: { agent_name: Worker, prompt: "fetch" } } ]
  - name: ceo-answers
    match: { model: ceo-model }
    reply: { text: "Final: {{last_tool}}" }
  - name: worker-answers
    match: { model: llama3.2, last_role: tool }
    reply: { text: "Worker saw {{last_tool}}" }
  - name: worker-calls-flaky
    match: { model: llama3.2 }
    reply:
      tool_calls: [ { name: t__flaky, arguments: { fail_times: 2 } } ]
)");
  const std::string cfg = config(
      "{ max_attempts: 3, backoff_ms: 300, max_backoff_ms: 1000, backoff_jitter: 0, breaker_failures: 2,\n"
      "              breaker_cooldown_ms: 100, breaker_half_open_calls: 1 }");
  RunResult r = run_json(cfg, "delegate");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.result().value("answer", "").find("flaky: ok after 2 failures"), std::string::npos) << r.describe();

  auto events = r.events("breaker");
  ASSERT_EQ(events.size(), 3u) << r.describe();
  std::vector<std::pair<std::string, std::string>> changes;
  for (const auto& e : events) {
    EXPECT_EQ(e["data"]["tool"], "t__flaky");
    EXPECT_EQ(e["agent"], "Worker");
    EXPECT_NE(e.value("text", "").find("t__flaky"), std::string::npos) << e;
    changes.emplace_back(e["data"].value("from", ""), e["data"].value("to", ""));
  }
  EXPECT_EQ(changes, (std::vector<std::pair<std::string, std::string>>{
                         {"closed", "open"}, {"open", "half_open"}, {"half_open", "closed"}}));
  EXPECT_EQ(events[0]["data"]["consecutive_failures"], 2);
  EXPECT_EQ(events[0]["data"]["cooldown_ms"], 100);

  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->session_steps(session_of(r));
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  std::vector<std::string> notes;
  for (const auto& s : *steps)
    if (s.kind == "note" && s.payload.contains("breaker")) notes.push_back(s.payload.value("to", ""));
  EXPECT_EQ(notes, (std::vector<std::string>{"open", "half_open", "closed"}));

  RunResult tools = kaisha({"tools", "--config", cfg, "--json"});
  ASSERT_EQ(tools.exit_code, 0) << tools.describe();
  const json listed = json::parse(tools.out, nullptr, false);
  ASSERT_TRUE(listed.is_object()) << tools.out;
  bool found = false;
  for (const auto& row : listed["tools"]) {
    if (row.value("tool", "") != "t__flaky") continue;
    found = true;
    EXPECT_EQ(row["calls"], 3);
    EXPECT_EQ(row["failures"], 2);
    EXPECT_EQ(row["consecutive_failures"], 0);
    EXPECT_EQ(row["breaker"], "closed");
  }
  EXPECT_TRUE(found) << tools.out;
}

// Killed while a retry waits for its backoff, the task resumes: the failed
// attempt and the model's answer that asked for the call are kept, so only
// the retry runs (the server, started anew, fails it once more: it is
// retried again) and the worker's first model call is not made again.
TEST_F(ToolFailuresTest, AResumeDuringARetrysBackoffRunsOnlyTheRetry) {
  start_mock(R"(rules:
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Worker, base_model: llama3.2, system_prompt: "Use your tools.", description: "works" } }
  - name: ceo-asks
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls: [ { name: AskAgent, arguments: { agent_name: Worker, prompt: "fetch" } } ]
  - name: ceo-answers
    match: { model: ceo-model }
    reply: { text: "Final: {{last_tool}}" }
  - name: worker-answers
    match: { model: llama3.2, last_role: tool }
    reply: { text: "Worker saw {{last_tool}}" }
  - name: worker-calls-flaky
    match: { model: llama3.2 }
    reply:
      tool_calls: [ { name: t__flaky, arguments: { fail_times: 1 } } ]
)");
  // The first run waits a minute before its retry: killed meanwhile.
  const std::string slow = config("{ max_attempts: 3, backoff_ms: 60000, max_backoff_ms: 60000 }", "slow.yaml");
  ASSERT_NO_FATAL_FAILURE(kill_during_a_retry(slow, "delegate"));
  ASSERT_EQ(requests_for("llama3.2").size(), 1u);

  RunResult resumed = kaisha({"resume", "--config", config(), "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  const std::string answer = resumed.result().value("answer", "");
  EXPECT_NE(answer.find("flaky: ok after 1 failures"), std::string::npos) << resumed.describe();
  // The worker's first model call came from the journal: one more call, its last.
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);

  auto j = journal();
  ASSERT_TRUE(j);
  auto t = latest_task(db());
  ASSERT_TRUE(t);
  auto steps = j->task_steps(t->task.id);
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  std::vector<std::string> results;
  std::vector<int> attempts;
  bool rerun_noted = false;
  for (const auto& s : *steps) {
    if (s.agent != "Worker") continue;
    if (s.kind == "tool_result") results.push_back(s.payload["result"].value("status", ""));
    if (s.kind == "note" && s.payload.contains("tool_retry")) attempts.push_back(s.payload["attempt"].get<int>());
    if (s.kind == "note" && s.payload.value("rerun", "") == "tool t__flaky of Worker") rerun_noted = true;
  }
  // The first attempt once (kept, not run again), the retry run on the
  // resume that failed against the new server, and the third that succeeded.
  EXPECT_EQ(results, (std::vector<std::string>{"error", "error", "success"}));
  EXPECT_EQ(attempts, (std::vector<int>{2, 3}));
  EXPECT_TRUE(rerun_noted);
}

// The CEO's own tool calls are retried too, and resume the same way: killed
// while the retry waits for its backoff, the resumed task keeps the CEO's
// answer that asked for the call and the failed attempt, and runs only the
// retry (failing once more against the new server, then succeeding).
TEST_F(ToolFailuresTest, TheCeosToolCallIsRetriedAndAResumeDuringItsBackoffRunsOnlyTheRetry) {
  start_mock(R"(rules:
  - name: ceo-answers
    match: { model: ceo-model, last_role: tool }
    reply: { text: "Final: {{last_tool}}" }
  - name: ceo-calls-flaky
    match: { model: ceo-model }
    reply:
      tool_calls: [ { name: t__flaky, arguments: { fail_times: 1 } } ]
)");
  const std::string slow = config("{ max_attempts: 3, backoff_ms: 60000, max_backoff_ms: 60000 }", "slow.yaml");
  ASSERT_NO_FATAL_FAILURE(kill_during_a_retry(slow, "fetch it"));
  ASSERT_EQ(requests_for("ceo-model").size(), 1u);

  RunResult resumed =
      kaisha({"resume", "--config", config("{ max_attempts: 3, backoff_ms: 50, max_backoff_ms: 200 }", "fast.yaml"),
              "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_NE(resumed.result().value("answer", "").find("flaky: ok after 1 failures"), std::string::npos)
      << resumed.describe();
  // The CEO's first answer came from the journal: one more model call, its last.
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);
  bool retry_event = false;
  for (const auto& e : resumed.events("retry")) retry_event |= e["data"].value("tool", "") == "t__flaky";
  EXPECT_TRUE(retry_event) << resumed.describe();

  auto j = journal();
  ASSERT_TRUE(j);
  auto t = latest_task(db());
  ASSERT_TRUE(t);
  auto steps = j->task_steps(t->task.id);
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  std::vector<std::string> results;
  std::vector<int> attempts;
  bool rerun_noted = false;
  for (const auto& s : *steps) {
    if (s.kind == "tool_result" && s.payload.value("tool", "") == "t__flaky")
      results.push_back(s.payload["result"].value("status", ""));
    if (s.kind == "note" && s.payload.contains("tool_retry")) attempts.push_back(s.payload["attempt"].get<int>());
    if (s.kind == "note" && s.payload.value("rerun", "").find("tool t__flaky") != std::string::npos) rerun_noted = true;
  }
  EXPECT_EQ(results, (std::vector<std::string>{"error", "error", "success"}));
  EXPECT_EQ(attempts, (std::vector<int>{2, 3}));
  EXPECT_TRUE(rerun_noted);
}

}  // namespace
}  // namespace kaisha::e2e
