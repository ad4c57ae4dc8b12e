// `kaisha chat` (a multi-turn session fed on stdin, with its slash commands)
// and the streaming switch (ceo.stream) through the real binary.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

class ChatE2e : public E2eTest {
 protected:
  // `kaisha chat --config cfg --json` with `input` on its stdin.
  RunResult chat(const std::string& cfg, const std::string& input) {
    const std::string in = dir_.write("stdin.txt", input);
    std::map<std::string, std::optional<std::string>> env;
    for (const char* k : {"KAISHA_MODEL", "KAISHA_DB", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"})
      env[k] = std::nullopt;
    env["OLLAMA_HOST"] = "127.0.0.1:" + std::to_string(closed_loopback_port());
    return run_process("/bin/sh", {"-c", "exec \"$0\" chat --config \"$1\" --json < \"$2\"", KAISHA_EXE, cfg, in},
                       env);
  }
};

TEST_F(ChatE2e, TurnsShareTheSessionAndSlashCommandsWork) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "second" }
    reply: { text: "second answer" }
  - match: { model: ceo-model }
    reply: { text: "first answer" }
)");
  ConfigOptions o;
  o.expense_total = 1;
  RunResult r = chat(write_config(o),
                     "first question\n/raise expense 2\n/switch memory off\n/switch nonsense on\nsecond question\n/quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto results = r.events("result");
  ASSERT_EQ(results.size(), 2u) << r.describe();
  EXPECT_EQ(results[0]["answer"], "first answer");
  EXPECT_EQ(results[1]["answer"], "second answer");
  EXPECT_EQ(results[0]["session"], results[1]["session"]);
  // The second turn's request carries the first turn: one conversation.
  json last = requests_for("ceo-model").back();
  EXPECT_NE(last.dump().find("second question"), std::string::npos);
  // /raise took effect and was journaled; the unknown switch was refused by name.
  auto ledgers = r.events("ledgers");
  ASSERT_FALSE(ledgers.empty()) << r.describe();
  EXPECT_DOUBLE_EQ(ledgers.front()["budget"]["total_expense_budget"].get<double>(), 3.0);
  EXPECT_NE(r.err.find("unknown switch 'nonsense'"), std::string::npos) << r.err;
  auto j = journal();
  ASSERT_TRUE(j);
  auto entries = j->ledger_entries(results[0]["session"]);
  ASSERT_TRUE(entries.ok());
  bool raised = false;
  for (const auto& e : *entries) raised = raised || (e.kind == "raise" && e.amount == 2);
  EXPECT_TRUE(raised);
  auto tasks = j->tasks(results[0]["session"]);
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ(tasks->size(), 2u);
}

TEST_F(ChatE2e, BadSlashCommandArgumentsAreExplained) {
  start_mock("rules:\n  - reply: { text: ok }\n");
  RunResult r = chat(write_config(), "/raise expense lots\n/switch memory maybe\n");
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("a number, got 'lots'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("usage: /switch NAME on|off"), std::string::npos) << r.err;
  EXPECT_TRUE(mock_->request_log().empty());
}

// A mistyped command is refused, not sent to the CEO as a task (a paid model
// call); a leading space sends a text that starts with '/'.
TEST_F(ChatE2e, UnknownSlashCommandsAreRefused) {
  start_mock("rules:\n  - match: { model: ceo-model }\n    reply: { text: ok }\n");
  RunResult r = chat(write_config(), "/budgte\n/raise\n/etc/hosts please\n /etc/hosts is a file\n/quit\n");
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("unknown command '/budgte'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown command '/etc/hosts'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("usage: /raise"), std::string::npos) << r.err;
  auto asked = requests_for("ceo-model");
  ASSERT_EQ(asked.size(), 1u) << r.describe();
  EXPECT_NE(asked[0].dump().find("/etc/hosts is a file"), std::string::npos);
  EXPECT_EQ(r.events("result").size(), 1u);
}

TEST_F(E2eTest, StreamedAnswersArriveWhole) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "a streamed answer in several pieces", usage: { input_tokens: 10, output_tokens: 7 } }
)");
  ConfigOptions o;
  o.ceo_extra = "  stream: true\n";
  RunResult r = run_json(write_config(o), "Say something.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result()["answer"], "a streamed answer in several pieces");
  EXPECT_EQ(r.result()["tokens_out"], 7);
  auto log = requests_for("ceo-model");
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].value("stream", false)) << log[0].dump();
}

TEST_F(E2eTest, CutOffStreamIsRetriedThenFailsCleanly) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    fault: { kind: cut_stream }
)");
  ConfigOptions o;
  o.ceo_extra = "  stream: true\n";
  o.max_attempts = 2;
  RunResult r = run_json(write_config(o), "Say something.");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);  // retried once
  const std::string error = r.result()["error"];
  EXPECT_NE(error.find("after 2 attempts"), std::string::npos) << error;
  EXPECT_NE(error.find("stream"), std::string::npos) << error;
  // The task is journaled as failed, with its steps.
  auto j = journal();
  ASSERT_TRUE(j);
  auto tasks = j->tasks(r.result()["session"]);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "failed");
}

}  // namespace
}  // namespace kaisha::e2e

namespace kaisha::e2e {
namespace {

TEST_F(E2eTest, InterruptKeepsTheJournalAndMarksTheTask) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    fault: { kind: hang }
)");
  const std::string cfg = write_config();
  std::map<std::string, std::optional<std::string>> env;
  for (const char* k : {"KAISHA_MODEL", "KAISHA_DB", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"})
    env[k] = std::nullopt;
  // Start a task whose model never answers, interrupt it after three seconds
  // (time for the binary to start and journal the task on a loaded machine).
  RunResult r = run_process(
      "/bin/sh",
      {"-c", "\"$0\" run --config \"$1\" --json 'Wait for me.' & pid=$!; sleep 3; kill -INT $pid; wait $pid",
       KAISHA_EXE, cfg},
      env);
  EXPECT_EQ(r.exit_code, 130) << r.describe();
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.describe();
  auto j = journal();
  ASSERT_TRUE(j);
  auto latest = j->latest_session();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  auto tasks = j->tasks((*latest)->id);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "interrupted");
  EXPECT_NE((*tasks)[0].error.find("interrupted"), std::string::npos) << (*tasks)[0].error;
  // What was journaled before the interrupt is still there.
  auto steps = j->task_steps((*tasks)[0].id);
  ASSERT_TRUE(steps.ok());
  EXPECT_FALSE(steps->empty());
}

}  // namespace
}  // namespace kaisha::e2e
