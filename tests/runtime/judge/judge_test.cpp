#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "runtime/judge/audit_loop.hpp"
#include "runtime/judge/judge_verdict.hpp"
#include "runtime/judge/quality_score.hpp"

namespace kaisha::planning {
namespace {

const char* kReject = R"({"status":"error","output":"hello.py prints nothing","error_information":"missing print"})";
const char* kAccept = R"({"status":"success","output":"code_run/hello.py prints hi","error_information":""})";

TEST(JudgeVerdict, ParsesBothStatuses) {
  JudgeVerdict ok = parse_verdict(kAccept);
  EXPECT_TRUE(ok.success());
  EXPECT_FALSE(ok.malformed);
  EXPECT_EQ(ok.output, "code_run/hello.py prints hi");
  JudgeVerdict bad = parse_verdict(std::string("Verdict:\n```json\n") + kReject + "\n```");
  EXPECT_FALSE(bad.success());
  EXPECT_FALSE(bad.malformed);
  EXPECT_EQ(bad.error_information, "missing print");
  EXPECT_EQ(to_json(bad)["status"], "error");
}

TEST(JudgeVerdict, MalformedIsAnErrorVerdict) {
  for (const char* answer : {"Looks good to me!", R"({"status":"ok","output":"x"})", R"({"output":"x"})",
                             R"({"status":"success","output":{"files":[]}})", R"({"status":"success",)"}) {
    JudgeVerdict v = parse_verdict(answer);
    EXPECT_FALSE(v.success()) << answer;
    EXPECT_TRUE(v.malformed) << answer;
    EXPECT_EQ(v.error_information.rfind("the judge's verdict could not be read: ", 0), 0u) << v.error_information;
  }
}

// An unreadable answer is quoted back cut at 500 bytes: at a character,
// never inside one (the quote travels in JSON events and the journal).
TEST(JudgeVerdict, MalformedQuoteIsCutAtACharacter) {
  std::string answer = "x";                                // shifts the 3-byte characters off the 500-byte boundary
  for (int i = 0; i < 200; ++i) answer += "\xE6\x97\xA5";  // 日
  JudgeVerdict v = parse_verdict(answer);
  ASSERT_TRUE(v.malformed);
  EXPECT_TRUE(utf8::valid(v.output)) << v.output.size();
  EXPECT_TRUE(v.output.ends_with("\xE2\x80\xA6")) << "ends with an ellipsis";
  EXPECT_LE(v.output.size(), 500u + 3u);
}

// A number beyond a double used to terminate the process (the JSON library
// throws out_of_range, which the reader did not catch).
TEST(JudgeVerdict, NumberBeyondADoubleIsAMalformedVerdict) {
  JudgeVerdict v = parse_verdict(R"({"status":"success","output":"ok","score":2e308})");
  EXPECT_TRUE(v.malformed);
  EXPECT_FALSE(v.success());
  EXPECT_NE(v.error_information.find("number overflow"), std::string::npos) << v.error_information;
}

TEST(JudgeVerdict, ErrorWithoutReasonGetsOne) {
  EXPECT_EQ(parse_verdict(R"({"status":"error","output":"wrong file name"})").error_information, "wrong file name");
  EXPECT_EQ(parse_verdict(R"({"status":"ERROR"})").error_information,
            "the judge rejected the result without giving a reason");
}

TEST(AuditLoop, RejectsTwiceThenAccepts) {
  AuditLoop loop("Write hello.py");
  int judge_calls = 0;
  std::vector<std::string> verdicts = {kReject, kReject, kAccept};
  auto step = loop.on_claim("attempt 1");
  for (size_t i = 0;; ++i) {
    ASSERT_TRUE(step.ok()) << step.error().message;
    ASSERT_EQ(step->kind, AuditStep::Kind::ask_judge);
    ++judge_calls;
    auto next = loop.on_verdict(parse_verdict(verdicts[i]));
    ASSERT_TRUE(next.ok());
    if (next->kind == AuditStep::Kind::deliver) {
      step = next;
      break;
    }
    ASSERT_EQ(next->kind, AuditStep::Kind::retry);
    EXPECT_NE(next->feedback.find("missing print"), std::string::npos);
    step = loop.on_claim("attempt " + std::to_string(i + 2));
  }
  EXPECT_EQ(judge_calls, 3);
  EXPECT_EQ(loop.judge_calls(), 3);
  const AuditReport& r = step->report;
  EXPECT_EQ(r.status, VerdictStatus::success);
  EXPECT_EQ(r.output, "attempt 3");
  EXPECT_EQ(r.judge_calls, 3);
  ASSERT_TRUE(r.verdict);
  EXPECT_TRUE(r.verdict->success());  // the verdict travels with the result
}

TEST(AuditLoop, AlwaysRejectsGivesFourJudgeCallsThenError) {
  AuditLoop loop("Write hello.py");
  int judge_calls = 0, retries = 0;
  Result<AuditStep> step = loop.on_claim("attempt");
  while (true) {
    ASSERT_TRUE(step.ok());
    ASSERT_EQ(step->kind, AuditStep::Kind::ask_judge);
    EXPECT_EQ(step->claimed_result, "attempt");
    ++judge_calls;
    step = loop.on_verdict(parse_verdict(kReject));
    ASSERT_TRUE(step.ok());
    if (step->kind == AuditStep::Kind::deliver) break;
    ++retries;
    step = loop.on_claim("attempt");
  }
  EXPECT_EQ(judge_calls, 4);
  EXPECT_EQ(retries, 3);
  const AuditReport& r = step->report;
  EXPECT_EQ(r.status, VerdictStatus::error);
  EXPECT_EQ(r.output, "hello.py prints nothing");  // the last judge report
  EXPECT_EQ(r.error_information, "missing print");
  EXPECT_EQ(r.judge_calls, 4);
  json j = to_json(r);
  EXPECT_EQ(j["status"], "error");
  EXPECT_EQ(j["judge_verdict"]["error_information"], "missing print");
  EXPECT_TRUE(loop.delivered());
  EXPECT_FALSE(loop.on_claim("late").ok());
}

TEST(AuditLoop, MalformedVerdictCountsAsRejection) {
  AuditLoop loop("x", AuditLimits{0});
  ASSERT_TRUE(loop.on_claim("r").ok());
  auto s = loop.on_verdict(parse_verdict("I could not decide"));
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->kind, AuditStep::Kind::deliver);
  EXPECT_EQ(s->report.status, VerdictStatus::error);
  EXPECT_EQ(s->report.judge_calls, 1);
}

TEST(AuditLoop, ProducerErrorIsDeliveredUnauditedAndOutOfTurnCallsFail) {
  AuditLoop loop("x");
  EXPECT_EQ(loop.on_verdict(parse_verdict(kAccept)).error().code, "audit");
  auto s = loop.on_producer_error("dataset not found");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, AuditStep::Kind::deliver);
  EXPECT_EQ(s->report.status, VerdictStatus::error);
  EXPECT_EQ(s->report.error_information, "dataset not found");
  EXPECT_EQ(s->report.judge_calls, 0);
}

TEST(QualityScore, GoldenSequence) {
  QualityScore q;  // α = 0.8, Q0 = 0.5
  EXPECT_NEAR(q.update(true), 0.6, 1e-12);
  EXPECT_NEAR(q.update(false), 0.48, 1e-12);
  EXPECT_NEAR(q.update(true), 0.584, 1e-12);
  EXPECT_EQ(q.updates(), 3);
  EXPECT_FALSE(QualityScore::create(1.5, 0.5).ok());
  EXPECT_FALSE(QualityScore::create(0.8, -0.1).ok());
  auto custom = QualityScore::create(0.5, 1.0);
  ASSERT_TRUE(custom.ok());
  EXPECT_DOUBLE_EQ(custom->update(0.0), 0.5);
}

}  // namespace
}  // namespace kaisha::planning
