// What changed between two HiVA graphs: the per-iteration Δs_t of the log
// (hiva.md §14 items 3 and 21) and what `kaisha graphs` shows.
//
// Promises: lists follow `after`'s order for what it has and `before`'s for
// what it lost; an agent in both counts as changed when its prompt or its
// tool changed, text or version (the version alone can miss a rewrite that
// kept it). Bandit state, visits and edge statistics are not differences
// here: they move every iteration.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/hiva/graph/agent_graph.hpp"

namespace kaisha::hiva {

struct GraphDiff {
  using Edge = std::pair<std::string, std::string>;
  std::vector<std::string> agents_added, agents_removed;
  std::vector<Edge> edges_added, edges_removed;
  std::vector<std::string> prompts_changed, tools_changed;

  bool empty() const {
    return agents_added.empty() && agents_removed.empty() && edges_added.empty() && edges_removed.empty() &&
           prompts_changed.empty() && tools_changed.empty();
  }
  bool operator==(const GraphDiff&) const = default;
};

GraphDiff diff_graphs(const AgentGraph& before, const AgentGraph& after);

// {"agents_added": [ids], "agents_removed": [...], "edges_added":
// [[from, to], ...], "edges_removed": [...], "prompts_changed": [...],
// "tools_changed": [...]}
json to_json(const GraphDiff& diff);

}  // namespace kaisha::hiva
