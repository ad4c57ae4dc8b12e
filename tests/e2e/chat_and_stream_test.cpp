// `kaisha chat` (a multi-turn session fed on stdin, with its slash commands,
// and the questions the company asks its user there)
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
    env["OLLAMA_HOST"] = "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port());
    return run_process("/bin/sh", {"-c", "exec \"$0\" chat --config \"$1\" --json < \"$2\"", KAISHA_EXE, cfg, in}, env);
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
  RunResult r =
      chat(write_config(o),
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

// The company asks its user at the terminal (AskUser) under `kaisha chat` and
// `kaisha run`: the question is shown, the next input line answers it and the
// same task goes on; an empty line, the end of the input or Ctrl-C declines.
namespace kaisha::e2e {
namespace {

// The CEO asks which city, then answers with what its user said.
const char* kCityQuestionScript = R"(
rules:
  - match: { model: ceo-model, last_role: tool, last_tool_name: AskUser }
    reply: { text: "予報: {{last_tool}}" }
  - match: { model: ceo-model, last_role: user, last_user: "天気" }
    reply: { tool_calls: [ { name: AskUser, arguments: { question: "どの都市ですか？🌆" } } ] }
  - match: { model: ceo-model }
    reply: { text: "answer to {{last_user}}" }
)";

class AskingChatE2e : public E2eTest {
 protected:
  // `kaisha chat --config cfg --json` with `input` on its stdin (a file: not
  // a terminal, which chat takes for its conversation all the same).
  RunResult chat(const std::string& cfg, const std::string& input) {
    const std::string in = dir_.write("stdin.txt", input);
    return kaisha_sh("exec \"$0\" chat --config \"$1\" --json < \"$2\"", {cfg, in});
  }
  RunResult kaisha_sh(const std::string& script, std::vector<std::string> args) {
    std::map<std::string, std::optional<std::string>> env;
    for (const char* k : {"KAISHA_MODEL", "KAISHA_DB", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"})
      env[k] = std::nullopt;
    env["OLLAMA_HOST"] = "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port());
    std::vector<std::string> argv = {"-c", script, KAISHA_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process("/bin/sh", argv, env);
  }
  // `kaisha ARGS...` at a pseudo-terminal, typing each SEND once WAIT shows
  // (tests/e2e/data/type_at_terminal.py); stdout and stderr both in `out`.
  RunResult at_terminal(const std::vector<std::string>& wait_send, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {std::string(KAISHA_SOURCE_DIR) + "/tests/e2e/data/type_at_terminal.py"};
    argv.insert(argv.end(), wait_send.begin(), wait_send.end());
    argv.push_back("--");
    argv.push_back(KAISHA_EXE);
    argv.insert(argv.end(), args.begin(), args.end());
    return kaisha_sh("exec python3 \"$@\"", argv);
  }
  std::string task_status(const std::string& session, size_t index) {
    auto j = journal();
    if (!j) return "";
    auto tasks = j->tasks(session);
    if (!tasks.ok() || tasks->size() <= index) return "";
    return (*tasks)[index].status;
  }
};

TEST_F(AskingChatE2e, TheNextLineAnswersTheQuestionAndTheTaskGoesOn) {
  start_mock(kCityQuestionScript);
  RunResult r = chat(write_config(), "天気を教えて\n大阪 🏯\n/quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto asked = r.events("input_required");
  ASSERT_EQ(asked.size(), 1u) << r.describe();
  EXPECT_EQ(asked[0]["text"], "どの都市ですか？🌆");
  EXPECT_NE(r.err.find("the company asks you: どの都市ですか？🌆"), std::string::npos) << r.err;
  auto results = r.events("result");
  ASSERT_EQ(results.size(), 1u) << r.describe();
  EXPECT_EQ(results[0]["task"], asked[0]["task"]);
  EXPECT_NE(results[0].value("answer", "").find("大阪 🏯"), std::string::npos) << results[0].dump();
  // The tool answered with the user's line, and the model's next call carried it.
  auto answered = r.tool_results("AskUser");
  ASSERT_EQ(answered.size(), 1u) << r.describe();
  EXPECT_EQ(answered[0]["status"], "success") << answered[0].dump();
  auto calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 2u) << r.describe();
  EXPECT_NE(calls[1].dump().find("大阪 🏯"), std::string::npos) << calls[1].dump();
  EXPECT_EQ(task_status(results[0]["session"], 0), "done");
}

// RequestBudgetIncrease in a chat: the user's "yes" raises the budget of
// the company the chat runs, and `kaisha budget` shows it.
TEST_F(AskingChatE2e, AYesAtThePromptRaisesTheBudget) {
  start_mock(kBudgetRaiseScript);
  ConfigOptions o;
  o.expense_total = 5;
  const std::string cfg = write_config(o);
  RunResult r = chat(cfg, "research the market\nYes.\n/quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("raise its expense budget by $3.00"), std::string::npos) << r.err;
  auto results = r.events("result");
  ASSERT_EQ(results.size(), 1u) << r.describe();
  EXPECT_NE(results[0].value("answer", "").find("raised by $3.00"), std::string::npos) << results[0].dump();
  RunResult budget = kaisha({"budget", "--config", cfg, "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  EXPECT_DOUBLE_EQ(json::parse(budget.out)["budget"]["total_expense_budget"].get<double>(), 8.0) << budget.out;
}

TEST_F(AskingChatE2e, AnEmptyLineDeclinesAndEndsOnlyThatTask) {
  start_mock(kCityQuestionScript);
  RunResult r = chat(write_config(), "天気を教えて\n\nnext turn\n/quit\n");
  EXPECT_EQ(r.exit_code, 1) << r.describe();  // one task did not complete
  auto results = r.events("result");
  ASSERT_EQ(results.size(), 2u) << r.describe();
  EXPECT_FALSE(results[0].value("ok", true));
  EXPECT_NE(results[0].value("error", "").find("you declined to answer the company's question"), std::string::npos)
      << results[0].dump();
  EXPECT_EQ(results[1]["answer"], "answer to next turn");  // the chat went on
  EXPECT_EQ(task_status(results[0]["session"], 0), "canceled");
  // The declined question never reached the model as an answer.
  for (const auto& call : requests_for("ceo-model"))
    EXPECT_EQ(call.dump().find("The user answered"), std::string::npos);
}

TEST_F(AskingChatE2e, TheEndOfTheInputDeclines) {
  start_mock(kCityQuestionScript);
  RunResult r = chat(write_config(), "天気を教えて\n");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  ASSERT_EQ(r.events("result").size(), 1u) << r.describe();
  EXPECT_NE(r.result().value("error", "").find("declined"), std::string::npos) << r.describe();
  EXPECT_EQ(task_status(session_of(r), 0), "canceled");
  EXPECT_EQ(requests_for("ceo-model").size(), 1u);
}

TEST_F(AskingChatE2e, InputThatIsNotUtf8IsRefusedWithWhereItWentWrong) {
  start_mock(kCityQuestionScript);
  RunResult r = chat(write_config(), "\xE5\xA4 half a character\n天気を教えて\nab\xFF\n京都\n/quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("line 1 of the input is not valid UTF-8 (byte 1 of the line); it was not sent"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("line 3 of the input is not valid UTF-8 (byte 3 of the line)"), std::string::npos) << r.err;
  ASSERT_EQ(r.events("result").size(), 1u) << r.describe();
  EXPECT_NE(r.result().value("answer", "").find("京都"), std::string::npos) << r.describe();
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);
}

// `kaisha run` offers the tool only when its stdin is a terminal: a script
// never waits for an answer.
TEST_F(AskingChatE2e, RunAsksOnlyAtATerminal) {
  start_mock(kCityQuestionScript);
  const std::string cfg = write_config();
  RunResult piped = run_json(cfg, "天気を教えて");
  ASSERT_EQ(piped.exit_code, 0) << piped.describe();
  auto refused = piped.tool_results("AskUser");  // the script calls it all the same
  ASSERT_EQ(refused.size(), 1u) << piped.describe();
  EXPECT_EQ(refused[0]["status"], "error");
  EXPECT_NE(refused[0].value("message", "").find("not found"), std::string::npos) << refused[0].dump();
  EXPECT_TRUE(piped.events("input_required").empty());
  auto calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 2u) << piped.describe();

  // At a terminal: the answer is typed when the question shows.
  RunResult tty = at_terminal({"answer> ", "名古屋\n"}, {"run", "--config", cfg, "--json", "天気を教えて"});
  ASSERT_EQ(tty.exit_code, 0) << tty.describe();
  auto answered = tty.tool_results("AskUser");
  ASSERT_EQ(answered.size(), 1u) << tty.describe();
  EXPECT_EQ(answered[0]["status"], "success") << answered[0].dump();
  calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 4u) << tty.describe();
  EXPECT_NE(calls[3].dump().find("名古屋"), std::string::npos) << calls[3].dump();
  EXPECT_NE(tty.out.find("the company asks you: どの都市ですか？🌆"), std::string::npos) << tty.describe();
  EXPECT_NE(tty.result().value("answer", "").find("名古屋"), std::string::npos) << tty.describe();
}

// Ctrl-C while a question waits declines it; the chat goes on (another
// Ctrl-C would end it, as at its prompt).
TEST_F(AskingChatE2e, CtrlCDeclinesTheQuestionAndTheChatGoesOn) {
  start_mock(kCityQuestionScript);
  RunResult r = at_terminal({"> ", "天気を教えて\n", "answer> ", "\\x03", "task canceled", "", "> ", "next turn\n",
                             "answer to next turn", "", "> ", "/quit\n"},
                            {"chat", "--config", write_config()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();  // one task did not complete
  EXPECT_NE(r.out.find("kaisha: task canceled: you declined to answer the company's question"), std::string::npos)
      << r.describe();
  auto calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 2u) << r.describe();
  EXPECT_NE(calls[1].dump().find("next turn"), std::string::npos);
  auto j = journal();
  ASSERT_TRUE(j);
  auto latest = j->latest_session();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ(task_status((*latest)->id, 0), "canceled");
  EXPECT_EQ(task_status((*latest)->id, 1), "done");
}

}  // namespace
}  // namespace kaisha::e2e
