// The rules a resumed task's effects follow (resume_policy.hpp), one by one.
#include "runtime/driver/resume_policy.hpp"

#include <gtest/gtest.h>

#include "runtime/driver/outcome_codec.hpp"

namespace kaisha::driver {
namespace resume_policy_test {

msg::AgentSpec agent(const std::string& name) {
  msg::AgentSpec s;
  s.name = name;
  return s;
}

// Kept: 1 a budget read, 2 a hire of 詩人 the ledger made, 3 a model call.
std::shared_ptr<ReplayLog> log_of_three() {
  auto log = ReplayLog::from_records({encode(BudgetRead{1, json{{"left", 7}}}),
                                      encode(HireAnswered{2, true, false, "", json::object()}),
                                      encode(ModelAnswered{3, true})});
  EXPECT_TRUE(log.ok()) << log.error().message;
  auto shared = std::make_shared<ReplayLog>(std::move(log).value());
  shared->ledger_hire("詩人");
  return shared;
}

ResumePolicy policy(std::shared_ptr<ReplayLog> log) {
  return ResumePolicy(std::move(log), [](const std::string& tool) { return tool == "read_file"; });
}

TEST(ResumePolicy, StepsAndEventsAreSkippedOnlyWhileTheKeptOutcomesAreFed) {
  auto p = policy(log_of_three());
  EXPECT_TRUE(p.step(Journal{}, 0, true)->handled);
  EXPECT_TRUE(p.step(Report{}, 0, true)->handled);
  EXPECT_FALSE(p.step(Journal{}, 0, false)->handled);
  EXPECT_FALSE(p.step(Report{}, 0, false)->handled);
}

TEST(ResumePolicy, AnEffectWithAKeptOutcomeIsNotExecutedAgain) {
  auto p = policy(log_of_three());
  auto s = p.step(ReadBudget{1}, 1, true);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->handled);
  EXPECT_TRUE(s->note.is_null());
  EXPECT_FALSE(s->adopt || s->dismiss || s->answer_with_budget || s->deferred);
}

TEST(ResumePolicy, AKeptHireTheLedgerMadeIsAdoptedOnce) {
  auto p = policy(log_of_three());
  auto s = p.step(Hire{2, agent("詩人")}, 2, true);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->handled);
  EXPECT_TRUE(s->adopt);
  EXPECT_FALSE(s->answer_with_budget);  // its kept answer is fed
  // The ledger's hire is taken: a second hire of the name is a new one.
  auto again = p.step(Hire{9, agent("詩人")}, 9, false);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->handled);
}

TEST(ResumePolicy, AHireTheLedgerMadeWhoseAnswerWasLostIsAdoptedAndAnsweredWithTheBudget) {
  auto log = log_of_three();
  log->ledger_hire("Worker1");
  auto p = policy(log);
  auto s = p.step(Hire{4, agent("Worker1")}, 4, true);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->handled && s->adopt && s->answer_with_budget);
  EXPECT_TRUE(s->note.is_null());
}

TEST(ResumePolicy, AFireTheLedgerRefundedIsDismissedNotSentAgain) {
  auto log = log_of_three();
  log->ledger_fire("詩人");
  auto p = policy(log);
  ASSERT_TRUE(p.step(Hire{2, agent("詩人")}, 2, true).ok());
  auto quiet = p.step(Fire{"詩人", 0}, 0, true);  // a fire nobody waits for
  ASSERT_TRUE(quiet.ok());
  EXPECT_TRUE(quiet->handled && quiet->dismiss);
  EXPECT_FALSE(quiet->answer_with_budget);
}

TEST(ResumePolicy, AKeptOutcomeOfAnotherKindStopsTheResumeSayingWhy) {
  auto p = policy(log_of_three());
  Ask ask;
  ask.id = 3;
  ask.agent = "Poet";
  auto s = p.step(ask, 3, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("outcome of call 3 does not answer what the strategy asks for now (ask Poet)"),
            std::string::npos)
      << s.error().message;
}

TEST(ResumePolicy, AToolInFlightThatIsNotSafeToRepeatIsReportedInstead) {
  auto p = policy(log_of_three());
  RunTool t;
  t.id = 104;  // the runner's id; 4 in the task
  t.tool = "execute_shell";
  auto s = p.step(t, 4, true);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->handled);
  EXPECT_EQ(s->note, (json{{"not_repeated", "execute_shell"}, {"call", 4}}));
  ASSERT_TRUE(s->deferred);
  const auto& ran = std::get<ToolRan>(*s->deferred);
  EXPECT_EQ(ran.id, 104u);
  EXPECT_FALSE(ran.result.ok);
  EXPECT_NE(ran.result.message.find("not marked safe to repeat"), std::string::npos);
}

TEST(ResumePolicy, WhatWasNotAnsweredRunsOnceNotedAsRerun) {
  auto p = policy(log_of_three());
  RunTool safe;
  safe.id = 5;
  safe.tool = "read_file";
  auto tool = p.step(safe, 5, true);
  ASSERT_TRUE(tool.ok());
  EXPECT_FALSE(tool->handled);
  EXPECT_EQ(tool->note, (json{{"rerun", "tool read_file"}, {"call", 5}}));
  CallModel call;
  call.id = 6;
  call.purpose = "synthesis";
  auto model = p.step(call, 6, true);
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(model->handled);
  EXPECT_EQ(model->note, (json{{"rerun", "model call (synthesis)"}, {"call", 6}}));
  // After the replay, new effects are just executed.
  auto later = p.step(CallModel{7}, 7, false);
  ASSERT_TRUE(later.ok());
  EXPECT_FALSE(later->handled);
  EXPECT_TRUE(later->note.is_null());
}

}  // namespace resume_policy_test
}  // namespace kaisha::driver
