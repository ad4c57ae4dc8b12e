// What changed between two graphs: the per-iteration Δ of the log.
#include "runtime/hiva/graph/graph_diff.hpp"

#include <gtest/gtest.h>

#include "runtime/hiva/graph/topology_edit.hpp"
#include "tests/runtime/hiva/graph/graph_fixture.hpp"

namespace kaisha::hiva {
namespace graph_diff_test {

using fixture::graph_of;
using Ids = std::vector<std::string>;
using Edges = std::vector<GraphDiff::Edge>;

AgentGraph start() { return graph_of({"a", "b", "c"}, {{"source", "a"}, {"a", "b"}, {"b", "c"}, {"c", "aggregator"}}); }

TEST(HivaGraphDiff, SameGraphsDifferInNothing) {
  AgentGraph g = start();
  g.agent("a").alpha = 5;  // bandit state is not a difference
  g.find_edge("a", "b")->uses = 3;
  EXPECT_TRUE(diff_graphs(start(), g).empty());
}

TEST(HivaGraphDiff, NamesAgentsEdgesPromptsAndTools) {
  const AgentGraph before = start();
  AgentGraph after = before;
  ASSERT_TRUE(apply_edit(after, "a", TopologyDecision{TopologyOp::remove_successor, "b"}).applied);
  // source → a → c now: the parallel agent takes a's downstream, c.
  ASSERT_TRUE(apply_edit(after, "source", TopologyDecision{TopologyOp::add_parallel, "Web search"}).applied);
  after.agent("a").prompt = "You are a better a.";
  after.agent("a").prompt_version = 2;
  after.agent("c").tool_version = 2;  // a version bump alone counts
  after.agent("source").tool_code = "def tool_function(input_data, **kwargs):\n    return 1\n";

  GraphDiff d = diff_graphs(before, after);
  EXPECT_EQ(d.agents_added, (Ids{"web_search_1"}));
  EXPECT_EQ(d.agents_removed, (Ids{"b"}));
  EXPECT_EQ(d.edges_added, (Edges{{"a", "c"}, {"source", "web_search_1"}, {"web_search_1", "c"}}));
  EXPECT_EQ(d.edges_removed, (Edges{{"a", "b"}, {"b", "c"}}));
  EXPECT_EQ(d.prompts_changed, (Ids{"a"}));
  EXPECT_EQ(d.tools_changed, (Ids{"source", "c"}));
  EXPECT_FALSE(d.empty());

  json j = to_json(d);
  EXPECT_EQ(j["agents_added"], json::array({"web_search_1"}));
  EXPECT_EQ(j["edges_removed"], json::parse(R"([["a","b"],["b","c"]])"));
  EXPECT_EQ(j["tools_changed"], json::array({"source", "c"}));
  EXPECT_EQ(j.size(), 6u);
}

TEST(HivaGraphDiff, TheDiffOfTheReverseSwapsAddedAndRemoved) {
  AgentGraph after = start();
  ASSERT_TRUE(apply_edit(after, "b", TopologyDecision{TopologyOp::add_serial, "Checker"}).applied);
  GraphDiff forward = diff_graphs(start(), after);
  GraphDiff back = diff_graphs(after, start());
  EXPECT_EQ(forward.agents_added, back.agents_removed);
  EXPECT_EQ(forward.edges_added, back.edges_removed);
  EXPECT_EQ(forward.edges_removed, back.edges_added);
}

}  // namespace graph_diff_test
}  // namespace kaisha::hiva
