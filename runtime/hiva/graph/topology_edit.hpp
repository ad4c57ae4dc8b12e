// f_G, HiVA's topological evolution (hiva.md §7.4, §14 item 16): one agent's
// decision about its local topology, applied to the graph, and its exact
// undo (RepairTopology reverts an edit that made a cycle, §8 step 1).
//
// With A the deciding agent:
//  - ADD_PARALLEL: A→B→C becomes A→{B, D}→C. The new agent D takes the
//    downstream of A's existing successors: the successors of each, or the
//    aggregator itself where a successor is the aggregator; the aggregator
//    when that leaves nothing;
//  - ADD_SERIAL: A→B→C becomes A→D→B→C: D sits between A and all its
//    successors (D → aggregator when A had none);
//  - REMOVE_SUCCESSOR: the target is named by id, by 0-based index among
//    A's successors, or "least_visited" (fewest visits, the aggregator
//    excluded, ties to the first). A→target goes, A gains the target's
//    successors, and the target is deleted if nothing else points to it.
//    The aggregator is never removed;
//  - CONNECT_TO_AGGREGATOR: adds A→aggregator;
//  - NO_CHANGE: applied, changes nothing.
// New edges start fresh (no synergy, Beta(1, 1), no history).
//
// Promises: an edit that would give any agent more than 5 successors, an
// edit by the aggregator (it never edits topology, §4 [CODE]) or by an
// unknown agent is refused with a reason and leaves the graph unchanged;
// undo() of the latest applied edit restores the graph exactly, orders and
// the removed agents' and edges' state included.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/hiva/graph/agent_graph.hpp"

namespace kaisha::hiva {

enum class TopologyOp { add_parallel, add_serial, remove_successor, connect_to_aggregator, no_change };

// The Fig. 10 words: "ADD_PARALLEL", "ADD_SERIAL", "REMOVE_SUCCESSOR",
// "CONNECT_TO_AGGREGATOR", "NO_CHANGE".
std::string_view to_string(TopologyOp op);

struct TopologyDecision {
  TopologyOp op = TopologyOp::no_change;
  // ADD_*: the new agent's description; REMOVE_SUCCESSOR: the target (id,
  // 0-based index or "least_visited"); NO_CHANGE: the reason.
  std::string argument;
};

// One structural change an edit made, with what it takes to invert it.
struct GraphChange {
  enum class Kind { add_agent, remove_agent, add_edge, remove_edge };
  Kind kind = Kind::add_edge;
  std::size_t index = 0;  // the agent's or edge's position before a removal / after an addition
  GraphAgent agent;       // for the agent kinds: the agent as it was
  GraphEdge edge;         // for the edge kinds: the edge as it was

  bool operator==(const GraphChange&) const = default;
};

struct EditResult {
  std::string agent;  // who decided
  TopologyOp op = TopologyOp::no_change;
  bool applied = false;
  std::string reason;  // why it was refused; empty when applied
  std::vector<std::string> added_agents, removed_agents;
  std::vector<std::pair<std::string, std::string>> added_edges, removed_edges;
  std::vector<GraphChange> changes;  // in the order made
};

// Applies `decision` by `agent`. For an ADD, `new_agent` is the agent to
// insert (its prompt written by the driver); an empty id becomes
// graph.new_agent_id(role) and an empty role the decision's description.
EditResult apply_edit(AgentGraph& graph, const std::string& agent, const TopologyDecision& decision,
                      GraphAgent new_agent = {});

// Reverts an applied edit. Exact when no later structural change is still in
// place (undo edits latest first). An Error, and the graph unchanged, when
// the graph no longer holds what the edit made.
Status undo(AgentGraph& graph, const EditResult& edit);

}  // namespace kaisha::hiva
