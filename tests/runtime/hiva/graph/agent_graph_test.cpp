// The agent network of hiva.md §3 and §14 items 1-2.
#include "runtime/hiva/graph/agent_graph.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/runtime/hiva/graph/graph_fixture.hpp"

namespace kaisha::hiva {
namespace agent_graph_test {

using fixture::agent_ids;
using fixture::edge_list;
using fixture::EdgeList;
using fixture::graph_of;
using fixture::named;

using Ids = std::vector<std::string>;

TEST(HivaAgentGraph, SingletonIsTwoAgentsAndOneEdge) {
  AgentGraph g = AgentGraph::singleton(named("whatever"), named("else"));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator"}));
  EXPECT_EQ(edge_list(g), (EdgeList{{"source", "aggregator"}}));
  EXPECT_EQ(g.agent("source").prompt, "You are whatever.");
  const GraphEdge& e = g.edges()[0];
  EXPECT_EQ(e.synergy, 0);
  EXPECT_EQ(e.alpha, 1);
  EXPECT_EQ(e.beta, 1);
  EXPECT_EQ(e.uses, 0);
  EXPECT_EQ(e.routed, 0);
}

TEST(HivaAgentGraph, FindsAgentsAndThrowsForAnUnknownOne) {
  AgentGraph g = graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}});
  EXPECT_EQ(g.find("a")->role, "a role");
  EXPECT_EQ(g.find("zz"), nullptr);
  EXPECT_THROW(g.agent("zz"), std::out_of_range);
  g.agent("a").visits = 3;
  EXPECT_EQ(g.find("a")->visits, 3);
}

TEST(HivaAgentGraph, SuccessorsAndPredecessorsFollowEdgeInsertionOrder) {
  AgentGraph g = graph_of({"c", "b", "a"}, {{"source", "b"},
                                            {"source", "a"},
                                            {"source", "c"},
                                            {"a", "aggregator"},
                                            {"c", "aggregator"},
                                            {"b", "aggregator"}});
  EXPECT_EQ(g.successors("source"), (Ids{"b", "a", "c"}));
  EXPECT_EQ(g.predecessors("aggregator"), (Ids{"a", "c", "b"}));
  EXPECT_TRUE(g.successors("aggregator").empty());
  EXPECT_TRUE(g.has_edge("source", "a"));
  EXPECT_FALSE(g.has_edge("a", "source"));
}

TEST(HivaAgentGraph, AddAgentRefusesADuplicateOrEmptyId) {
  AgentGraph g = graph_of({"a"}, {});
  Status dup = g.add_agent(named("a"));
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().message, "agent \"a\" already exists");
  EXPECT_FALSE(g.add_agent(named("source")));
  EXPECT_FALSE(g.add_agent(GraphAgent{}));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator", "a"}));
}

TEST(HivaAgentGraph, AddEdgeRefusesWhatTheGraphRulesOut) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}});
  const EdgeList before = edge_list(g);
  auto refused = [&](const std::string& from, const std::string& to, const std::string& why) {
    Status s = g.add_edge(from, to);
    ASSERT_FALSE(s) << from << " → " << to;
    EXPECT_NE(s.error().message.find(why), std::string::npos) << s.error().message;
  };
  refused("a", "zz", "no agent \"zz\"");
  refused("zz", "a", "no agent \"zz\"");
  refused("a", "a", "its own successor");
  refused("source", "a", "already exists");
  refused("aggregator", "a", "the aggregator is the sink");
  refused("a", "source", "the source has no predecessors");
  EXPECT_EQ(edge_list(g), before);
}

TEST(HivaAgentGraph, ASixthSuccessorIsRefused) {
  AgentGraph g = graph_of({"a", "b", "c", "d", "e", "f"}, {});
  for (const char* to : {"a", "b", "c", "d", "e"}) ASSERT_TRUE(g.add_edge("source", to)) << to;
  Status sixth = g.add_edge("source", "f");
  ASSERT_FALSE(sixth);
  EXPECT_EQ(sixth.error().message,
            "edge \"source\" → \"f\": \"source\" already has 5 successors, the most an agent may have");
  EXPECT_EQ(g.successors("source").size(), 5u);
}

TEST(HivaAgentGraph, CyclesAreAllowedByAddEdgeAndReportedByTheOrder) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}});
  EXPECT_FALSE(g.has_cycle());
  ASSERT_TRUE(g.add_edge("b", "a"));
  EXPECT_TRUE(g.has_cycle());
  Result<std::vector<std::string>> order = g.topological_order();
  ASSERT_FALSE(order);
  EXPECT_EQ(order.error().message, "the graph has a cycle: no topological order for \"aggregator\", \"a\", \"b\"");
}

TEST(HivaAgentGraph, RemoveEdgeAndRemoveAgent) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}, {"a", "aggregator"}});
  EXPECT_FALSE(g.remove_edge("b", "a"));
  ASSERT_TRUE(g.remove_edge("a", "aggregator"));
  EXPECT_EQ(edge_list(g), (EdgeList{{"source", "a"}, {"a", "b"}, {"b", "aggregator"}}));
  ASSERT_TRUE(g.remove_agent("a"));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator", "b"}));
  EXPECT_EQ(edge_list(g), (EdgeList{{"b", "aggregator"}}));
  EXPECT_FALSE(g.remove_agent("a"));
  EXPECT_FALSE(g.remove_agent("source"));
  EXPECT_FALSE(g.remove_agent("aggregator"));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator", "b"}));
}

TEST(HivaAgentGraph, InsertKeepsPositions) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}});
  EXPECT_EQ(g.agent_index("b"), 3u);
  EXPECT_EQ(g.agent_index("zz"), g.agents().size());
  EXPECT_EQ(g.edge_index("a", "b"), 1u);
  ASSERT_TRUE(g.insert_agent(2, named("x")));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator", "x", "a", "b"}));
  ASSERT_TRUE(g.insert_edge(0, GraphEdge{"source", "x", 0.5}));
  EXPECT_EQ(edge_list(g), (EdgeList{{"source", "x"}, {"source", "a"}, {"a", "b"}, {"b", "aggregator"}}));
  EXPECT_EQ(g.edges()[0].synergy, 0.5);
  ASSERT_TRUE(g.insert_edge(99, GraphEdge{"x", "aggregator"}));  // clamped to the end
  EXPECT_EQ(edge_list(g).back(), (std::pair<std::string, std::string>{"x", "aggregator"}));
  EXPECT_FALSE(g.insert_edge(0, GraphEdge{"x", "aggregator"}));
}

TEST(HivaAgentGraph, ResetRoutedZeroesEveryEdge) {
  AgentGraph g = graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}});
  g.find_edge("source", "a")->routed = 2;
  g.find_edge("a", "aggregator")->routed = 1;
  g.find_edge("a", "aggregator")->uses = 4;
  g.reset_routed();
  for (const GraphEdge& e : g.edges()) EXPECT_EQ(e.routed, 0);
  EXPECT_EQ(g.find_edge("a", "aggregator")->uses, 4);
}

TEST(HivaAgentGraph, SuccessRateIsSuccessesOverUsesAndOneWhenUnused) {
  GraphEdge e{"a", "b"};
  EXPECT_EQ(AgentGraph::success_rate(e), 1.0);
  e.uses = 5;
  e.successes = 1;
  EXPECT_DOUBLE_EQ(AgentGraph::success_rate(e), 0.2);
  e.successes = 0;
  EXPECT_EQ(AgentGraph::success_rate(e), 0.0);
}

TEST(HivaAgentGraph, TopologicalOrderBreaksTiesByInsertionOrder) {
  // Diamond with the later-inserted branch listed first among the edges.
  AgentGraph g =
      graph_of({"left", "right", "join"},
               {{"source", "right"}, {"source", "left"}, {"right", "join"}, {"left", "join"}, {"join", "aggregator"}});
  Result<std::vector<std::string>> order = g.topological_order();
  ASSERT_TRUE(order);
  EXPECT_EQ(*order, (Ids{"source", "left", "right", "join", "aggregator"}));
  // An agent no edge reaches still has its place.
  ASSERT_TRUE(g.add_agent(named("orphan")));
  EXPECT_EQ(*g.topological_order(), (Ids{"source", "left", "right", "join", "aggregator", "orphan"}));
}

TEST(HivaAgentGraph, TopologicalOrderPutsEveryAgentAfterItsPredecessors) {
  // Inserted in reverse dependency order: c → b → a.
  AgentGraph g = graph_of({"a", "b", "c"}, {{"source", "c"}, {"c", "b"}, {"b", "a"}, {"a", "aggregator"}});
  EXPECT_EQ(*g.topological_order(), (Ids{"source", "c", "b", "a", "aggregator"}));
}

TEST(HivaAgentGraph, NewAgentIdsAreSlugsWithTheFirstFreeNumber) {
  AgentGraph g = graph_of({}, {});
  EXPECT_EQ(g.new_agent_id("Data retrieval agent"), "data_retrieval_agent_1");
  EXPECT_EQ(g.new_agent_id("  Financial_Analyzer (v2)! "), "financial_analyzer_v2_1");
  EXPECT_EQ(g.new_agent_id("財務分析エージェント"), "agent_1");
  EXPECT_EQ(g.new_agent_id(""), "agent_1");
  EXPECT_EQ(g.new_agent_id("Web 検索 agent"), "web_agent_1");
  std::string longer = g.new_agent_id("an extremely long role description that goes on and on");
  EXPECT_EQ(longer, "an_extremely_long_role_descripti_1");
  ASSERT_TRUE(g.add_agent(named("coder_1")));
  ASSERT_TRUE(g.add_agent(named("coder_2")));
  EXPECT_EQ(g.new_agent_id("Coder"), "coder_3");
  ASSERT_TRUE(g.remove_agent("coder_1"));
  EXPECT_EQ(g.new_agent_id("Coder"), "coder_1");
}

}  // namespace agent_graph_test
}  // namespace kaisha::hiva
