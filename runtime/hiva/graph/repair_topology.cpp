#include "runtime/hiva/graph/repair_topology.hpp"

#include <algorithm>
#include <optional>

namespace kaisha::hiva {
namespace {

const std::string kSourceId(AgentGraph::kSource);
const std::string aggregator_id(AgentGraph::kAggregator);

bool source_reaches_aggregator(const AgentGraph& g) {
  std::vector<std::string> seen{kSourceId}, frontier{kSourceId};
  while (!frontier.empty()) {
    std::string at = frontier.back();
    frontier.pop_back();
    if (at == aggregator_id) return true;
    for (const std::string& next : g.successors(at))
      if (std::find(seen.begin(), seen.end(), next) == seen.end()) {
        seen.push_back(next);
        frontier.push_back(next);
      }
  }
  return false;
}

// The first edge that closes a cycle, in a DFS from each agent in insertion
// order.
class BackEdgeSearch {
 public:
  explicit BackEdgeSearch(const AgentGraph& g) : g_(g), colour_(g.agents().size(), 0) {}

  std::optional<RepairReport::Edge> find() {
    for (std::size_t i = 0; i < g_.agents().size(); ++i)
      if (colour_[i] == 0)
        if (auto e = visit(i)) return e;
    return std::nullopt;
  }

 private:
  std::optional<RepairReport::Edge> visit(std::size_t i) {
    colour_[i] = 1;  // on the current path
    const std::string& id = g_.agents()[i].id;
    for (const std::string& next : g_.successors(id)) {
      std::size_t j = g_.agent_index(next);
      if (colour_[j] == 1) return RepairReport::Edge{id, next};
      if (colour_[j] == 0)
        if (auto e = visit(j)) return e;
    }
    colour_[i] = 2;  // done
    return std::nullopt;
  }

  const AgentGraph& g_;
  std::vector<int> colour_;
};

void break_cycles(AgentGraph& g, const std::vector<EditResult>& edits, RepairReport& report) {
  std::size_t next = edits.size();  // edits at or after `next` were tried
  while (g.has_cycle()) {
    bool reverted = false;
    while (next > 0 && !reverted) {
      --next;
      const EditResult& e = edits[next];
      if (!e.applied || e.changes.empty()) continue;
      if (undo(g, e)) {
        report.reverted_edits.push_back(next);
        reverted = true;
      }
    }
    if (reverted) continue;
    std::optional<RepairReport::Edge> back = BackEdgeSearch(g).find();
    if (!back) break;  // has_cycle() and no back edge cannot both hold
    (void)g.remove_edge(back->first, back->second);
    report.broken_edges.push_back(*back);
  }
}

void prune_isolated(AgentGraph& g, RepairReport& report) {
  for (bool removed = true; removed;) {
    removed = false;
    for (const GraphAgent& a : g.agents()) {
      if (a.id == kSourceId || a.id == aggregator_id) continue;
      if (g.predecessors(a.id).empty() || g.successors(a.id).empty()) {
        std::string id = a.id;  // `a` dies with the removal
        (void)g.remove_agent(id);
        report.pruned_agents.push_back(id);
        removed = true;
        break;
      }
    }
  }
}

void prune_inefficient(AgentGraph& g, double prune_below, int min_uses, RepairReport& report) {
  // Worst first, so that when connection forces a choice the better edge
  // stays; ties in insertion order.
  std::vector<GraphEdge> candidates;
  for (const GraphEdge& e : g.edges())
    if (e.uses >= min_uses && AgentGraph::success_rate(e) < prune_below) candidates.push_back(e);
  std::stable_sort(candidates.begin(), candidates.end(), [](const GraphEdge& x, const GraphEdge& y) {
    return AgentGraph::success_rate(x) < AgentGraph::success_rate(y);
  });
  for (const GraphEdge& e : candidates) {
    bool connected = source_reaches_aggregator(g);
    AgentGraph without = g;
    (void)without.remove_edge(e.from, e.to);
    if (connected && !source_reaches_aggregator(without)) {
      report.kept_for_connection.emplace_back(e.from, e.to);
      continue;
    }
    g = std::move(without);
    report.pruned_edges.emplace_back(e.from, e.to);
  }
}

}  // namespace

RepairReport repair_topology(AgentGraph& graph, const std::vector<EditResult>& edits_this_iteration, double prune_below,
                             int min_uses) {
  RepairReport report;
  break_cycles(graph, edits_this_iteration, report);
  prune_isolated(graph, report);
  prune_inefficient(graph, prune_below, min_uses, report);
  prune_isolated(graph, report);
  if (!source_reaches_aggregator(graph) && graph.add_edge(kSourceId, aggregator_id)) report.reconnected = true;
  return report;
}

}  // namespace kaisha::hiva
