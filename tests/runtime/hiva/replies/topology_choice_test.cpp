#include "runtime/hiva/replies/topology_choice.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace topology_choice_test {

Parsed<TopologyReply> decide(const std::string& reply) { return parse_topology_decision(reply); }

// Fig. 10's example.
TEST(TopologyReply, ReadsTheFigureExample) {
  for (const char* reply :
       {"ADD_PARALLEL: Data retrieval agent", "Output: ADD_PARALLEL: Data retrieval agent",
        "**Decision:** `ADD_PARALLEL`: **Data retrieval agent**", "add parallel - Data retrieval agent\r\n",
        "I weighed REMOVE_SUCCESSOR, but the feedback asks for breadth.\n\nADD_PARALLEL: Data retrieval agent"}) {
    Parsed<TopologyReply> p = decide(reply);
    EXPECT_EQ(p.value.choice, TopologyChoice::add_parallel) << reply;
    EXPECT_EQ(p.value.argument, "Data retrieval agent") << reply;
    EXPECT_EQ(p.problem, std::nullopt) << reply << "\n" << *p.problem;
  }
}

TEST(TopologyReply, ReadsEveryOperation) {
  Parsed<TopologyReply> serial = decide("ADD_SERIAL:\n  A checker that verifies units before the summary");
  EXPECT_EQ(serial.value.choice, TopologyChoice::add_serial);
  EXPECT_EQ(serial.value.argument, "A checker that verifies units before the summary");
  Parsed<TopologyReply> connect = decide("CONNECT_TO_AGGREGATOR");
  EXPECT_EQ(connect.value.choice, TopologyChoice::connect_to_aggregator);
  EXPECT_EQ(connect.value.argument, "");
  EXPECT_EQ(connect.problem, std::nullopt);
  Parsed<TopologyReply> none = decide("NO_CHANGE: [The structure already fits the task.]");
  EXPECT_EQ(none.value.choice, TopologyChoice::no_change);
  EXPECT_EQ(none.value.argument, "The structure already fits the task.");
  EXPECT_FALSE(none.defaulted);
  EXPECT_EQ(decide("No-Change(the structure fits)").value.argument, "the structure fits");
}

TEST(TopologyReply, RemoveSuccessorTakesAnIdAnIndexOrLeastVisited) {
  Parsed<TopologyReply> by_id = decide("REMOVE_SUCCESSOR: `agent_3`.");
  EXPECT_EQ(by_id.value.choice, TopologyChoice::remove_successor);
  EXPECT_EQ(by_id.value.target, RemoveTarget::id);
  EXPECT_EQ(by_id.value.argument, "agent_3");
  EXPECT_EQ(decide("REMOVE_SUCCESSOR: id: agent_7").value.argument, "agent_7");
  for (const char* reply :
       {"REMOVE_SUCCESSOR: 2", "REMOVE_SUCCESSOR: [2]", "remove successor: #2", "REMOVE_SUCCESSOR: index 2"}) {
    Parsed<TopologyReply> p = decide(reply);
    EXPECT_EQ(p.value.target, RemoveTarget::index) << reply;
    EXPECT_EQ(p.value.target_index, 2u) << reply;
  }
  Parsed<TopologyReply> least = decide("REMOVE_SUCCESSOR: least_visited");
  EXPECT_EQ(least.value.target, RemoveTarget::least_visited);
  EXPECT_EQ(decide("REMOVE_SUCCESSOR: least visited successor").value.target, RemoveTarget::least_visited);
}

TEST(TopologyReply, JapaneseAndEmojiArguments) {
  Parsed<TopologyReply> p = decide("決定：\nADD_SERIAL：単位を検証するエージェント 🔍");
  EXPECT_EQ(p.value.choice, TopologyChoice::add_serial);
  EXPECT_EQ(p.value.argument, "単位を検証するエージェント 🔍");
  EXPECT_EQ(p.problem, std::nullopt);
}

TEST(TopologyReply, ALabelledDecisionWinsOverAnEchoOfTheOptions) {
  Parsed<TopologyReply> p = decide(
      "Options:\n- ADD_PARALLEL: [New agent description]\n- ADD_SERIAL: [New agent description]\n- NO_CHANGE: "
      "[Reason]\n\nDecision: ADD_SERIAL: Unit checker");
  EXPECT_EQ(p.value.choice, TopologyChoice::add_serial);
  EXPECT_EQ(p.value.argument, "Unit checker");
}

TEST(TopologyReply, BadInputIsNoChangeWithTheProblem) {
  struct Case {
    std::string reply;
    std::string problem;
  } cases[] = {
      {"", "the reply is empty; the decision is NO_CHANGE"},
      {"I would add a parallel agent.",
       "no ADD_PARALLEL, ADD_SERIAL, REMOVE_SUCCESSOR, CONNECT_TO_AGGREGATOR or NO_CHANGE"},
      {"ADD_PARALLEL:", "ADD_PARALLEL has no agent description; the decision is NO_CHANGE"},
      {"ADD_SERIAL: []", "ADD_SERIAL has no agent description"},
      {"REMOVE_SUCCESSOR:  ", "REMOVE_SUCCESSOR names no successor"},
      {"ADD_PARALLEL: Data agent\nREMOVE_SUCCESSOR: 1",
       "ambiguous: ADD_PARALLEL at line 1, REMOVE_SUCCESSOR at line 2; the decision is NO_CHANGE"},
      {"ADD_PARALLEL: Data \xFF agent\nNO_CHANGE: fine", "invalid UTF-8 at byte 20 (0xFF), replaced by U+FFFD"},
  };
  for (const Case& c : cases) {
    Parsed<TopologyReply> p = decide(c.reply);
    EXPECT_EQ(p.value.choice, TopologyChoice::no_change) << c.reply;
    EXPECT_EQ(p.value.argument, "") << c.reply;
    EXPECT_TRUE(p.defaulted) << c.reply;
    ASSERT_TRUE(p.problem.has_value()) << c.reply;
    EXPECT_EQ(p.problem->rfind("topology decision reply: ", 0), 0u) << *p.problem;
    EXPECT_NE(p.problem->find(c.problem), std::string::npos) << *p.problem;
  }
}

TEST(TopologyReply, RepeatingTheSameOperationIsNotAmbiguous) {
  Parsed<TopologyReply> p = decide("NO_CHANGE: fits\n\nNO_CHANGE: (as said)");
  EXPECT_EQ(p.value.choice, TopologyChoice::no_change);
  EXPECT_EQ(p.value.argument, "fits");
  EXPECT_FALSE(p.defaulted);
}

TEST(TopologyReply, NamesAreThePromptsSpelling) {
  EXPECT_EQ(to_string(TopologyChoice::add_parallel), "ADD_PARALLEL");
  EXPECT_EQ(to_string(TopologyChoice::add_serial), "ADD_SERIAL");
  EXPECT_EQ(to_string(TopologyChoice::remove_successor), "REMOVE_SUCCESSOR");
  EXPECT_EQ(to_string(TopologyChoice::connect_to_aggregator), "CONNECT_TO_AGGREGATOR");
  EXPECT_EQ(to_string(TopologyChoice::no_change), "NO_CHANGE");
}

}  // namespace topology_choice_test
}  // namespace kaisha::hiva
