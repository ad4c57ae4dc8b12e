// RepairTopology (hiva.md §8, §14 item 19): the §14 goldens and our choices
// where the paper is silent.
#include "runtime/hiva/graph/repair_topology.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/hiva/graph/graph_fixture.hpp"

namespace kaisha::hiva {
namespace repair_topology_test {

using fixture::agent_ids;
using fixture::edge_set;
using fixture::EdgeList;
using fixture::EdgeSet;
using fixture::graph_of;
using Ids = std::vector<std::string>;

// An edit that added `from` → `to` (as a faulty f_G could), recorded so that
// undo() can take it back.
EditResult injected_edge(AgentGraph& g, const std::string& from, const std::string& to) {
  EditResult r;
  r.agent = from;
  r.op = TopologyOp::connect_to_aggregator;
  r.applied = true;
  std::size_t at = g.edges().size();
  if (!g.add_edge(from, to)) throw std::logic_error("fixture: cannot inject the edge");
  r.added_edges = {{from, to}};
  r.changes.push_back(GraphChange{GraphChange::Kind::add_edge, at, {}, *g.find_edge(from, to)});
  return r;
}

void set_history(AgentGraph& g, const std::string& from, const std::string& to, int uses, int successes) {
  g.find_edge(from, to)->uses = uses;
  g.find_edge(from, to)->successes = successes;
}

TEST(HivaRepairTopology, AnInjectedBackEdgeIsReverted) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}});
  std::vector<EditResult> edits;
  edits.push_back(apply_edit(g, "a", TopologyDecision{TopologyOp::add_parallel, "helper"}));
  ASSERT_TRUE(edits[0].applied);
  const AgentGraph after_first = g;
  edits.push_back(apply_edit(g, "b", TopologyDecision{TopologyOp::no_change, "fine"}));
  edits.push_back(injected_edge(g, "b", "a"));
  ASSERT_TRUE(g.has_cycle());

  RepairReport report = repair_topology(g, edits);
  EXPECT_EQ(report.reverted_edits, (std::vector<std::size_t>{2}));
  EXPECT_TRUE(report.broken_edges.empty());
  EXPECT_FALSE(g.has_cycle());
  EXPECT_TRUE(g == after_first) << "only the offending edit is reverted";
  EXPECT_TRUE(report.changed());
}

TEST(HivaRepairTopology, RevertsEditsLatestFirstUntilTheCycleIsGone) {
  AgentGraph g = graph_of({"a", "b", "c"}, {{"source", "a"}, {"a", "b"}, {"b", "c"}, {"c", "aggregator"}});
  const AgentGraph start = g;
  std::vector<EditResult> edits;
  edits.push_back(injected_edge(g, "c", "a"));  // the cycle
  edits.push_back(apply_edit(g, "a", TopologyDecision{TopologyOp::connect_to_aggregator, ""}));
  ASSERT_TRUE(edits[1].applied);
  RepairReport report = repair_topology(g, edits);
  EXPECT_EQ(report.reverted_edits, (std::vector<std::size_t>{1, 0}));
  EXPECT_TRUE(g == start);
}

TEST(HivaRepairTopology, ACycleNoEditMadeLosesItsFirstBackEdge) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "a"}, {"b", "aggregator"}});
  RepairReport report = repair_topology(g, {});
  EXPECT_EQ(report.broken_edges, (EdgeList{{"b", "a"}}));
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"a", "b"}, {"b", "aggregator"}}));
}

TEST(HivaRepairTopology, AnOrphanNodeIsRemoved) {
  AgentGraph g = graph_of({"a", "orphan"}, {{"source", "a"}, {"a", "aggregator"}, {"orphan", "aggregator"}});
  RepairReport report = repair_topology(g, {});
  EXPECT_EQ(report.pruned_agents, (Ids{"orphan"}));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator", "a"}));
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"a", "aggregator"}}));
}

TEST(HivaRepairTopology, DeadEndsArePrunedRepeatedly) {
  // x → y, and y leads nowhere: y goes, then x has no successor and goes.
  AgentGraph g = graph_of({"x", "y"}, {{"source", "aggregator"}, {"source", "x"}, {"x", "y"}});
  RepairReport report = repair_topology(g, {});
  EXPECT_EQ(report.pruned_agents, (Ids{"y", "x"}));
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "aggregator"}}));
  EXPECT_FALSE(report.reconnected);
}

TEST(HivaRepairTopology, AnEdgeAtRateTwoTenthsIsPrunedOneAtFourTenthsKept) {
  AgentGraph g =
      graph_of({"a", "b"}, {{"source", "a"}, {"source", "b"}, {"a", "b"}, {"a", "aggregator"}, {"b", "aggregator"}});
  set_history(g, "a", "b", 5, 1);       // 0.2
  set_history(g, "source", "b", 5, 2);  // 0.4
  RepairReport report = repair_topology(g, {});
  EXPECT_EQ(report.pruned_edges, (EdgeList{{"a", "b"}}));
  EXPECT_TRUE(report.pruned_agents.empty());
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "aggregator"}}));
}

TEST(HivaRepairTopology, TheThresholdAndMinimumUsesAreTheCallers) {
  auto fixture_graph = [] {
    AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "aggregator"}});
    set_history(g, "source", "b", 2, 0);
    set_history(g, "source", "a", 10, 5);
    return g;
  };
  AgentGraph g = fixture_graph();
  EXPECT_EQ(repair_topology(g, {}, 0.3, 3).pruned_edges, EdgeList{}) << "2 uses are fewer than 3";
  g = fixture_graph();
  RepairReport strict = repair_topology(g, {}, 0.6, 1);
  EXPECT_EQ(strict.pruned_edges, (EdgeList{{"source", "b"}}));
  EXPECT_EQ(strict.kept_for_connection, (EdgeList{{"source", "a"}}));
}

TEST(HivaRepairTopology, AnUnusedEdgeIsNeverPruned) {
  AgentGraph g = graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}, {"source", "aggregator"}});
  RepairReport report = repair_topology(g, {}, 0.99, 0);
  EXPECT_TRUE(report.pruned_edges.empty());
}

TEST(HivaRepairTopology, PruningAnEdgeThenPrunesTheAgentItOrphaned) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "aggregator"}});
  set_history(g, "source", "b", 5, 0);
  RepairReport report = repair_topology(g, {});
  EXPECT_EQ(report.pruned_edges, (EdgeList{{"source", "b"}}));
  EXPECT_EQ(report.pruned_agents, (Ids{"b"}));
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"a", "aggregator"}}));
}

TEST(HivaRepairTopology, TheLastPathFromSourceToAggregatorIsKept) {
  AgentGraph g = graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}});
  set_history(g, "source", "a", 10, 1);
  set_history(g, "a", "aggregator", 10, 0);
  const AgentGraph before = g;
  RepairReport report = repair_topology(g, {});
  EXPECT_TRUE(report.pruned_edges.empty());
  EXPECT_EQ(report.kept_for_connection, (EdgeList{{"a", "aggregator"}, {"source", "a"}}));  // worst first
  EXPECT_TRUE(g == before);
  EXPECT_FALSE(report.changed());
}

TEST(HivaRepairTopology, ASourceLeftWithoutAPathIsReconnected) {
  AgentGraph g = graph_of({"a"}, {{"source", "a"}});
  RepairReport report = repair_topology(g, {});
  EXPECT_EQ(report.pruned_agents, (Ids{"a"}));
  EXPECT_TRUE(report.reconnected);
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "aggregator"}}));
}

TEST(HivaRepairTopology, AHealthyGraphIsLeftAsItIs) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}, {"a", "aggregator"}});
  set_history(g, "a", "b", 4, 4);
  std::vector<EditResult> edits{apply_edit(g, "b", TopologyDecision{TopologyOp::no_change, ""})};
  const AgentGraph before = g;
  RepairReport report = repair_topology(g, edits);
  EXPECT_FALSE(report.changed());
  EXPECT_TRUE(report.kept_for_connection.empty());
  EXPECT_TRUE(g == before);
}

}  // namespace repair_topology_test
}  // namespace kaisha::hiva
