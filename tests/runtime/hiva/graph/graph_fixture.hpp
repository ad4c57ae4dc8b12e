// Fixture graphs for the HiVA graph tests: agents named by their ids, edges
// written as (from, to) pairs, and the edge set to compare against.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/hiva/graph/agent_graph.hpp"

namespace kaisha::hiva::fixture {

using EdgeList = std::vector<std::pair<std::string, std::string>>;
using EdgeSet = std::set<std::pair<std::string, std::string>>;

inline GraphAgent named(const std::string& id) {
  GraphAgent a;
  a.id = id;
  a.role = id + " role";
  a.prompt = "You are " + id + ".";
  return a;
}

// source, aggregator, then `agents` in order; exactly `edges`, in order.
// Throws when the graph refuses one (a broken fixture, not a test result).
inline AgentGraph graph_of(const std::vector<std::string>& agents, const EdgeList& edges) {
  AgentGraph g = AgentGraph::singleton(named("source"), named("aggregator"));
  if (!g.remove_edge("source", "aggregator")) throw std::logic_error("fixture: no source → aggregator");
  for (const std::string& id : agents)
    if (Status s = g.add_agent(named(id)); !s) throw std::logic_error("fixture: " + s.error().message);
  for (const auto& [from, to] : edges)
    if (Status s = g.add_edge(from, to); !s) throw std::logic_error("fixture: " + s.error().message);
  return g;
}

inline EdgeList edge_list(const AgentGraph& g) {
  EdgeList out;
  for (const GraphEdge& e : g.edges()) out.emplace_back(e.from, e.to);
  return out;
}

inline EdgeSet edge_set(const AgentGraph& g) {
  EdgeList list = edge_list(g);
  return EdgeSet(list.begin(), list.end());
}

inline std::vector<std::string> agent_ids(const AgentGraph& g) {
  std::vector<std::string> out;
  for (const GraphAgent& a : g.agents()) out.push_back(a.id);
  return out;
}

}  // namespace kaisha::hiva::fixture
