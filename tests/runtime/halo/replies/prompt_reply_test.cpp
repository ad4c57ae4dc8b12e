#include "runtime/halo/replies/prompt_reply.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

constexpr PromptReply kAllPromptReplies[] = {PromptReply::generated_template, PromptReply::optimized_template,
                                             PromptReply::final_prompt,       PromptReply::agent_template,
                                             PromptReply::agent_optimized,    PromptReply::agent_final};

TEST(PromptReply, KeysAreHalos) {
  EXPECT_EQ(reply_key(PromptReply::generated_template), "Generated Prompt Template");
  EXPECT_EQ(reply_key(PromptReply::optimized_template), "Optimized Prompt Template");
  EXPECT_EQ(reply_key(PromptReply::final_prompt), "Final Prompt");
  EXPECT_EQ(reply_key(PromptReply::agent_template), "Prompt Template");
  EXPECT_EQ(reply_key(PromptReply::agent_optimized), "Optimized Prompt Template");
  EXPECT_EQ(reply_key(PromptReply::agent_final), "Final Prompt");
}

TEST(PromptReply, ReadsThePromptUnderItsKey) {
  for (PromptReply kind : kAllPromptReplies) {
    std::string key(reply_key(kind));
    std::string reply = R"({"Task Type": "t", "Agent Role": "r", ")" + key + R"(": "  Solve {x} step by step.\n"})";
    Parsed<std::string> p = parse_prompt_reply(kind, reply, "fallback");
    EXPECT_EQ(p.value, "Solve {x} step by step.") << key;
    EXPECT_FALSE(p.defaulted);
    EXPECT_EQ(p.problem, std::nullopt);
  }
}

// Each builder reads its own key: the template builder's reply does not
// count as the optimizer's.
TEST(PromptReply, AnotherStagesKeyIsMissing) {
  Parsed<std::string> p =
      parse_prompt_reply(PromptReply::agent_final, R"({"Prompt Template": "You are a tester."})", "fallback");
  EXPECT_EQ(p.value, "fallback");
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem,
            "agent final prompt reply: key \"Final Prompt\" is missing (the object has \"Prompt Template\")");
}

TEST(PromptReply, BlankOrWrongTypeIsTheFallback) {
  Parsed<std::string> blank = parse_prompt_reply(PromptReply::final_prompt, R"({"Final Prompt": " \n "})", "Q");
  EXPECT_EQ(blank.value, "Q");
  EXPECT_EQ(*blank.problem, "final prompt reply: key \"Final Prompt\" is blank");
  Parsed<std::string> object =
      parse_prompt_reply(PromptReply::optimized_template, R"({"Optimized Prompt Template": {"a": 1}})", "Q");
  EXPECT_EQ(object.value, "Q");
  EXPECT_EQ(*object.problem,
            "prompt optimizer reply: key \"Optimized Prompt Template\" is an object, expected a string");
}

TEST(PromptReply, MalformedRepliesAreTheFallback) {
  for (PromptReply kind : kAllPromptReplies) {
    for (const testing::Malformed& m : testing::malformed_replies(std::string(reply_key(kind)))) {
      Parsed<std::string> p = parse_prompt_reply(kind, m.reply, "the fallback");
      EXPECT_EQ(p.value, "the fallback") << m.name;
      EXPECT_TRUE(p.defaulted) << m.name;
      ASSERT_TRUE(p.problem.has_value()) << m.name;
      EXPECT_NE(p.problem->find(m.problem), std::string::npos) << m.name << ": " << *p.problem;
    }
  }
}

}  // namespace
}  // namespace kaisha::halo
