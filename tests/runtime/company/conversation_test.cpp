#include "runtime/company/conversation.hpp"

#include <gtest/gtest.h>

namespace kaisha::company {
namespace {

llm::ChatResponse text(const std::string& t) {
  llm::ChatResponse r;
  r.message.role = llm::Role::assistant;
  r.message.content = t;
  return r;
}

llm::ChatResponse calls(std::vector<llm::ToolCall> c) {
  llm::ChatResponse r;
  r.message.role = llm::Role::assistant;
  r.message.tool_calls = std::move(c);
  return r;
}

TEST(Conversation, ToolLoopThenAnswer) {
  Conversation c("sys", {});
  c.add_user("task");
  llm::ChatRequest req = c.request({}, 0.2);
  ASSERT_EQ(req.messages.size(), 2u);
  EXPECT_EQ(req.messages[0].role, llm::Role::system);
  NextStep s = c.on_response(calls({{"c1", "GetBudget", "{}"}, {"c2", "GetAgents", ""}}));
  ASSERT_EQ(s.kind, NextStep::Kind::run_tools);
  ASSERT_EQ(s.calls.size(), 2u);
  c.add_tool_result(s.calls[0], json{{"status", "success"}});
  c.add_tool_result(s.calls[1], json{{"status", "success"}});
  EXPECT_EQ(c.messages().back().role, llm::Role::tool);
  EXPECT_EQ(c.messages().back().tool_call_id, "c2");
  s = c.on_response(text("final"));
  EXPECT_EQ(s.kind, NextStep::Kind::answer);
  EXPECT_EQ(s.text, "final");
  EXPECT_EQ(c.messages().size(), 6u);
}

TEST(Conversation, MalformedArgumentsAreBounded) {
  Conversation c("sys", {30, 2});
  c.add_user("task");
  auto bad = calls({{"c", "AskAgent", R"({"agent_name": "X",)"}});
  EXPECT_EQ(c.on_response(bad).kind, NextStep::Kind::run_tools);  // 1st: back to the model
  EXPECT_EQ(c.on_response(bad).kind, NextStep::Kind::run_tools);  // 2nd
  NextStep s = c.on_response(bad);                                // 3rd > limit 2
  EXPECT_EQ(s.kind, NextStep::Kind::fail);
  EXPECT_NE(s.text.find("malformed"), std::string::npos);
}

TEST(Conversation, TurnLimit) {
  Conversation c("sys", {3, 3});
  c.add_user("task");
  auto ok = calls({{"c", "GetBudget", "{}"}});
  EXPECT_EQ(c.on_response(ok).kind, NextStep::Kind::run_tools);
  EXPECT_EQ(c.on_response(ok).kind, NextStep::Kind::run_tools);
  EXPECT_EQ(c.on_response(ok).kind, NextStep::Kind::fail);
  c.add_user("next");  // a new user turn starts fresh
  EXPECT_EQ(c.on_response(ok).kind, NextStep::Kind::run_tools);
}

TEST(Conversation, EmptyAnswerFails) {
  Conversation c("sys", {});
  c.add_user("task");
  EXPECT_EQ(c.on_response(text("  ")).kind, NextStep::Kind::fail);
}

}  // namespace
}  // namespace kaisha::company
