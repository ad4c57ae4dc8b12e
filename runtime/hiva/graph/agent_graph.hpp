// HiVA's agent network (hiva.md §3, §14 items 1-2): a directed graph of
// agents from one source v_s to one sink aggregator v_a, each agent with its
// semantic parameters (prompt, tool) and bandit belief, each edge with its
// synergy, Beta posterior and success history.
//
// Promises:
//  - the source ("source") and the aggregator ("aggregator") always exist:
//    a graph is made by singleton() and neither can be removed;
//  - agents and edges keep insertion order, and every list the graph returns
//    (agents, edges, successors, predecessors, topological order) follows it,
//    so the same operations give the same graph and the same orders;
//  - edges have known ends, no self loops, no duplicates, no edge out of the
//    aggregator or into the source, and at most kMaxSuccessors out of one
//    agent. Cycles are NOT refused here: an edit may make one, which
//    topological_order() reports and repair_topology() reverts (§8);
//  - a refused change returns an Error saying why and changes nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/company/tool_versions.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::hiva {

// One task an agent worked on and how it did: what Ψ3, the historical
// mismatch, reads (hiva.md §6.2). The task's text is kept (at most
// kMaxRecordedTaskBytes of it) rather than its embedding, so a graph does not
// depend on the embedder that evolved it.
struct TaskRecord {
  std::string task;
  double success = 0;  // the agent's reward r for it, in [0, 1]

  bool operator==(const TaskRecord&) const = default;
};

inline constexpr std::size_t kMaxTaskRecords = 16;         // per agent; the oldest goes first
inline constexpr std::size_t kMaxRecordedTaskBytes = 300;  // of a task's text, cut at a code point
// Versions of an agent's tool kept in its graph (each with its code): the
// graph is written with every forward pass's event, so fewer than elsewhere.
inline constexpr std::size_t kMaxAgentToolVersions = 4;

struct GraphAgent {
  std::string id;
  std::string role;  // a short description ("Data retrieval agent")
  std::string prompt;
  int prompt_version = 1;
  std::string tool_code;  // Python source; empty when the agent has no tool
  std::string tool_description;
  int tool_version = 1;  // 0 when the agent has no tool
  // Every version of its tool registered by a semantic update, the current
  // one (tool_code, tool_version) last; empty while the tool was never
  // rewritten (a graph's first tool, a graph file older than format 3).
  company::ToolVersions tool_versions{kMaxAgentToolVersions};
  double alpha = 1, beta = 1;
  int visits = 0;
  int last_update = 0;  // the iteration of its last bandit update (Δt of §6.3)
  std::string last_gradient;
  int created = 0;                  // the iteration that created it
  std::vector<TaskRecord> history;  // oldest first, at most kMaxTaskRecords

  bool operator==(const GraphAgent&) const = default;
};

// Registers `code` as the agent's new tool through its versions: its tool
// until now is kept first when they lack it (as version tool_version), the
// new code is the next version, and tool_code and tool_version become it.
// Returns the version registered (the current one when `code` is it).
const company::ToolVersion& register_tool_version(GraphAgent& agent, std::string code);

// Appends (task, success) to the agent's history, the task cut to
// kMaxRecordedTaskBytes, dropping the oldest record beyond kMaxTaskRecords.
void remember_task(GraphAgent& agent, const std::string& task, double success);

struct GraphEdge {
  std::string from, to;
  double synergy = 0;  // C_syn(from, to), §6.5
  double alpha = 1, beta = 1;
  int uses = 0;       // passes in which `from` routed along it
  int successes = 0;  // of those, the ones that counted as a success
  int routed = 0;     // ℛ_ij of the current forward pass

  bool operator==(const GraphEdge&) const = default;
};

class AgentGraph {
 public:
  static constexpr std::string_view kSource = "source";
  static constexpr std::string_view kAggregator = "aggregator";
  static constexpr int kMaxSuccessors = 5;  // App. B.3

  // v_s → v_a (§4 "Initialize"). The two agents' ids are set to kSource and
  // kAggregator whatever they held.
  static AgentGraph singleton(GraphAgent source, GraphAgent aggregator);

  const std::vector<GraphAgent>& agents() const { return agents_; }
  const std::vector<GraphEdge>& edges() const { return edges_; }

  // agent() throws std::out_of_range for an unknown id; find() gives nullptr.
  const GraphAgent& agent(std::string_view id) const;
  GraphAgent& agent(std::string_view id);
  const GraphAgent* find(std::string_view id) const;
  GraphAgent* find(std::string_view id);

  const GraphEdge* find_edge(std::string_view from, std::string_view to) const;
  GraphEdge* find_edge(std::string_view from, std::string_view to);
  bool has_edge(std::string_view from, std::string_view to) const { return find_edge(from, to) != nullptr; }

  // In edge insertion order.
  std::vector<std::string> successors(std::string_view id) const;
  std::vector<std::string> predecessors(std::string_view id) const;

  // Refuses an empty or duplicate id.
  Status add_agent(GraphAgent agent);
  // Refuses what the class comment rules out; a 6th successor among them.
  Status add_edge(GraphEdge edge);
  Status add_edge(std::string_view from, std::string_view to);
  Status remove_edge(std::string_view from, std::string_view to);
  // Removes the agent and every edge touching it; never the source or the
  // aggregator.
  Status remove_agent(std::string_view id);

  // Position-keeping variants, so that an undo restores the exact orders:
  // the index an agent or edge has, and insertion at an index (clamped to
  // the end). The insertions check what add_agent / add_edge check.
  std::size_t agent_index(std::string_view id) const;  // size() when absent
  std::size_t edge_index(std::string_view from, std::string_view to) const;
  Status insert_agent(std::size_t index, GraphAgent agent);
  Status insert_edge(std::size_t index, GraphEdge edge);

  // ℛ_ij ← 0 on every edge, at the start of a forward pass (Algorithm 2).
  void reset_routed();

  // successes / uses. An unused edge has no evidence against it: its rate is
  // 1, so that efficiency pruning (§8 step 3) never removes a new edge.
  static double success_rate(const GraphEdge& edge);

  // Kahn's algorithm; among agents ready at the same time the one inserted
  // first goes first. An Error naming the agents left on or behind a cycle
  // when there is one.
  Result<std::vector<std::string>> topological_order() const;
  bool has_cycle() const;

  // A fresh id for an agent with this role: the role's ASCII letters and
  // digits, lower-cased, other runs as "_", at most 32 bytes ("agent" when
  // nothing is left, e.g. for a Japanese role), then "_" and the smallest
  // number >= 1 that no agent uses. An id can be used again after its agent
  // was removed.
  std::string new_agent_id(std::string_view role) const;

  // ω1..ω4 of the knowledge cost fitted for this graph by `kaisha evolve`
  // (routing/weight_fit.hpp); empty: the configured ones. graph_json checks
  // them; the graph only keeps them.
  const std::vector<double>& knowledge_weights() const { return knowledge_weights_; }
  void set_knowledge_weights(std::vector<double> weights) { knowledge_weights_ = std::move(weights); }

  bool operator==(const AgentGraph&) const = default;

 private:
  AgentGraph() = default;

  Status check_new_agent(const GraphAgent& agent) const;
  Status check_new_edge(const GraphEdge& edge) const;

  std::vector<GraphAgent> agents_;
  std::vector<GraphEdge> edges_;
  std::vector<double> knowledge_weights_;
};

}  // namespace kaisha::hiva
