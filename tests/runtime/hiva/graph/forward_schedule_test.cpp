// Kahn scheduling of one forward pass: hiva.md §5 (Algorithm 2) and §14
// item 4.
#include "runtime/hiva/graph/forward_schedule.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/runtime/hiva/graph/graph_fixture.hpp"

namespace kaisha::hiva {
namespace forward_schedule_test {

using fixture::graph_of;
using Ids = std::vector<std::string>;

ForwardSchedule plan(const AgentGraph& g) {
  Result<ForwardSchedule> s = ForwardSchedule::plan(g, "x0");
  if (!s) throw std::logic_error(s.error().message);
  return std::move(s).value();
}

// Starts `agent`, instructs every agent in `routed` but the aggregator, and
// reports it ran.
void run(ForwardSchedule& s, const std::string& agent, const Ids& routed) {
  s.started(agent);
  for (const std::string& to : routed)
    if (to != "aggregator") s.instruct(to, "from " + agent);
  s.ran(agent, routed);
}

AgentGraph diamond() {
  return graph_of(
      {"left", "right", "join"},
      {{"source", "left"}, {"source", "right"}, {"left", "join"}, {"right", "join"}, {"join", "aggregator"}});
}

TEST(HivaForwardSchedule, ChainRunsOneAgentAtATime) {
  ForwardSchedule s = plan(graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}}));
  EXPECT_EQ(s.instruction("source"), "x0");
  EXPECT_EQ(s.ready(), (Ids{"source"}));
  run(s, "source", {"a"});
  EXPECT_EQ(s.ready(), (Ids{"a"}));
  EXPECT_EQ(s.instruction("a"), "from source");
  run(s, "a", {"b"});
  EXPECT_EQ(s.ready(), (Ids{"b"}));
  run(s, "b", {"aggregator"});
  EXPECT_EQ(s.ready(), (Ids{"aggregator"}));
  EXPECT_FALSE(s.finished());
  run(s, "aggregator", {});
  EXPECT_TRUE(s.finished());
  EXPECT_TRUE(s.ready().empty());
  EXPECT_EQ(s.executed(), (Ids{"source", "a", "b", "aggregator"}));
  EXPECT_TRUE(s.skipped().empty());
}

TEST(HivaForwardSchedule, DiamondBranchesAreReadyTogetherAndTheJoinWaitsForBoth) {
  ForwardSchedule s = plan(diamond());
  run(s, "source", {"left", "right"});
  EXPECT_EQ(s.ready(), (Ids{"left", "right"}));
  s.started("left");
  EXPECT_EQ(s.ready(), (Ids{"right"}));  // a started agent is no longer offered
  s.started("right");
  EXPECT_TRUE(s.ready().empty());
  s.instruct("join", "from right");
  s.ran("right", {"join"});
  EXPECT_TRUE(s.ready().empty()) << "the join waits for left";
  EXPECT_THROW(s.started("join"), std::logic_error);
  s.instruct("join", "from left");
  s.ran("left", {"join"});
  EXPECT_EQ(s.ready(), (Ids{"join"}));
  run(s, "join", {"aggregator"});
  run(s, "aggregator", {});
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.executed(), (Ids{"source", "right", "left", "join", "aggregator"}));
}

TEST(HivaForwardSchedule, TheLastInstructionWins) {
  ForwardSchedule s = plan(diamond());
  run(s, "source", {"left", "right"});
  s.started("left");
  s.started("right");
  s.instruct("join", "from left");
  s.ran("left", {"join"});
  s.instruct("join", "from right");
  s.ran("right", {"join"});
  EXPECT_EQ(s.instruction("join"), "from right");
  EXPECT_EQ(s.routed_from("join"), (Ids{"left", "right"}));
}

TEST(HivaForwardSchedule, AnUnroutedBranchIsSkippedWithItsDescendants) {
  // source → {web, coder}; web → summarizer → aggregator; coder → aggregator.
  AgentGraph g = graph_of({"web", "summarizer", "coder"}, {{"source", "web"},
                                                           {"source", "coder"},
                                                           {"web", "summarizer"},
                                                           {"summarizer", "aggregator"},
                                                           {"coder", "aggregator"}});
  ForwardSchedule s = plan(g);
  run(s, "source", {"coder"});
  EXPECT_EQ(s.ready(), (Ids{"coder"}));
  EXPECT_EQ(s.skipped(), (Ids{"web", "summarizer"}));
  run(s, "coder", {"aggregator"});
  EXPECT_EQ(s.ready(), (Ids{"aggregator"}));
  run(s, "aggregator", {});
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.executed(), (Ids{"source", "coder", "aggregator"}));
  EXPECT_EQ(s.routed_from("aggregator"), (Ids{"coder"}));
}

TEST(HivaForwardSchedule, AJoinReachedByOneBranchRunsOnceTheOtherIsSkipped) {
  ForwardSchedule s = plan(diamond());
  run(s, "source", {"left"});
  EXPECT_EQ(s.skipped(), (Ids{"right"}));
  run(s, "left", {"join"});
  EXPECT_EQ(s.ready(), (Ids{"join"}));
}

TEST(HivaForwardSchedule, TheAggregatorIsSkippedWhenNobodyRoutesToIt) {
  ForwardSchedule s = plan(graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}}));
  run(s, "source", {"a"});
  run(s, "a", {});
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.skipped(), (Ids{"aggregator"}));
  EXPECT_TRUE(s.routed_from("aggregator").empty());
}

TEST(HivaForwardSchedule, AnAgentNoEdgeReachesIsSkippedFromTheStart) {
  AgentGraph g = graph_of({"orphan", "next"}, {{"source", "aggregator"}, {"orphan", "next"}});
  ForwardSchedule s = plan(g);
  EXPECT_EQ(s.skipped(), (Ids{"orphan", "next"}));
  EXPECT_EQ(s.ready(), (Ids{"source"}));
}

TEST(HivaForwardSchedule, MisuseThrows) {
  ForwardSchedule s = plan(diamond());
  EXPECT_THROW(s.started("left"), std::logic_error);    // not reached yet
  EXPECT_THROW(s.ran("source", {}), std::logic_error);  // not started
  EXPECT_THROW(s.instruct("nobody", "x"), std::logic_error);
  s.started("source");
  EXPECT_THROW(s.ran("source", {"join"}), std::logic_error);  // not a successor
  EXPECT_THROW(s.instruct("source", "late"), std::logic_error);
}

TEST(HivaForwardSchedule, ACyclicGraphCannotBePlanned) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "a"}, {"b", "aggregator"}});
  Result<ForwardSchedule> s = ForwardSchedule::plan(g, "x0");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("cycle"), std::string::npos);
}

}  // namespace forward_schedule_test
}  // namespace kaisha::hiva
