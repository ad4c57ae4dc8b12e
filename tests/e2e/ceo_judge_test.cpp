// HASHIRU with judge.final_answer: the judge audits the CEO's final answer
// (infiagent.md §10 items 23–27); a rejection goes back to the CEO, and a
// judge that never accepts ends the task with its last report.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

const char* kJudgedScript = R"(
rules:
  - name: ceo-reanswers
    match: { model: ceo-model, last_user: "rejected" }
    reply: { text: "The Nile and the Amazon are the two longest rivers." }
  - name: ceo-answers
    match: { model: ceo-model }
    reply: { text: "Rivers are long." }
  - name: judge-rejects-once
    match: { model: judge-model }
    times: 1
    reply: { text: '{"status":"error","output":"Too vague.","error_information":"Name the rivers."}' }
  - name: judge-accepts
    match: { model: judge-model }
    reply: { text: '{"status":"success","output":"Meets the instruction.","error_information":""}' }
)";

TEST_F(E2eTest, JudgeRejectionSendsTheCeoBackThenAccepts) {
  start_mock(kJudgedScript);
  ConfigOptions o;
  o.extra = "judge: { final_answer: true, model: \"openai:judge-model\" }\n";
  RunResult r = run_json(write_config(o), "Which rivers are the longest?");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result()["answer"], "The Nile and the Amazon are the two longest rivers.");
  EXPECT_EQ(requests_for("judge-model").size(), 2u);
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);
  // The CEO's second request carries the judge's report.
  json second = requests_for("ceo-model").back();
  EXPECT_NE(second.dump().find("rejected"), std::string::npos) << second.dump();
  auto verdicts = r.events("verdict");
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_FALSE(verdicts[0]["data"]["success"].get<bool>());
  EXPECT_NEAR(verdicts[0]["data"]["quality"].get<double>(), 0.4, 1e-9);   // 0.8*0.5 + 0.2*0
  EXPECT_NEAR(verdicts[1]["data"]["quality"].get<double>(), 0.52, 1e-9);  // 0.8*0.4 + 0.2*1
  auto j = journal();
  ASSERT_TRUE(j);
  auto q = j->load_quality("CEO");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->has_value());
  EXPECT_NEAR((*q)->q, 0.52, 1e-9);
  EXPECT_EQ((*q)->verdicts, 2);
}

const char* kNeverAccepts = R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "Rivers are long." }
  - match: { model: judge-model }
    reply: { text: '{"status":"error","output":"No.","error_information":"Still vague."}' }
)";

TEST_F(E2eTest, JudgeThatNeverAcceptsFailsTheTaskAfterFourVerdicts) {
  start_mock(kNeverAccepts);
  ConfigOptions o;
  o.extra = "judge: { final_answer: true, model: \"openai:judge-model\", max_retries: 3 }\n";
  RunResult r = run_json(write_config(o), "Which rivers are the longest?");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(requests_for("judge-model").size(), 4u);  // 1 + 3 retries
  // Four answers, then the error reflection turn (memory.error_reflection).
  ASSERT_EQ(requests_for("ceo-model").size(), 5u);
  EXPECT_NE(requests_for("ceo-model").back().dump().find("was marked wrong"), std::string::npos);
  EXPECT_NE(r.result()["error"].get<std::string>().find("Still vague."), std::string::npos) << r.describe();
  EXPECT_EQ(r.err.find("deprecated"), std::string::npos) << r.err;
}

// Configs written before the judge had its own section still work: the
// judge's model and retries are read from effGen's older keys, and each older
// key is named on stderr with its new name.
TEST_F(E2eTest, JudgeKeysUnderTheirOlderEffgenNamesStillWorkWithAWarning) {
  start_mock(kNeverAccepts);
  ConfigOptions o;
  o.extra = "judge: { final_answer: true }\neffgen: { judge_model: \"openai:judge-model\", max_judge_retries: 1 }\n";
  RunResult r = run_json(write_config(o), "Which rivers are the longest?");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(requests_for("judge-model").size(), 2u);  // 1 + 1 retry
  EXPECT_EQ(requests_for("ceo-model").size(), 3u);    // two answers, then the reflection turn
  EXPECT_NE(r.err.find("kaisha: warning: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'effgen.judge_model' is deprecated; it is read as 'judge.model'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'effgen.max_judge_retries' is deprecated; it is read as 'judge.max_retries'"),
            std::string::npos)
      << r.err;
  size_t lines = 0;  // one line per older key, printed once
  for (size_t at = r.err.find("is deprecated"); at != std::string::npos; at = r.err.find("is deprecated", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u) << r.err;
}

TEST_F(E2eTest, WithoutTheSwitchNoJudgeIsAsked) {
  start_mock(kJudgedScript);
  RunResult r = run_json(write_config(), "Which rivers are the longest?");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result()["answer"], "Rivers are long.");
  EXPECT_TRUE(requests_for("judge-model").empty());
}

}  // namespace
}  // namespace kaisha::e2e
