#include "runtime/eval/model_alone_driver.hpp"

#include <gtest/gtest.h>

namespace kaisha::eval {
namespace {

driver::ModelAnswered answer(driver::CallId id, bool ok, const std::string& text) {
  driver::ModelAnswered a;
  a.id = id;
  a.ok = ok;
  a.error = ok ? "" : "503 from the provider";
  a.response.message.content = text;
  return a;
}

TEST(ModelAloneDriver, AsksTheModelOnceWithTheTaskAloneAndAnswersWithItsReply) {
  ModelAloneDriver d("川はどこへ流れる? 🌊", "", 256);
  driver::Effects start = d.start();
  ASSERT_EQ(start.size(), 1u);
  const auto* call = std::get_if<driver::CallModel>(&start[0]);
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->request.messages.size(), 1u);
  EXPECT_EQ(call->request.messages[0].role, llm::Role::user);
  EXPECT_EQ(call->request.messages[0].content, "川はどこへ流れる? 🌊");
  EXPECT_EQ(call->request.max_tokens, 256);
  EXPECT_TRUE(call->request.tools.empty());

  EXPECT_TRUE(d.on(answer(7, true, "not this one")).empty());  // not its call
  driver::Effects end = d.on(answer(call->id, true, "海へ"));
  ASSERT_EQ(end.size(), 1u);
  const auto* finish = std::get_if<driver::Finish>(&end[0]);
  ASSERT_NE(finish, nullptr);
  EXPECT_TRUE(finish->ok);
  EXPECT_EQ(finish->text, "海へ");
  EXPECT_TRUE(d.on(answer(call->id, true, "again")).empty());  // finished once
  EXPECT_TRUE(d.cancel("late").empty());
}

TEST(ModelAloneDriver, ASystemPromptGoesFirstAndAFailedCallFailsTheTask) {
  ModelAloneDriver d("2+2?", "Answer with a number.", 0);
  driver::Effects start = d.start();
  const auto& call = std::get<driver::CallModel>(start.at(0));
  ASSERT_EQ(call.request.messages.size(), 2u);
  EXPECT_EQ(call.request.messages[0].role, llm::Role::system);
  EXPECT_FALSE(call.request.max_tokens.has_value());
  driver::Effects end = d.on(answer(call.id, false, ""));
  const auto& finish = std::get<driver::Finish>(end.at(0));
  EXPECT_FALSE(finish.ok);
  EXPECT_NE(finish.text.find("503 from the provider"), std::string::npos);
}

TEST(ModelAloneDriver, CancelBeforeTheAnswerFinishesWithTheReason) {
  ModelAloneDriver d("q", "", 0);
  d.start();
  driver::Effects end = d.cancel("no answer within 5 s (--timeout)");
  const auto& finish = std::get<driver::Finish>(end.at(0));
  EXPECT_FALSE(finish.ok);
  EXPECT_EQ(finish.text, "no answer within 5 s (--timeout)");
  EXPECT_TRUE(d.on(answer(1, true, "late")).empty());
}

}  // namespace
}  // namespace kaisha::eval
