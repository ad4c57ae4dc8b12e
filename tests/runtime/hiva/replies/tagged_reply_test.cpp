#include "runtime/hiva/replies/tagged_reply.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace tagged_reply_test {

// Fig. 7's example.
TEST(Feedback, ReadsTheFigureExample) {
  Parsed<std::string> p = parse_feedback("<FEEDBACK>Use recent sources for Austin's population.</FEEDBACK>");
  EXPECT_EQ(p.value, "Use recent sources for Austin's population.");
  EXPECT_EQ(p.problem, std::nullopt);
  EXPECT_FALSE(p.defaulted);
}

TEST(Feedback, ToleratesCaseProseMarkdownAndCrlf) {
  Parsed<std::string> p = parse_feedback(
      "Here is my analysis.\r\n\r\n**< feedback >**\r\nThe answer misses units.\r\nCite the "
      "source.\r\n</Feedback>\r\nThanks");
  EXPECT_EQ(p.value, "The answer misses units.\nCite the source.");
  EXPECT_EQ(p.problem, std::nullopt);
  Parsed<std::string> fenced = parse_feedback("```xml\n<FEEDBACK>\n```\nCheck the sign.\n```\n</FEEDBACK>\n```");
  EXPECT_EQ(fenced.value, "Check the sign.");
  Parsed<std::string> inner = parse_feedback("<FEEDBACK>\n```\nCheck the sign.\n```\n</FEEDBACK>");
  EXPECT_EQ(inner.value, "Check the sign.");
}

TEST(Feedback, JapaneseAndEmojiPassThrough) {
  Parsed<std::string> p = parse_feedback("評価：<FEEDBACK>人口の出典を確認してください 🙏</FEEDBACK>");
  EXPECT_EQ(p.value, "人口の出典を確認してください 🙏");
  EXPECT_EQ(p.problem, std::nullopt);
}

TEST(Feedback, TwoBlocksAreJoined) {
  Parsed<std::string> p = parse_feedback("<FEEDBACK>First.</FEEDBACK> and <FEEDBACK>Second.</FEEDBACK>");
  EXPECT_EQ(p.value, "First.\n\nSecond.");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "feedback reply: 2 feedback blocks, joined");
}

TEST(Feedback, ATruncatedTagKeepsTheTextAfterIt) {
  Parsed<std::string> p = parse_feedback("<FEEDBACK>Use recent sources for Aus");
  EXPECT_EQ(p.value, "Use recent sources for Aus");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "feedback reply: the <FEEDBACK> tag is not closed (the reply may be cut off)");
}

TEST(Feedback, NoTagIsTheWholeReplyWithAProblem) {
  Parsed<std::string> p = parse_feedback("  The answer is off by one.  ");
  EXPECT_EQ(p.value, "The answer is off by one.");
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem, "feedback reply: no <FEEDBACK> tag; the whole reply is the feedback");
  Parsed<std::string> empty_tag = parse_feedback("Note: check units. <FEEDBACK> </FEEDBACK>");
  EXPECT_EQ(empty_tag.value, "Note: check units.");
  EXPECT_TRUE(empty_tag.defaulted);
  EXPECT_NE(empty_tag.problem->find("the <FEEDBACK> tag is empty"), std::string::npos) << *empty_tag.problem;
  Parsed<std::string> empty = parse_feedback("");
  EXPECT_EQ(empty.value, "");
  EXPECT_EQ(*empty.problem, "feedback reply: the reply is empty");
}

TEST(Feedback, InvalidUtf8IsReplacedAndNamed) {
  Parsed<std::string> p = parse_feedback("<FEEDBACK>caf\xE9 au lait</FEEDBACK>");
  EXPECT_EQ(p.value, "caf\xEF\xBF\xBD au lait");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "feedback reply: invalid UTF-8 at byte 14 (0xE9), replaced by U+FFFD");
}

// Fig. 9's example and Fig. 11's evolved prompt.
TEST(ImprovedVariable, ReadsTheFigureExamples) {
  Parsed<std::optional<std::string>> p = parse_improved_variable(
      "<IMPROVED_VARIABLE>You are a reasoning agent specializing in extracting entities (e.g., "
      "locations).</IMPROVED_VARIABLE>");
  ASSERT_TRUE(p.value.has_value());
  EXPECT_EQ(*p.value, "You are a reasoning agent specializing in extracting entities (e.g., locations).");
  EXPECT_EQ(p.problem, std::nullopt);
  Parsed<std::optional<std::string>> evolved = parse_improved_variable(
      "Evolved Prompt: <IMPROVED_VARIABLE>You are a reasoning agent. Decompose task: {task_description} into "
      "steps, cross-referencing documents for accuracy. Output in markdown.</IMPROVED_VARIABLE>");
  EXPECT_EQ(*evolved.value,
            "You are a reasoning agent. Decompose task: {task_description} into steps, cross-referencing documents "
            "for accuracy. Output in markdown.");
}

TEST(ImprovedVariable, TheLastOfTwoBlocksIsUsed) {
  Parsed<std::optional<std::string>> p = parse_improved_variable(
      "Format: <improved_variable>the "
      "prompt</improved_variable>\nAnswer:\n<IMPROVED_VARIABLE>\nあなたは翻訳エージェントです。✨\n</"
      "IMPROVED_VARIABLE>");
  EXPECT_EQ(*p.value, "あなたは翻訳エージェントです。✨");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "prompt update reply: 2 <IMPROVED_VARIABLE> blocks; the last is used");
}

TEST(ImprovedVariable, BadRepliesLeaveThePromptUnchanged) {
  struct Case {
    const char* reply;
    const char* problem;
  } cases[] = {
      {"You are a better agent.", "no <IMPROVED_VARIABLE> tag; the prompt is left unchanged"},
      {"<IMPROVED_VARIABLE>You are a reasoning agent that", "not closed (the reply may be cut off)"},
      {"<IMPROVED_VARIABLE>  \n </IMPROVED_VARIABLE>", "the rewrite is blank; the prompt is left unchanged"},
      {"", "the reply is empty; the prompt is left unchanged"},
      {"You are a better agent.</IMPROVED_VARIABLE>", "no <IMPROVED_VARIABLE> tag"},
  };
  for (const Case& c : cases) {
    Parsed<std::optional<std::string>> p = parse_improved_variable(c.reply);
    EXPECT_EQ(p.value, std::nullopt) << c.reply;
    EXPECT_TRUE(p.defaulted) << c.reply;
    ASSERT_TRUE(p.problem.has_value()) << c.reply;
    EXPECT_NE(p.problem->find(c.problem), std::string::npos) << *p.problem;
  }
}

TEST(NewAgentPrompt, ReadsTheTagOrFallsBack) {
  Parsed<std::string> p =
      parse_new_agent_prompt("<SYSTEM_PROMPT>You extract sentiment from news.</SYSTEM_PROMPT>", "Sentiment extractor");
  EXPECT_EQ(p.value, "You extract sentiment from news.");
  EXPECT_FALSE(p.defaulted);
  Parsed<std::string> untagged = parse_new_agent_prompt("You extract sentiment.", "Sentiment extractor");
  EXPECT_EQ(untagged.value, "You extract sentiment.");
  EXPECT_TRUE(untagged.defaulted);
  EXPECT_NE(untagged.problem->find("no <SYSTEM_PROMPT> block"), std::string::npos);
  Parsed<std::string> cut = parse_new_agent_prompt("<SYSTEM_PROMPT>You extract sent", "Sentiment extractor");
  EXPECT_EQ(cut.value, "You extract sent");
  Parsed<std::string> empty = parse_new_agent_prompt(" ", "Sentiment extractor");
  EXPECT_EQ(empty.value, "Sentiment extractor");
  EXPECT_NE(empty.problem->find("the agent's description is used"), std::string::npos);
}

}  // namespace tagged_reply_test
}  // namespace kaisha::hiva
