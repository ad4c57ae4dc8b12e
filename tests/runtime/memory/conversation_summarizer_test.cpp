// ConversationSummarizer: effGen's short-term tier on an agent's conversation.
#include "runtime/memory/conversation_summarizer.hpp"

#include <gtest/gtest.h>

namespace kaisha::memory {
namespace {

config::ShortTermConfig small(int64_t context_tokens = 400) {
  config::ShortTermConfig c;
  c.context_tokens = context_tokens;  // threshold 0.85
  c.keep_recent = 10;
  return c;
}

ConversationSummarizer make(config::ShortTermConfig c = small()) {
  auto s = ConversationSummarizer::create(c);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return std::move(s).value();
}

std::string padding(int tokens) { return std::string(static_cast<size_t>(tokens) * 4, 'x'); }

// One model answer calling a tool, then its result: two messages.
void tool_round(company::Conversation& c, int i, int tokens) {
  llm::ChatResponse r;
  r.message.role = llm::Role::assistant;
  r.message.content = "round " + std::to_string(i) + " " + padding(tokens);
  r.message.tool_calls = {{"call-" + std::to_string(i), "GetBudget", "{}"}};
  c.on_response(r);
  c.add_tool_result(r.message.tool_calls[0], json{{"status", "success"}, {"round", i}});
}

// ~4 characters per token, tool calls and results written out as the
// summarising model will read them.
TEST(ConversationSummarizer, TokensCountToolCallsAndResults) {
  ConversationSummarizer s = make();
  company::Conversation c("You are the CEO.", {});  // 16 chars: 4
  c.add_user("hello");                              // 5: 2
  llm::ChatResponse r;
  r.message.tool_calls = {{"c1", "GetBudget", "{}"}};  // "\n[calls GetBudget with {}]": 26 -> 7
  c.on_response(r);
  c.add_tool_result(r.message.tool_calls[0],
                    json{{"round", 0}, {"status", "success"}});  // "[GetBudget answered] " + 30: 51 -> 13
  EXPECT_EQ(s.tokens(c), 4 + 2 + 7 + 13);
}

TEST(ConversationSummarizer, BelowTheThresholdNothingIsPlanned) {
  ConversationSummarizer s = make();
  company::Conversation c("You are the CEO.", {});
  c.add_user("hello");
  for (int i = 0; i < 3; ++i) tool_round(c, i, 10);
  EXPECT_LT(s.tokens(c), 340);
  EXPECT_FALSE(s.plan(c).has_value());
}

// effgen.md §23 item 35: past 0.85 of the budget the system prompt and the
// last 10 messages stay, the rest becomes one summary message.
TEST(ConversationSummarizer, PastTheThresholdKeepsTheSystemPromptAndTheLastTen) {
  ConversationSummarizer s = make();
  company::Conversation c("You are the CEO.", {});
  c.add_user("the task " + padding(5));
  for (int i = 0; i < 10; ++i) tool_round(c, i, 20);
  ASSERT_EQ(c.messages().size(), 22u);
  ASSERT_GE(s.tokens(c), 340);
  auto plan = s.plan(c);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->first, 1u);
  EXPECT_EQ(plan->last, 12u);  // 22 - 10
  EXPECT_NE(plan->prompt.find("Summarize the conversation"), std::string::npos);
  EXPECT_NE(plan->prompt.find("user: the task"), std::string::npos);
  EXPECT_NE(plan->prompt.find("[calls GetBudget with {}]"), std::string::npos);
  EXPECT_EQ(plan->prompt.find("round 5 "), std::string::npos);  // kept, not summarised
  EXPECT_EQ(plan->prompt.find("You are the CEO."), std::string::npos);

  const std::string kept_first = c.messages()[12].content;
  auto ev = s.apply(c, *plan, "The user gave a task; the budget was checked five times.");
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev->messages_replaced, 11u);
  EXPECT_GT(ev->original_tokens, ev->summarized_tokens);
  EXPECT_GT(ev->reduction_ratio, 0.5);
  ASSERT_EQ(c.messages().size(), 12u);  // system prompt + summary + 10
  EXPECT_EQ(c.messages()[0].content, "You are the CEO.");
  EXPECT_EQ(c.messages()[1].role, llm::Role::system);
  EXPECT_NE(c.messages()[1].content.find("the budget was checked five times"), std::string::npos);
  EXPECT_EQ(c.messages()[2].content, kept_first);
  EXPECT_LT(s.tokens(c), plan->conversation_tokens);
  EXPECT_FALSE(s.plan(c).has_value());  // back below the threshold
}

// The cut never falls between a tool call and its results: with the last
// ten starting at a tool result, the call that asked for it is kept too.
TEST(ConversationSummarizer, NeverSeparatesAToolCallFromItsResult) {
  ConversationSummarizer s = make();
  company::Conversation c("You are the CEO.", {});
  c.add_user("the task");
  for (int i = 0; i < 10; ++i) tool_round(c, i, 20);
  llm::ChatResponse last;
  last.message.content = "thinking " + padding(20);
  c.on_response(last);  // 23 messages: the last ten start at a tool result
  auto plan = s.plan(c);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->last, 12u);  // not 13: message 12 calls the tool message 13 answers
  ASSERT_TRUE(s.apply(c, *plan, "summary").ok());
  ASSERT_EQ(c.messages().size(), 13u);  // 11 kept
  EXPECT_EQ(c.messages()[2].role, llm::Role::assistant);
  EXPECT_FALSE(c.messages()[2].tool_calls.empty());
  EXPECT_EQ(c.messages()[3].role, llm::Role::tool);
}

TEST(ConversationSummarizer, AnEarlierSummaryIsFoldedIntoTheNextOne) {
  ConversationSummarizer s = make();
  company::Conversation c("You are the CEO.", {});
  c.add_user("the task");
  for (int i = 0; i < 10; ++i) tool_round(c, i, 20);
  ASSERT_TRUE(s.apply(c, *s.plan(c), "FIRST SUMMARY").ok());
  for (int i = 10; i < 16; ++i) tool_round(c, i, 20);
  auto plan = s.plan(c);
  ASSERT_TRUE(plan.has_value());
  EXPECT_NE(plan->prompt.find("FIRST SUMMARY"), std::string::npos);
  ASSERT_TRUE(s.apply(c, *plan, "SECOND SUMMARY").ok());
  ASSERT_EQ(c.messages().size(), 12u);
  int summaries = 0;
  for (const auto& m : c.messages())
    if (m.role == llm::Role::system && m.content.find("SUMMARY") != std::string::npos) ++summaries;
  EXPECT_EQ(summaries, 1);
}

TEST(ConversationSummarizer, AConversationThatChangedMeanwhileIsNotTouched) {
  ConversationSummarizer s = make();
  company::Conversation c("You are the CEO.", {});
  c.add_user("the task");
  for (int i = 0; i < 10; ++i) tool_round(c, i, 20);
  auto plan = s.plan(c);
  ASSERT_TRUE(plan.has_value());
  c.add_user("one more");
  auto ev = s.apply(c, *plan, "summary");
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(ev.error().message.find("changed while it was being summarised"), std::string::npos);
  EXPECT_EQ(c.messages().size(), 23u);
}

TEST(ConversationSummarizer, AMissingPromptFileIsNamed) {
  auto s = ConversationSummarizer::create(small(), "/nonexistent-prompts");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent-prompts/memory/summarize_conversation.md"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace kaisha::memory
