// The company asks its user at the terminal (AskUser) under `kaisha chat` and
// `kaisha run`: the question is shown, the next input line answers it and the
// same task goes on; an empty line or the end of the input declines.
#include "e2e_fixture.hpp"

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
    env["OLLAMA_HOST"] = "127.0.0.1:" + std::to_string(closed_loopback_port());
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
  // The model was offered the tool, and its next call carried the answer.
  auto calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 2u) << r.describe();
  EXPECT_NE(calls[0].dump().find("AskUser"), std::string::npos);
  EXPECT_NE(calls[1].dump().find("大阪 🏯"), std::string::npos) << calls[1].dump();
  EXPECT_EQ(task_status(results[0]["session"], 0), "done");
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
  for (const auto& call : requests_for("ceo-model")) EXPECT_EQ(call.dump().find("The user answered"), std::string::npos);
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
  auto calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 1u) << piped.describe();
  EXPECT_EQ(calls[0].dump().find("AskUser"), std::string::npos);

  // At a terminal: the answer is typed when the question shows.
  RunResult tty = at_terminal({"answer> ", "名古屋\n"}, {"run", "--config", cfg, "--json", "天気を教えて"});
  ASSERT_EQ(tty.exit_code, 0) << tty.describe();
  calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 3u) << tty.describe();
  EXPECT_NE(calls[1].dump().find("AskUser"), std::string::npos);
  EXPECT_NE(calls[2].dump().find("名古屋"), std::string::npos) << calls[2].dump();
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
