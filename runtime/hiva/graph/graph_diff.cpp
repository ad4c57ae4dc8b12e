#include "runtime/hiva/graph/graph_diff.hpp"

namespace kaisha::hiva {
namespace {

json edge_list(const std::vector<GraphDiff::Edge>& edges) {
  json out = json::array();
  for (const auto& [from, to] : edges) out.push_back(json::array({from, to}));
  return out;
}

}  // namespace

GraphDiff diff_graphs(const AgentGraph& before, const AgentGraph& after) {
  GraphDiff d;
  for (const GraphAgent& a : after.agents()) {
    const GraphAgent* old = before.find(a.id);
    if (!old) {
      d.agents_added.push_back(a.id);
      continue;
    }
    if (old->prompt != a.prompt || old->prompt_version != a.prompt_version) d.prompts_changed.push_back(a.id);
    if (old->tool_code != a.tool_code || old->tool_version != a.tool_version ||
        old->tool_description != a.tool_description)
      d.tools_changed.push_back(a.id);
  }
  for (const GraphAgent& a : before.agents())
    if (!after.find(a.id)) d.agents_removed.push_back(a.id);
  for (const GraphEdge& e : after.edges())
    if (!before.has_edge(e.from, e.to)) d.edges_added.emplace_back(e.from, e.to);
  for (const GraphEdge& e : before.edges())
    if (!after.has_edge(e.from, e.to)) d.edges_removed.emplace_back(e.from, e.to);
  return d;
}

json to_json(const GraphDiff& diff) {
  return json{{"agents_added", diff.agents_added},          {"agents_removed", diff.agents_removed},
              {"edges_added", edge_list(diff.edges_added)}, {"edges_removed", edge_list(diff.edges_removed)},
              {"prompts_changed", diff.prompts_changed},    {"tools_changed", diff.tools_changed}};
}

}  // namespace kaisha::hiva
