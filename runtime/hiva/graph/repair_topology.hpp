// RepairTopology (hiva.md §8, §14 item 19), run after an iteration's f_G
// edits, in the paper's three steps:
//  1. while the graph has a cycle, the latest applied edit of the iteration
//     is reverted (undo); if the cycle outlives every edit (the graph came
//     in cyclic), the first back edge of a depth-first search (agents and
//     edges in insertion order) is removed instead;
//  2. every agent other than the source and the aggregator with no
//     predecessor or no successor is removed, repeatedly, until none is left
//     (no path stitching: routing finds the paths again);
//  3. every edge used at least `min_uses` times whose success rate is below
//     `prune_below` is removed, worst first (ties in insertion order), then
//     step 2 runs again.
// Our choices where the paper is silent: step 3 keeps an edge whose removal
// would leave the source unable to reach the aggregator (the last edge out
// of the source or into the aggregator, or a bridge between them), since a
// graph with no such path can give no answer; and if the source still
// cannot reach the aggregator at the end, v_s → v_a is added back (the
// singleton the paper starts from).
//
// Promises: on a graph without a cycle step 1 changes nothing; afterwards the
// graph has no cycle, every agent left lies on a path from the source to the
// aggregator, and the source reaches the aggregator. Every change is reported.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "runtime/hiva/graph/agent_graph.hpp"
#include "runtime/hiva/graph/topology_edit.hpp"

namespace kaisha::hiva {

struct RepairReport {
  using Edge = std::pair<std::string, std::string>;
  std::vector<std::size_t> reverted_edits;  // indices into the iteration's edits, latest first
  std::vector<Edge> broken_edges;           // back edges removed when no edit was left to revert
  std::vector<std::string> pruned_agents;   // step 2 (both runs), in removal order
  std::vector<Edge> pruned_edges;           // step 3
  std::vector<Edge> kept_for_connection;    // below the threshold, kept to keep v_s → … → v_a
  bool reconnected = false;                 // v_s → v_a was added back

  bool changed() const {
    return !reverted_edits.empty() || !broken_edges.empty() || !pruned_agents.empty() || !pruned_edges.empty() ||
           reconnected;
  }
};

RepairReport repair_topology(AgentGraph& graph, const std::vector<EditResult>& edits_this_iteration,
                             double prune_below = 0.3, int min_uses = 1);

}  // namespace kaisha::hiva
