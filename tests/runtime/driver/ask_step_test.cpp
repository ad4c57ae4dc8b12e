#include "runtime/driver/ask_step.hpp"

#include <gtest/gtest.h>

#include "runtime/driver/replay_log.hpp"

namespace kaisha::driver {
namespace {

TEST(AskStep, AModelAnswerReadsBackWithItsCallsUsageAndWhoPaid) {
  AskStep s;
  s.response.message.content = "計算します 🧮";
  s.response.message.tool_calls.push_back({"c1", "Calculator", R"({"expression":"1+2"})"});
  s.response.usage = {120, 7, false};
  s.paid_by_employee = true;
  s.expense = 0.0125;
  auto back = decode_ask_step(encode(s));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kind, AskStep::Kind::model);
  EXPECT_EQ(back->response.message.content, "計算します 🧮");
  ASSERT_EQ(back->response.message.tool_calls.size(), 1u);
  EXPECT_EQ(back->response.message.tool_calls[0].id, "c1");
  EXPECT_EQ(back->response.message.tool_calls[0].arguments, R"({"expression":"1+2"})");
  EXPECT_EQ(back->response.usage.input_tokens, 120);
  EXPECT_TRUE(back->paid_by_employee);
  EXPECT_DOUBLE_EQ(back->expense, 0.0125);
  EXPECT_EQ(encode(*back), encode(s));
}

TEST(AskStep, AToolResultReadsBackAsTheModelWasGivenIt) {
  AskStep s;
  s.kind = AskStep::Kind::tool;
  s.call_id = "c1";
  s.tool = "Calculator";
  s.result = json{{"status", "success"}, {"message", "3"}};
  auto back = decode_ask_step(encode(s));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kind, AskStep::Kind::tool);
  EXPECT_EQ(back->call_id, "c1");
  EXPECT_EQ(back->tool, "Calculator");
  EXPECT_EQ(back->result, s.result);
}

TEST(AskStep, TextItCannotReadIsRefusedWithWhy) {
  for (const std::string bad : {"", "[]", R"({"kind":"dream","expense":0})", R"({"kind":"tool","call_id":1})",
                                R"({"kind":"model","response":"x","paid_by_employee":true,"expense":0})"}) {
    auto s = decode_ask_step(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_FALSE(s.error().message.empty());
  }
}

TEST(ReplayLog, AnAsksKeptStepsAreGivenBackAndABadOneNamesItsPlace) {
  AskStep tool;
  tool.kind = AskStep::Kind::tool;
  tool.call_id = "c1";
  tool.tool = "t";
  const std::vector<std::string> steps{encode(AskStep{}), encode(tool)};
  auto log = ReplayLog::from_records({}, {{4, steps}});
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->ask_steps(4), steps);
  EXPECT_TRUE(log->ask_steps(5).empty());

  auto bad = ReplayLog::from_records({}, {{4, {steps[0], "{"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("step 2 of ask 4"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace kaisha::driver
