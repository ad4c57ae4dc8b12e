#include "runtime/memory/short_term_memory.hpp"

#include <gtest/gtest.h>

namespace kaisha::memory {
namespace {

ShortTermConfig small() {
  ShortTermConfig c;
  c.max_tokens = 400;  // threshold 0.85 -> 340 tokens
  c.max_messages = 100;
  c.keep_recent = 10;
  return c;
}

std::string text_of_tokens(int tokens, char fill = 'x') { return std::string(static_cast<size_t>(tokens) * 4, fill); }

// effgen.md §23 item 35: filling past the threshold leaves one summary plus
// the last 10 messages verbatim.
TEST(ShortTermMemory, PastTheThresholdOneSummaryAndTheLastTenRemain) {
  ShortTermMemory stm(small());
  stm.add(StmRole::system, "You are helpful.");
  for (int i = 0; i < 30; ++i) {
    stm.add(i % 2 ? StmRole::assistant : StmRole::user, "m" + std::to_string(i) + " " + text_of_tokens(11));
    if (stm.total_tokens() < 340) EXPECT_FALSE(stm.needs_summary()) << i;
  }
  ASSERT_TRUE(stm.needs_summary());
  const std::string prompt = stm.summary_prompt();
  EXPECT_EQ(prompt.rfind("Summarize this conversation: ", 0), 0u);
  EXPECT_NE(prompt.find("user: m0 "), std::string::npos);
  EXPECT_EQ(prompt.find("m20 "), std::string::npos);              // the last ten are kept
  EXPECT_EQ(prompt.find("You are helpful."), std::string::npos);  // SYSTEM is kept

  SummaryEvent ev = stm.apply_summary("they talked");
  EXPECT_EQ(ev.messages_replaced, 20u);
  EXPECT_GT(ev.original_tokens, ev.summarized_tokens);
  EXPECT_NEAR(ev.reduction_ratio, 1.0 - double(ev.summarized_tokens) / ev.original_tokens, 1e-12);

  const auto& m = stm.messages();
  ASSERT_EQ(m.size(), 12u);  // system + summary + 10
  EXPECT_EQ(m[0].content, "You are helpful.");
  EXPECT_TRUE(m[1].summary);
  EXPECT_EQ(m[1].content, "they talked");
  for (int i = 0; i < 10; ++i) EXPECT_EQ(m[2 + i].content.substr(0, 4), "m" + std::to_string(20 + i) + " ");
  EXPECT_FALSE(stm.needs_summary());
}

TEST(ShortTermMemory, ContextIsTheRecentMessagesPlusEverySystemMessage) {
  ShortTermMemory stm(small());
  stm.add(StmRole::system, "rules");
  for (int i = 0; i < 5; ++i) stm.add(StmRole::user, "u" + std::to_string(i));
  auto ctx = stm.context(2);
  ASSERT_EQ(ctx.size(), 3u);
  EXPECT_EQ(ctx[0].content, "rules");
  EXPECT_EQ(ctx[1].content, "u3");
  EXPECT_EQ(ctx[2].content, "u4");
}

TEST(ShortTermMemory, BeyondMaxMessagesTheOldestNonSystemMessageGoes) {
  ShortTermConfig c = small();
  c.max_messages = 3;
  ShortTermMemory stm(c);
  stm.add(StmRole::system, "rules");
  stm.add(StmRole::user, "a");
  stm.add(StmRole::user, "b");
  stm.add(StmRole::user, "c");
  ASSERT_EQ(stm.messages().size(), 3u);
  EXPECT_EQ(stm.messages()[0].content, "rules");
  EXPECT_EQ(stm.messages()[1].content, "b");
}

TEST(ShortTermMemory, FewMessagesNeverNeedASummaryEvenWhenLarge) {
  ShortTermMemory stm(small());
  for (int i = 0; i < 10; ++i) stm.add(StmRole::user, text_of_tokens(100));
  EXPECT_FALSE(stm.needs_summary());  // all of them are the recent ten
}

}  // namespace
// A tool call and its results are never split: the cut moves back so the
// call is kept with them.
TEST(ShortTermMemory, ACutNeverSeparatesAToolCallFromItsResults) {
  ShortTermConfig c = small();
  c.keep_recent = 3;
  ShortTermMemory stm(c);
  stm.add(StmRole::system, "sys");
  for (int i = 0; i < 6; ++i) stm.add(StmRole::user, "u" + std::to_string(i) + " " + text_of_tokens(50));
  StmMessage call;
  call.role = StmRole::assistant;
  call.content = "calls two tools";
  call.keep_with_next = true;
  stm.add(call);
  StmMessage first_result;
  first_result.role = StmRole::tool;
  first_result.content = "result one " + text_of_tokens(30);
  first_result.keep_with_next = true;  // another result of the same call follows
  stm.add(first_result);
  stm.add(StmRole::tool, "result two " + text_of_tokens(30));
  stm.add(StmRole::assistant, "done " + text_of_tokens(30));
  // The last 3 would start at "result one": the call and both results stay.
  std::vector<size_t> idx = stm.summarisable();
  ASSERT_EQ(idx, (std::vector<size_t>{1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(stm.needs_summary());
  stm.apply_summary("earlier questions");
  ASSERT_EQ(stm.messages().size(), 6u);  // system, summary, call, two results, answer
  EXPECT_EQ(stm.messages()[2].content, "calls two tools");
}

}  // namespace kaisha::memory
