// ReplyCallOrder: calls naming the same agent run in reply order, roster and
// ledger reads wait for earlier agent calls, everything else starts at once.
#include "runtime/company/reply_call_order.hpp"

#include <gtest/gtest.h>

namespace kaisha::company {
namespace {

llm::ToolCall call(const std::string& name, const json& args = json::object()) {
  return llm::ToolCall{"id", name, args.dump()};
}
llm::ToolCall agent_call(const std::string& name, const std::string& agent) {
  return call(name, {{"agent_name", agent}});
}
using V = std::vector<size_t>;

TEST(ReplyCallOrder, CreateThenAskTheSameAgentRunInReplyOrder) {
  ReplyCallOrder o({agent_call("AgentCreator", "X"), agent_call("AskAgent", "X")});
  EXPECT_EQ(o.initial(), V{0});
  EXPECT_EQ(o.finished(0), V{1});
  EXPECT_EQ(o.finished(1), V{});
}

TEST(ReplyCallOrder, AskThenCreateAlsoKeepReplyOrder) {
  ReplyCallOrder o({agent_call("AskAgent", "X"), agent_call("AgentCreator", "X")});
  EXPECT_EQ(o.initial(), V{0});
  EXPECT_EQ(o.finished(0), V{1});
}

TEST(ReplyCallOrder, DifferentAgentsAndOtherToolsStartTogether) {
  ReplyCallOrder o({agent_call("AskAgent", "A"), agent_call("AskAgent", "B"), call("Calculator", {{"expression", "1"}}),
                    agent_call("AgentCreator", "C")});
  EXPECT_EQ(o.initial(), (V{0, 1, 2, 3}));
}

TEST(ReplyCallOrder, ChainsPerAgentInterleave) {
  // create A, create B, ask A, ask B, fire A
  ReplyCallOrder o({agent_call("AgentCreator", "A"), agent_call("AgentCreator", "B"), agent_call("AskAgent", "A"),
                    agent_call("AskAgent", "B"), agent_call("FireAgent", "A")});
  EXPECT_EQ(o.initial(), (V{0, 1}));
  EXPECT_EQ(o.finished(1), V{3});
  EXPECT_EQ(o.finished(0), V{2});
  EXPECT_EQ(o.finished(3), V{});
  EXPECT_EQ(o.finished(2), V{4});
  EXPECT_EQ(o.waits_for(4), (V{0, 2}));
}

TEST(ReplyCallOrder, AsksOfOneAgentRunTogetherBetweenItsHireAndFire) {
  ReplyCallOrder o({agent_call("AgentCreator", "X"), agent_call("AskAgent", "X"), agent_call("AskAgent", "X"),
                    agent_call("AskAgent", "X"), agent_call("FireAgent", "X"), agent_call("AskAgent", "X")});
  EXPECT_EQ(o.initial(), V{0});
  EXPECT_EQ(o.finished(0), (V{1, 2, 3}));
  EXPECT_EQ(o.finished(2), V{});
  EXPECT_EQ(o.finished(1), V{});
  EXPECT_EQ(o.finished(3), V{4});
  EXPECT_EQ(o.finished(4), V{5});
}

TEST(ReplyCallOrder, AsksWithoutAHireInTheReplyStartAtOnce) {
  std::vector<llm::ToolCall> calls(1000, agent_call("AskAgent", "Worker"));
  ReplyCallOrder o(calls);
  EXPECT_EQ(o.initial().size(), 1000u);
}

TEST(ReplyCallOrder, RosterReadsWaitForEveryEarlierAgentCallOnly) {
  ReplyCallOrder o(
      {agent_call("AgentCreator", "A"), call("GetBudget"), agent_call("AgentCreator", "B"), call("GetAgents")});
  EXPECT_EQ(o.initial(), (V{0, 2}));
  EXPECT_EQ(o.waits_for(1), V{0});
  EXPECT_EQ(o.waits_for(3), (V{0, 2}));
  EXPECT_EQ(o.finished(2), V{});
  EXPECT_EQ(o.finished(0), (V{1, 3}));
}

TEST(ReplyCallOrder, UnreadableArgumentsWaitForNothing) {
  std::vector<llm::ToolCall> calls = {
      agent_call("AgentCreator", "A"), {"id", "AskAgent", "{not json"}, call("AskAgent", {{"agent_name", 7}})};
  ReplyCallOrder o(calls);
  EXPECT_EQ(o.initial(), (V{0, 1, 2}));
}

TEST(ReplyCallOrder, EmptyReply) {
  ReplyCallOrder o({});
  EXPECT_TRUE(o.initial().empty());
}

}  // namespace
}  // namespace kaisha::company
