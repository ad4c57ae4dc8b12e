#include "runtime/hiva/graph/topology_edit.hpp"

#include <algorithm>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::hiva {
namespace {

const std::string kAggregatorId(AgentGraph::kAggregator);

std::string quoted_id(std::string_view s) { return "\"" + std::string(s) + "\""; }

// The graph being edited (a copy, committed only when the whole edit
// succeeds) and the log of what was done to it.
class Recorder {
 public:
  explicit Recorder(AgentGraph graph) : graph_(std::move(graph)) {}

  AgentGraph& graph() { return graph_; }
  std::vector<GraphChange>& changes() { return changes_; }

  Status add_agent(GraphAgent agent) {
    std::size_t at = graph_.agents().size();
    if (Status s = graph_.add_agent(agent); !s) return s;
    changes_.push_back(GraphChange{GraphChange::Kind::add_agent, at, std::move(agent), {}});
    return Status::Ok();
  }

  Status add_edge(const std::string& from, const std::string& to) {
    std::size_t at = graph_.edges().size();
    if (Status s = graph_.add_edge(from, to); !s) return s;
    changes_.push_back(GraphChange{GraphChange::Kind::add_edge, at, {}, *graph_.find_edge(from, to)});
    return Status::Ok();
  }

  Status remove_edge(const std::string& from, const std::string& to) {
    std::size_t at = graph_.edge_index(from, to);
    if (at == graph_.edges().size()) return Error{"hiva_graph", "no edge " + quoted_id(from) + " → " + quoted_id(to)};
    GraphEdge edge = graph_.edges()[at];
    if (Status s = graph_.remove_edge(from, to); !s) return s;
    changes_.push_back(GraphChange{GraphChange::Kind::remove_edge, at, {}, std::move(edge)});
    return Status::Ok();
  }

  // Its edges one by one first, so that each is logged with its position.
  Status remove_agent(const std::string& id) {
    for (std::size_t i = graph_.edges().size(); i-- > 0;) {
      GraphEdge e = graph_.edges()[i];
      if (e.from == id || e.to == id)
        if (Status s = remove_edge(e.from, e.to); !s) return s;
    }
    std::size_t at = graph_.agent_index(id);
    if (at == graph_.agents().size()) return Error{"hiva_graph", "no agent " + quoted_id(id)};
    GraphAgent agent = graph_.agents()[at];
    if (Status s = graph_.remove_agent(id); !s) return s;
    changes_.push_back(GraphChange{GraphChange::Kind::remove_agent, at, std::move(agent), {}});
    return Status::Ok();
  }

 private:
  AgentGraph graph_;
  std::vector<GraphChange> changes_;
};

Status check_room(const std::string& agent, std::size_t successors) {
  if (successors <= static_cast<std::size_t>(AgentGraph::kMaxSuccessors)) return Status::Ok();
  return Error{"hiva_graph", quoted_id(agent) + " would have " + std::to_string(successors) + " successors; at most " +
                                 std::to_string(AgentGraph::kMaxSuccessors) + " are allowed"};
}

void append_unique(std::vector<std::string>& list, const std::string& id) {
  if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
}

Status add_parallel(Recorder& r, const std::string& a, GraphAgent d) {
  std::vector<std::string> successors = r.graph().successors(a);
  if (Status s = check_room(a, successors.size() + 1); !s) return s;
  std::vector<std::string> downstream;
  for (const std::string& s : successors) {
    if (s == kAggregatorId) append_unique(downstream, s);
    for (const std::string& t : r.graph().successors(s)) append_unique(downstream, t);
  }
  if (downstream.empty()) downstream.push_back(kAggregatorId);
  if (Status s = check_room(d.id, downstream.size()); !s) return s;
  std::string id = d.id;
  if (Status s = r.add_agent(std::move(d)); !s) return s;
  if (Status s = r.add_edge(a, id); !s) return s;
  for (const std::string& t : downstream)
    if (Status s = r.add_edge(id, t); !s) return s;
  return Status::Ok();
}

Status add_serial(Recorder& r, const std::string& a, GraphAgent d) {
  std::vector<std::string> successors = r.graph().successors(a);
  if (successors.empty()) successors.push_back(kAggregatorId);
  std::string id = d.id;
  if (Status s = r.add_agent(std::move(d)); !s) return s;
  for (const std::string& s : successors)
    if (r.graph().has_edge(a, s))
      if (Status st = r.remove_edge(a, s); !st) return st;
  if (Status s = r.add_edge(a, id); !s) return s;
  for (const std::string& s : successors)
    if (Status st = r.add_edge(id, s); !st) return st;
  return Status::Ok();
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

Result<std::string> removal_target(const AgentGraph& g, const std::string& a, std::string_view argument) {
  std::vector<std::string> successors = g.successors(a);
  if (successors.empty()) return Error{"hiva_graph", quoted_id(a) + " has no successor to remove"};
  std::string_view target = trimmed(argument);
  if (std::find(successors.begin(), successors.end(), target) != successors.end()) return std::string(target);
  if (all_digits(target)) {
    std::size_t i = std::stoul(std::string(target));
    if (i < successors.size()) return successors[i];
    return Error{"hiva_graph", "successor index " + std::string(target) + " is out of range: " + quoted_id(a) +
                                   " has " + std::to_string(successors.size()) + " (0-based)"};
  }
  if (ascii_lower(target) == "least_visited") {
    const GraphAgent* least = nullptr;
    for (const std::string& s : successors)
      if (s != kAggregatorId && (!least || g.agent(s).visits < least->visits)) least = &g.agent(s);
    if (!least) return Error{"hiva_graph", quoted_id(a) + " has no successor other than the aggregator"};
    return least->id;
  }
  return Error{"hiva_graph", quoted_id(a) + " has no successor " + quoted_id(target) +
                                 " (expected a successor's id, its 0-based index or least_visited)"};
}

Status remove_successor(Recorder& r, const std::string& a, const std::string& argument) {
  Result<std::string> target = removal_target(r.graph(), a, argument);
  if (!target) return target.error();
  const std::string b = *target;
  if (b == kAggregatorId) return Error{"hiva_graph", "the aggregator is never removed"};
  std::vector<std::string> rewired;
  for (const std::string& t : r.graph().successors(b))
    if (t != a && !r.graph().has_edge(a, t)) rewired.push_back(t);
  if (Status s = check_room(a, r.graph().successors(a).size() - 1 + rewired.size()); !s) return s;
  // The edge goes first, so that A never holds more than 5 successors.
  if (Status s = r.remove_edge(a, b); !s) return s;
  for (const std::string& t : rewired)
    if (Status s = r.add_edge(a, t); !s) return s;
  if (r.graph().predecessors(b).empty()) return r.remove_agent(b);
  return Status::Ok();
}

Status connect_to_aggregator(Recorder& r, const std::string& a) {
  if (r.graph().has_edge(a, kAggregatorId))
    return Error{"hiva_graph", quoted_id(a) + " already routes to the aggregator"};
  return r.add_edge(a, kAggregatorId);
}

Status edit(Recorder& r, const std::string& a, const TopologyDecision& decision, GraphAgent new_agent) {
  if (!r.graph().find(a)) return Error{"hiva_graph", "no agent " + quoted_id(a)};
  if (a == kAggregatorId) return Error{"hiva_graph", "the aggregator never edits topology"};
  bool adds = decision.op == TopologyOp::add_parallel || decision.op == TopologyOp::add_serial;
  if (adds) {
    if (new_agent.role.empty()) new_agent.role = decision.argument;
    if (new_agent.id.empty()) new_agent.id = r.graph().new_agent_id(new_agent.role);
  }
  switch (decision.op) {
    case TopologyOp::add_parallel:
      return add_parallel(r, a, std::move(new_agent));
    case TopologyOp::add_serial:
      return add_serial(r, a, std::move(new_agent));
    case TopologyOp::remove_successor:
      return remove_successor(r, a, decision.argument);
    case TopologyOp::connect_to_aggregator:
      return connect_to_aggregator(r, a);
    case TopologyOp::no_change:
      return Status::Ok();
  }
  return Error{"hiva_graph", "unknown topology operation"};
}

}  // namespace

std::string_view to_string(TopologyOp op) {
  switch (op) {
    case TopologyOp::add_parallel:
      return "ADD_PARALLEL";
    case TopologyOp::add_serial:
      return "ADD_SERIAL";
    case TopologyOp::remove_successor:
      return "REMOVE_SUCCESSOR";
    case TopologyOp::connect_to_aggregator:
      return "CONNECT_TO_AGGREGATOR";
    case TopologyOp::no_change:
      return "NO_CHANGE";
  }
  return "UNKNOWN";
}

EditResult apply_edit(AgentGraph& graph, const std::string& agent, const TopologyDecision& decision,
                      GraphAgent new_agent) {
  EditResult result;
  result.agent = agent;
  result.op = decision.op;
  Recorder r(graph);
  if (Status s = edit(r, agent, decision, std::move(new_agent)); !s) {
    result.reason = std::string(to_string(decision.op)) + " by " + quoted_id(agent) + " refused: " + s.error().message;
    return result;
  }
  result.applied = true;
  for (const GraphChange& c : r.changes()) {
    switch (c.kind) {
      case GraphChange::Kind::add_agent:
        result.added_agents.push_back(c.agent.id);
        break;
      case GraphChange::Kind::remove_agent:
        result.removed_agents.push_back(c.agent.id);
        break;
      case GraphChange::Kind::add_edge:
        result.added_edges.emplace_back(c.edge.from, c.edge.to);
        break;
      case GraphChange::Kind::remove_edge:
        result.removed_edges.emplace_back(c.edge.from, c.edge.to);
        break;
    }
  }
  result.changes = std::move(r.changes());
  graph = std::move(r.graph());
  return result;
}

Status undo(AgentGraph& graph, const EditResult& edit) {
  if (!edit.applied) return Status::Ok();
  AgentGraph g = graph;
  for (auto c = edit.changes.rbegin(); c != edit.changes.rend(); ++c) {
    Status s;
    switch (c->kind) {
      case GraphChange::Kind::add_agent:
        s = g.remove_agent(c->agent.id);
        break;
      case GraphChange::Kind::remove_agent:
        s = g.insert_agent(c->index, c->agent);
        break;
      case GraphChange::Kind::add_edge:
        s = g.remove_edge(c->edge.from, c->edge.to);
        break;
      case GraphChange::Kind::remove_edge:
        s = g.insert_edge(c->index, c->edge);
        break;
    }
    if (!s)
      return Error{"hiva_graph", "cannot undo " + std::string(to_string(edit.op)) + " by " + quoted_id(edit.agent) +
                                     ": " + s.error().message};
  }
  graph = std::move(g);
  return Status::Ok();
}

}  // namespace kaisha::hiva
