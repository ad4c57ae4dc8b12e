#include "runtime/hiva/replies/reward_reply.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace reward_reply_test {

TEST(Reward, PositiveAndNeutralAreOneCriticalIsZero) {
  struct Case {
    const char* reply;
    RewardClass label;
    int value;
  } cases[] = {
      {"POSITIVE", RewardClass::positive, 1},
      {"neutral", RewardClass::neutral, 1},
      {"CRITICAL", RewardClass::critical, 0},
      {"**Classification:** Critical\n\nThe agent failed to handle the edge case.", RewardClass::critical, 0},
      {"Label: NEGATIVE", RewardClass::critical, 0},
      {"The feedback is mostly positive about the extraction.", RewardClass::positive, 1},
      {"The feedback is not critical of this agent: neutral.", RewardClass::neutral, 1},
      {"分類: CRITICAL ❌", RewardClass::critical, 0},
      {"Sentiment: Positive\r\nThe critical part was handled by another agent.", RewardClass::positive, 1},
  };
  for (const Case& c : cases) {
    Parsed<Reward> p = parse_reward(c.reply);
    ASSERT_TRUE(p.value.label.has_value()) << c.reply;
    EXPECT_EQ(*p.value.label, c.label) << c.reply;
    EXPECT_EQ(p.value.value, c.value) << c.reply;
    EXPECT_EQ(p.problem, std::nullopt) << c.reply << "\n" << *p.problem;
  }
}

// App. D.4's two examples, as a classifier would answer them.
TEST(Reward, TheAppendixExamples) {
  EXPECT_EQ(parse_reward("POSITIVE (the financial data was extracted correctly)").value.value, 1);
  EXPECT_EQ(parse_reward("CRITICAL: the agent failed to handle the edge case, causing a runtime error").value.value, 0);
}

TEST(Reward, ABareDigitIsTheReward) {
  for (const char* one : {"1", " 1.\n", "**1**", "Reward: 1"}) {
    Parsed<Reward> p = parse_reward(one);
    EXPECT_EQ(p.value.value, 1) << one;
    EXPECT_EQ(p.value.label, std::nullopt) << one;
    EXPECT_FALSE(p.defaulted) << one;
  }
  EXPECT_EQ(parse_reward("0").value.value, 0);
  EXPECT_EQ(parse_reward("r = 0").value.value, 0);
}

TEST(Reward, UnreadableOrAmbiguousIsOneWithAProblem) {
  struct Case {
    const char* reply;
    const char* problem;
  } cases[] = {
      {"", "the reply is empty; the reward is 1"},
      {"The agent did fine.", "no POSITIVE, NEUTRAL or CRITICAL; the reward is 1"},
      {"POSITIVE\nCRITICAL", "ambiguous: POSITIVE at line 1, CRITICAL at line 2; the reward is 1"},
      {"2", "no POSITIVE, NEUTRAL or CRITICAL"},
  };
  for (const Case& c : cases) {
    Parsed<Reward> p = parse_reward(c.reply);
    EXPECT_EQ(p.value.value, 1) << c.reply;
    EXPECT_TRUE(p.defaulted) << c.reply;
    ASSERT_TRUE(p.problem.has_value()) << c.reply;
    EXPECT_NE(p.problem->find(c.problem), std::string::npos) << *p.problem;
  }
}

}  // namespace reward_reply_test
}  // namespace kaisha::hiva
