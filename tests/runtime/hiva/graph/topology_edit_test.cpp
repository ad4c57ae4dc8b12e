// f_G's operations on fixture graphs (hiva.md §7.4, §14 item 16) and their
// exact undo.
#include "runtime/hiva/graph/topology_edit.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/hiva/graph/graph_fixture.hpp"

namespace kaisha::hiva {
namespace topology_edit_test {

using fixture::agent_ids;
using fixture::edge_list;
using fixture::edge_set;
using fixture::EdgeList;
using fixture::EdgeSet;
using fixture::graph_of;
using fixture::named;
using Ids = std::vector<std::string>;

// source → a → b → c → aggregator, with some state on the edges and agents
// so that an undo has something to restore.
AgentGraph chain() {
  AgentGraph g = graph_of({"a", "b", "c"}, {{"source", "a"}, {"a", "b"}, {"b", "c"}, {"c", "aggregator"}});
  g.find_edge("a", "b")->synergy = 0.25;
  g.find_edge("a", "b")->uses = 4;
  g.find_edge("a", "b")->successes = 3;
  g.find_edge("b", "c")->alpha = 2.5;
  g.agent("b").visits = 7;
  g.agent("b").prompt_version = 3;
  return g;
}

TopologyDecision decide(TopologyOp op, std::string argument = "") { return TopologyDecision{op, std::move(argument)}; }

void expect_refused(AgentGraph& g, const std::string& agent, const TopologyDecision& d, const std::string& why,
                    GraphAgent new_agent = {}) {
  const AgentGraph before = g;
  EditResult r = apply_edit(g, agent, d, std::move(new_agent));
  EXPECT_FALSE(r.applied);
  EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
  EXPECT_TRUE(r.changes.empty());
  EXPECT_TRUE(g == before) << "a refused edit changed the graph";
}

TEST(HivaTopologyEdit, ParallelGivesTheNewAgentItsSiblingsDownstream) {
  AgentGraph g = chain();
  EditResult r = apply_edit(g, "a", decide(TopologyOp::add_parallel, "Data retrieval agent"));
  ASSERT_TRUE(r.applied) << r.reason;
  const std::string d = "data_retrieval_agent_1";
  EXPECT_EQ(r.added_agents, (Ids{d}));
  EXPECT_EQ(g.agent(d).role, "Data retrieval agent");
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"a", "b"}, {"b", "c"}, {"c", "aggregator"}, {"a", d}, {d, "c"}}));
  EXPECT_EQ(r.added_edges, (EdgeList{{"a", d}, {d, "c"}}));
  EXPECT_TRUE(r.removed_edges.empty());
  EXPECT_EQ(r.agent, "a");
  EXPECT_EQ(r.op, TopologyOp::add_parallel);
}

TEST(HivaTopologyEdit, ParallelBesideTheAggregatorFeedsTheAggregator) {
  // The case study's split: a generalist gains a parallel specialist, both
  // feeding the aggregator.
  AgentGraph g = graph_of({"generalist"}, {{"source", "generalist"}, {"generalist", "aggregator"}});
  GraphAgent d = named("sentiment_extractor");
  ASSERT_TRUE(apply_edit(g, "generalist", decide(TopologyOp::add_parallel, "Sentiment"), d).applied);
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "generalist"},
                                  {"generalist", "aggregator"},
                                  {"generalist", "sentiment_extractor"},
                                  {"sentiment_extractor", "aggregator"}}));
  EXPECT_EQ(g.agent("sentiment_extractor").prompt, "You are sentiment_extractor.");
  EXPECT_EQ(g.agent("sentiment_extractor").role, "sentiment_extractor role");  // the driver's role is kept
}

TEST(HivaTopologyEdit, ParallelTakesTheUnionOfEverySuccessorsDownstream) {
  AgentGraph g = graph_of({"a", "b", "c", "x"}, {{"source", "a"},
                                                 {"a", "b"},
                                                 {"a", "aggregator"},
                                                 {"a", "x"},
                                                 {"b", "c"},
                                                 {"x", "c"},
                                                 {"c", "aggregator"},
                                                 {"x", "aggregator"}});
  EditResult r = apply_edit(g, "a", decide(TopologyOp::add_parallel, "helper"));
  ASSERT_TRUE(r.applied) << r.reason;
  EXPECT_EQ(g.successors("helper_1"), (Ids{"c", "aggregator"}));
  EXPECT_EQ(g.predecessors("helper_1"), (Ids{"a"}));
}

TEST(HivaTopologyEdit, SerialInsertsTheNewAgentBetweenTheAgentAndAllItsSuccessors) {
  AgentGraph g = chain();
  EditResult r = apply_edit(g, "a", decide(TopologyOp::add_serial, "Quality check"));
  ASSERT_TRUE(r.applied) << r.reason;
  const std::string d = "quality_check_1";
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"a", d}, {d, "b"}, {"b", "c"}, {"c", "aggregator"}}));
  EXPECT_EQ(r.removed_edges, (EdgeList{{"a", "b"}}));

  AgentGraph fan =
      graph_of({"a", "b", "x"}, {{"source", "a"}, {"a", "b"}, {"a", "x"}, {"b", "aggregator"}, {"x", "aggregator"}});
  ASSERT_TRUE(apply_edit(fan, "a", decide(TopologyOp::add_serial, "pre")).applied);
  EXPECT_EQ(
      edge_set(fan),
      (EdgeSet{
          {"source", "a"}, {"a", "pre_1"}, {"pre_1", "b"}, {"pre_1", "x"}, {"b", "aggregator"}, {"x", "aggregator"}}));
}

TEST(HivaTopologyEdit, SerialFromTheSourceOfTheSingleton) {
  AgentGraph g = AgentGraph::singleton(named("s"), named("v"));
  ASSERT_TRUE(apply_edit(g, "source", decide(TopologyOp::add_serial, "Planner")).applied);
  EXPECT_EQ(edge_list(g), (EdgeList{{"source", "planner_1"}, {"planner_1", "aggregator"}}));
}

TEST(HivaTopologyEdit, RemoveByIdRewiresAndDeletesTheSuccessor) {
  AgentGraph g = chain();
  EditResult r = apply_edit(g, "a", decide(TopologyOp::remove_successor, "b"));
  ASSERT_TRUE(r.applied) << r.reason;
  EXPECT_EQ(edge_set(g), (EdgeSet{{"source", "a"}, {"a", "c"}, {"c", "aggregator"}}));
  EXPECT_EQ(agent_ids(g), (Ids{"source", "aggregator", "a", "c"}));
  EXPECT_EQ(r.removed_agents, (Ids{"b"}));
  EXPECT_EQ(r.added_edges, (EdgeList{{"a", "c"}}));
  EXPECT_EQ(EdgeSet(r.removed_edges.begin(), r.removed_edges.end()), (EdgeSet{{"a", "b"}, {"b", "c"}}));
}

TEST(HivaTopologyEdit, RemoveByIndexAndByLeastVisited) {
  auto fan = [] {
    AgentGraph g = graph_of(
        {"a", "b", "x"},
        {{"source", "a"}, {"a", "aggregator"}, {"a", "b"}, {"a", "x"}, {"b", "aggregator"}, {"x", "aggregator"}});
    g.agent("b").visits = 3;
    g.agent("x").visits = 1;
    g.agent("aggregator").visits = 0;  // never a candidate, however rarely visited
    return g;
  };
  AgentGraph by_index = fan();
  EditResult r = apply_edit(by_index, "a", decide(TopologyOp::remove_successor, " 2 "));
  ASSERT_TRUE(r.applied) << r.reason;
  EXPECT_EQ(r.removed_agents, (Ids{"x"}));
  EXPECT_EQ(by_index.successors("a"), (Ids{"aggregator", "b"}));

  AgentGraph least = fan();
  r = apply_edit(least, "a", decide(TopologyOp::remove_successor, "LEAST_VISITED"));
  ASSERT_TRUE(r.applied) << r.reason;
  EXPECT_EQ(r.removed_agents, (Ids{"x"}));

  AgentGraph tie = fan();
  tie.agent("x").visits = 3;
  r = apply_edit(tie, "a", decide(TopologyOp::remove_successor, "least_visited"));
  EXPECT_EQ(r.removed_agents, (Ids{"b"})) << "ties go to the first successor";
}

TEST(HivaTopologyEdit, RemoveKeepsASuccessorSomeoneElsePointsTo) {
  AgentGraph g =
      graph_of({"a", "e", "b"}, {{"source", "a"}, {"source", "e"}, {"a", "b"}, {"e", "b"}, {"b", "aggregator"}});
  EditResult r = apply_edit(g, "a", decide(TopologyOp::remove_successor, "b"));
  ASSERT_TRUE(r.applied) << r.reason;
  EXPECT_TRUE(r.removed_agents.empty());
  EXPECT_EQ(edge_set(g),
            (EdgeSet{{"source", "a"}, {"source", "e"}, {"a", "aggregator"}, {"e", "b"}, {"b", "aggregator"}}));
}

TEST(HivaTopologyEdit, RemoveRefusesTheAggregatorAndUnknownTargets) {
  AgentGraph g = graph_of({"a", "b"}, {{"source", "a"}, {"a", "aggregator"}, {"a", "b"}, {"b", "aggregator"}});
  expect_refused(g, "a", decide(TopologyOp::remove_successor, "aggregator"), "the aggregator is never removed");
  expect_refused(g, "a", decide(TopologyOp::remove_successor, "0"), "the aggregator is never removed");
  expect_refused(g, "a", decide(TopologyOp::remove_successor, "2"), "successor index 2 is out of range");
  expect_refused(g, "a", decide(TopologyOp::remove_successor, "source"), "\"a\" has no successor \"source\"");
  expect_refused(g, "b", decide(TopologyOp::remove_successor, "least_visited"),
                 "no successor other than the aggregator");
}

TEST(HivaTopologyEdit, ConnectToAggregatorAddsTheEdgeOnce) {
  AgentGraph g = chain();
  EditResult r = apply_edit(g, "a", decide(TopologyOp::connect_to_aggregator));
  ASSERT_TRUE(r.applied) << r.reason;
  EXPECT_EQ(r.added_edges, (EdgeList{{"a", "aggregator"}}));
  EXPECT_EQ(g.successors("a"), (Ids{"b", "aggregator"}));
  expect_refused(g, "a", decide(TopologyOp::connect_to_aggregator), "already routes to the aggregator");
}

TEST(HivaTopologyEdit, NoChangeIsAppliedAndChangesNothing) {
  AgentGraph g = chain();
  const AgentGraph before = g;
  EditResult r = apply_edit(g, "a", decide(TopologyOp::no_change, "works well"));
  EXPECT_TRUE(r.applied);
  EXPECT_TRUE(r.reason.empty());
  EXPECT_TRUE(r.changes.empty());
  EXPECT_TRUE(g == before);
}

TEST(HivaTopologyEdit, TheAggregatorAndUnknownAgentsNeverEdit) {
  AgentGraph g = chain();
  expect_refused(g, "aggregator", decide(TopologyOp::add_parallel, "x"), "the aggregator never edits topology");
  expect_refused(g, "aggregator", decide(TopologyOp::no_change), "the aggregator never edits topology");
  expect_refused(g, "ghost", decide(TopologyOp::add_serial, "x"), "no agent \"ghost\"");
}

TEST(HivaTopologyEdit, TheFiveSuccessorLimitRefusesWithAReason) {
  AgentGraph g = graph_of({"a", "s1", "s2", "s3", "s4", "s5", "t"}, {{"source", "a"},
                                                                     {"a", "s1"},
                                                                     {"a", "s2"},
                                                                     {"a", "s3"},
                                                                     {"a", "s4"},
                                                                     {"a", "s5"},
                                                                     {"s1", "t"},
                                                                     {"s1", "aggregator"},
                                                                     {"s2", "aggregator"},
                                                                     {"s3", "aggregator"},
                                                                     {"s4", "aggregator"},
                                                                     {"s5", "aggregator"},
                                                                     {"t", "aggregator"}});
  expect_refused(g, "a", decide(TopologyOp::add_parallel, "sixth"), "\"a\" would have 6 successors; at most 5");
  expect_refused(g, "a", decide(TopologyOp::connect_to_aggregator), "already has 5 successors");
  // Removing s1 would give a both t and the aggregator in its place: 6.
  expect_refused(g, "a", decide(TopologyOp::remove_successor, "s1"), "\"a\" would have 6 successors");
  // Removing s2 gives a the aggregator in its place: 5.
  EXPECT_TRUE(apply_edit(g, "a", decide(TopologyOp::remove_successor, "s2")).applied);
  // A serial insert leaves a with one successor.
  EditResult serial = apply_edit(g, "a", decide(TopologyOp::add_serial, "router"));
  ASSERT_TRUE(serial.applied) << serial.reason;
  EXPECT_EQ(g.successors("a"), (Ids{"router_1"}));
  EXPECT_EQ(g.successors("router_1").size(), 5u);
}

TEST(HivaTopologyEdit, AParallelAgentWithMoreThanFiveDownstreamIsRefused) {
  AgentGraph g = graph_of({"a", "b", "c", "t1", "t2", "t3", "t4", "t5", "t6"}, {});
  for (const char* t : {"t1", "t2", "t3"}) ASSERT_TRUE(g.add_edge("b", t));
  for (const char* t : {"t4", "t5", "t6"}) ASSERT_TRUE(g.add_edge("c", t));
  ASSERT_TRUE(g.add_edge("a", "b"));
  ASSERT_TRUE(g.add_edge("a", "c"));
  expect_refused(g, "a", decide(TopologyOp::add_parallel, "wide"), "\"wide_1\" would have 6 successors");
}

TEST(HivaTopologyEdit, AnAddWithATakenIdIsRefused) {
  AgentGraph g = chain();
  expect_refused(g, "a", decide(TopologyOp::add_parallel, "x"), "agent \"b\" already exists", named("b"));
  expect_refused(g, "a", decide(TopologyOp::add_serial, "x"), "agent \"source\" already exists", named("source"));
}

TEST(HivaTopologyEdit, UndoRestoresTheGraphExactly) {
  const std::vector<std::pair<std::string, TopologyDecision>> edits = {
      {"a", decide(TopologyOp::add_parallel, "p")},     {"a", decide(TopologyOp::add_serial, "s")},
      {"a", decide(TopologyOp::remove_successor, "b")}, {"b", decide(TopologyOp::remove_successor, "0")},
      {"a", decide(TopologyOp::connect_to_aggregator)}, {"source", decide(TopologyOp::add_serial, "s")},
      {"a", decide(TopologyOp::no_change, "fine")}};
  for (const auto& [agent, decision] : edits) {
    AgentGraph g = chain();
    const AgentGraph before = g;
    EditResult r = apply_edit(g, agent, decision);
    ASSERT_TRUE(r.applied) << r.reason;
    if (decision.op != TopologyOp::no_change) {
      EXPECT_FALSE(g == before) << to_string(decision.op);
    }
    ASSERT_TRUE(undo(g, r)) << to_string(decision.op);
    EXPECT_TRUE(g == before) << to_string(decision.op) << " by " << agent;
  }
}

TEST(HivaTopologyEdit, EditsUndoneLatestFirstRestoreTheStart) {
  AgentGraph g = chain();
  const AgentGraph start = g;
  EditResult first = apply_edit(g, "a", decide(TopologyOp::add_parallel, "p"));
  g.agent("p_1").prompt = "edited between the two edits";  // f_P runs between f_G calls
  EditResult second = apply_edit(g, "a", decide(TopologyOp::remove_successor, "p_1"));
  ASSERT_TRUE(first.applied && second.applied);
  EXPECT_EQ(second.removed_agents, (Ids{"p_1"}));
  const AgentGraph after_first = [&] {
    AgentGraph copy = g;
    EXPECT_TRUE(undo(copy, second));
    return copy;
  }();
  EXPECT_EQ(after_first.agent("p_1").prompt, "edited between the two edits");
  ASSERT_TRUE(undo(g, second));
  ASSERT_TRUE(undo(g, first));
  EXPECT_TRUE(g == start);
}

TEST(HivaTopologyEdit, UndoOfAnEditTheGraphNoLongerHoldsIsRefused) {
  AgentGraph g = chain();
  EditResult r = apply_edit(g, "a", decide(TopologyOp::connect_to_aggregator));
  ASSERT_TRUE(g.remove_edge("a", "aggregator"));
  const AgentGraph before = g;
  Status s = undo(g, r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("cannot undo CONNECT_TO_AGGREGATOR by \"a\""), std::string::npos);
  EXPECT_TRUE(g == before);
}

TEST(HivaTopologyEdit, OperationNames) {
  EXPECT_EQ(to_string(TopologyOp::add_parallel), "ADD_PARALLEL");
  EXPECT_EQ(to_string(TopologyOp::add_serial), "ADD_SERIAL");
  EXPECT_EQ(to_string(TopologyOp::remove_successor), "REMOVE_SUCCESSOR");
  EXPECT_EQ(to_string(TopologyOp::connect_to_aggregator), "CONNECT_TO_AGGREGATOR");
  EXPECT_EQ(to_string(TopologyOp::no_change), "NO_CHANGE");
}

}  // namespace topology_edit_test
}  // namespace kaisha::hiva
