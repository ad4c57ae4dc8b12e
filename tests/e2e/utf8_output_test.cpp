// Text is UTF-8 on every output, whatever the task and the models say:
// Japanese, emoji and ill-formed bytes (the mock's {{bytes:...}} marker sends
// raw bytes no JSON encoder would write) through `kaisha run --json` (hashiru
// and effgen), the plain progress transcript, the journal and `kaisha
// history` (plain and --json). Each run must finish, and each output must
// be valid UTF-8 (the --json lines valid JSON). The effgen run is the one
// that hung: the planner cut the worker prompt at 200 bytes inside a
// character and the --json printer's dump() threw in the planner.
#include "e2e_fixture.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::e2e {
namespace {

// examples/effgen's task, translated (about 300 bytes), with an emoji.
const std::string kJapaneseTask =
    "三大クラウドプロバイダーを調査し、GPUインスタンスの価格を比較し、各社のセキュリティと"
    "コンプライアンス認証を分析し、6か月間の学習実行の総コストを計算して、財務チーム向けに"
    "表とグラフ付きの推奨レポートを作成してください。🚀";
const std::string kFffd = "\xEF\xBF\xBD";
// A cut 日, a stray byte, a surrogate, an overlong '/': each becomes U+FFFD.
const std::string kBadBytes = "{{bytes:E6 97 FF ED A0 80 C0 AF}}";

// Every line of `text` (and the whole) is valid UTF-8; names the first bad line.
::testing::AssertionResult all_utf8(const std::string& what, const std::string& text) {
  if (utf8::valid(text)) return ::testing::AssertionSuccess();
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!utf8::valid(line)) return ::testing::AssertionFailure() << what << " has invalid UTF-8 in: " << line;
  return ::testing::AssertionFailure() << what << " is not valid UTF-8";
}

// Each non-empty line parses as JSON (strictly: no replacement on parse).
::testing::AssertionResult json_lines(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (json::parse(line, nullptr, false).is_discarded())
      return ::testing::AssertionFailure() << "not a JSON line: " << line;
  }
  return ::testing::AssertionSuccess();
}

class Utf8OutputTest : public E2eTest {
 protected:
  // The run finished, and its stdout and stderr are valid UTF-8.
  void expect_clean(const RunResult& r, const std::string& what) {
    EXPECT_FALSE(r.timed_out) << what << " hung\n" << r.describe();
    EXPECT_EQ(r.exit_code, 0) << what << "\n" << r.describe();
    EXPECT_TRUE(all_utf8(what + " stdout", r.out));
    EXPECT_TRUE(all_utf8(what + " stderr", r.err));
  }

  // The journal's rows of `session` are valid UTF-8, and so is `kaisha
  // history`, plain (which cuts payloads at 160 bytes) and --json.
  void expect_clean_journal_and_history(const std::string& cfg, const std::string& session) {
    auto st = journal();
    ASSERT_TRUE(st);
    auto tasks = st->tasks(session);
    ASSERT_TRUE(tasks.ok()) << tasks.error().message;
    ASSERT_FALSE(tasks->empty());
    for (const auto& t : *tasks) {
      EXPECT_TRUE(all_utf8("task input", t.input));
      EXPECT_TRUE(all_utf8("task answer", t.final_answer));
      EXPECT_TRUE(all_utf8("task error", t.error));
    }
    auto steps = st->session_steps(session);
    ASSERT_TRUE(steps.ok()) << steps.error().message;
    ASSERT_FALSE(steps->empty());
    for (const auto& s : *steps) {
      std::string text;
      EXPECT_NO_THROW(text = s.payload.dump()) << "step " << s.seq << " (" << s.kind << ")";
      EXPECT_TRUE(all_utf8("step payload", text));
    }
    st.reset();
    RunResult plain = kaisha({"history", "--config", cfg, "--session", session});
    expect_clean(plain, "kaisha history");
    RunResult js = kaisha({"history", "--config", cfg, "--session", session, "--json"});
    expect_clean(js, "kaisha history --json");
    EXPECT_FALSE(json::parse(js.out, nullptr, false).is_discarded()) << js.out;
  }
};

// The CEO hires a llama3.2 worker and asks it a long Japanese question; the
// worker answers in Japanese with emoji and ill-formed bytes, and so does the
// CEO's final answer.
TEST_F(Utf8OutputTest, HashiruRunJournalHistoryAndTranscriptStayUtf8) {
  start_mock(R"(rules:
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Chosain, base_model: llama3.2, system_prompt: "あなたは調査員です。", description: "調べる 🔍" } }
  - name: ceo-asks
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls:
        - { name: AskAgent, arguments: { agent_name: Chosain, prompt: "{{last_user}}" } }
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "最終回答 🎉: {{last_tool}} )" +
             kBadBytes + R"(" }
  - name: worker-answers
    match: { model: llama3.2 }
    reply: { text: "プロバイダーBが最安です。😀 表: | A | B | C | 壊れた文字: )" +
             kBadBytes + R"( 以上。" }
)");
  const std::string cfg = write_config();
  RunResult r = run_json(cfg, kJapaneseTask);
  expect_clean(r, "kaisha run --json");
  EXPECT_TRUE(json_lines(r.out));
  json res = r.result();
  ASSERT_TRUE(res.value("ok", false)) << r.describe();
  const std::string answer = res.value("answer", "");
  EXPECT_NE(answer.find("最終回答 🎉"), std::string::npos) << answer;
  EXPECT_NE(answer.find("プロバイダーBが最安です。😀"), std::string::npos) << answer;
  EXPECT_NE(answer.find(kFffd), std::string::npos) << answer;
  expect_clean_journal_and_history(cfg, session_of(r));

  // The plain transcript (stderr) cuts long texts to 240 bytes with "…".
  RunResult plain = kaisha({"run", "--config", cfg, kJapaneseTask});
  expect_clean(plain, "kaisha run (transcript)");
  EXPECT_NE(plain.err.find("…"), std::string::npos) << plain.err;
  EXPECT_NE(plain.out.find("最終回答"), std::string::npos) << plain.describe();
}

// The task that hung: effgen on the Japanese task. Rules cover both routes
// (one worker, or a plan): the worker's and the synthesis's answers carry
// ill-formed bytes, and the judge's verdict quotes Japanese.
TEST_F(Utf8OutputTest, EffgenJapaneseTaskFinishesWithUtf8Output) {
  start_mock(R"(rules:
  - name: planner-decomposes
    match: { model: planner-7b, last_user: "task decomposition expert" }
    reply:
      text: '{"subtasks":[{"id":"st_1","description":"各社のGPU価格を調査する 💰","depends_on":[],"expected_output":"価格表","estimated_complexity":4,"required_specialization":"research","priority":"high"},{"id":"st_2","description":"推奨レポートを書く 📝","depends_on":["st_1"],"expected_output":"レポート","estimated_complexity":5,"required_specialization":"synthesis","priority":"medium"}],"reasoning":"調査してから書く"}'
  - name: planner-synthesises
    match: { model: planner-7b, last_user: "Subtask results" }
    reply: { text: "推奨: プロバイダーB 🏆 )" +
             kBadBytes + R"(" }
  - name: judge-accepts
    match: { model: judge-7b }
    reply: { text: '{"status":"success","output":"指示どおりです ✅","error_information":""}' }
  - name: worker-answers
    match: { model: llama3.2 }
    reply: { text: "プロバイダーBが最安です。😀 )" +
             kBadBytes + R"( 以上。" }
)");
  ConfigOptions o;
  o.resource_total = 400;
  o.extra =
      "strategy: effgen\n"
      "effgen:\n"
      "  planner_model: openai:planner-7b\n"
      "  worker_model: llama3.2\n"
      "judge:\n"
      "  model: openai:judge-7b\n"
      "  subtasks: true\n";
  const std::string cfg = write_config(o);
  RunResult r = run_json(cfg, kJapaneseTask, {"--strategy", "effgen"});
  expect_clean(r, "kaisha run --strategy effgen --json");
  EXPECT_TRUE(json_lines(r.out));
  json res = r.result();
  ASSERT_TRUE(res.value("ok", false)) << r.describe();
  const std::string answer = res.value("answer", "");
  EXPECT_TRUE(answer.find("プロバイダーB") != std::string::npos) << answer;
  EXPECT_NE(answer.find(kFffd), std::string::npos) << answer;
  // The planner's "ask" event: the worker prompt cut at 200 bytes, at a character.
  auto asks = r.events("ask");
  ASSERT_FALSE(asks.empty()) << r.describe();
  for (const auto& a : asks) EXPECT_TRUE(all_utf8("ask event", a.value("text", "")));
  expect_clean_journal_and_history(cfg, session_of(r));

  RunResult plain = kaisha({"run", "--config", cfg, "--strategy", "effgen", kJapaneseTask});
  expect_clean(plain, "kaisha run --strategy effgen (transcript)");
}

}  // namespace
}  // namespace kaisha::e2e
