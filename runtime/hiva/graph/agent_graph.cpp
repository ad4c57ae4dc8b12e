#include "runtime/hiva/graph/agent_graph.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "runtime/core/utf8.hpp"

namespace kaisha::hiva {
namespace {

Error refused(std::string why) { return Error{"hiva_graph", std::move(why)}; }

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool is_endpoint(std::string_view id) { return id == AgentGraph::kSource || id == AgentGraph::kAggregator; }

}  // namespace

void remember_task(GraphAgent& agent, const std::string& task, double success) {
  agent.history.push_back(TaskRecord{utf8::truncate(task, kMaxRecordedTaskBytes), success});
  if (agent.history.size() > kMaxTaskRecords)
    agent.history.erase(agent.history.begin(), agent.history.end() - kMaxTaskRecords);
}

const company::ToolVersion& register_tool_version(GraphAgent& agent, std::string code) {
  company::ToolVersions& v = agent.tool_versions;
  if (v.empty() && !agent.tool_code.empty()) v.add(agent.tool_code, std::max(1, agent.tool_version));
  // A first tool comes after the "no tool" version 0 (or whatever the graph counted).
  const company::ToolVersion& now = v.add(std::move(code), agent.tool_version + 1);
  agent.tool_code = now.code;
  agent.tool_version = now.version;
  return now;
}

AgentGraph AgentGraph::singleton(GraphAgent source, GraphAgent aggregator) {
  AgentGraph g;
  source.id = std::string(kSource);
  aggregator.id = std::string(kAggregator);
  g.agents_.push_back(std::move(source));
  g.agents_.push_back(std::move(aggregator));
  g.edges_.push_back(GraphEdge{std::string(kSource), std::string(kAggregator)});
  return g;
}

const GraphAgent& AgentGraph::agent(std::string_view id) const {
  if (const GraphAgent* a = find(id)) return *a;
  throw std::out_of_range("no agent " + in_quotes(id) + " in the HiVA graph");
}

GraphAgent& AgentGraph::agent(std::string_view id) {
  return const_cast<GraphAgent&>(static_cast<const AgentGraph&>(*this).agent(id));
}

const GraphAgent* AgentGraph::find(std::string_view id) const {
  std::size_t i = agent_index(id);
  return i < agents_.size() ? &agents_[i] : nullptr;
}

GraphAgent* AgentGraph::find(std::string_view id) {
  return const_cast<GraphAgent*>(static_cast<const AgentGraph&>(*this).find(id));
}

const GraphEdge* AgentGraph::find_edge(std::string_view from, std::string_view to) const {
  std::size_t i = edge_index(from, to);
  return i < edges_.size() ? &edges_[i] : nullptr;
}

GraphEdge* AgentGraph::find_edge(std::string_view from, std::string_view to) {
  return const_cast<GraphEdge*>(static_cast<const AgentGraph&>(*this).find_edge(from, to));
}

std::vector<std::string> AgentGraph::successors(std::string_view id) const {
  std::vector<std::string> out;
  for (const GraphEdge& e : edges_)
    if (e.from == id) out.push_back(e.to);
  return out;
}

std::vector<std::string> AgentGraph::predecessors(std::string_view id) const {
  std::vector<std::string> out;
  for (const GraphEdge& e : edges_)
    if (e.to == id) out.push_back(e.from);
  return out;
}

std::size_t AgentGraph::agent_index(std::string_view id) const {
  auto it = std::find_if(agents_.begin(), agents_.end(), [&](const GraphAgent& a) { return a.id == id; });
  return static_cast<std::size_t>(it - agents_.begin());
}

std::size_t AgentGraph::edge_index(std::string_view from, std::string_view to) const {
  auto it =
      std::find_if(edges_.begin(), edges_.end(), [&](const GraphEdge& e) { return e.from == from && e.to == to; });
  return static_cast<std::size_t>(it - edges_.begin());
}

Status AgentGraph::check_new_agent(const GraphAgent& agent) const {
  if (agent.id.empty()) return refused("an agent needs an id");
  if (find(agent.id)) return refused("agent " + in_quotes(agent.id) + " already exists");
  return Status::Ok();
}

Status AgentGraph::check_new_edge(const GraphEdge& e) const {
  std::string name = in_quotes(e.from) + " → " + in_quotes(e.to);
  if (!find(e.from)) return refused("edge " + name + ": no agent " + in_quotes(e.from));
  if (!find(e.to)) return refused("edge " + name + ": no agent " + in_quotes(e.to));
  if (e.from == e.to) return refused("edge " + name + ": an agent cannot be its own successor");
  if (e.from == kAggregator) return refused("edge " + name + ": the aggregator is the sink and has no successors");
  if (e.to == kSource) return refused("edge " + name + ": the source has no predecessors");
  if (has_edge(e.from, e.to)) return refused("edge " + name + " already exists");
  if (successors(e.from).size() >= static_cast<std::size_t>(kMaxSuccessors))
    return refused("edge " + name + ": " + in_quotes(e.from) + " already has " + std::to_string(kMaxSuccessors) +
                   " successors, the most an agent may have");
  return Status::Ok();
}

Status AgentGraph::add_agent(GraphAgent agent) { return insert_agent(agents_.size(), std::move(agent)); }

Status AgentGraph::insert_agent(std::size_t index, GraphAgent agent) {
  if (Status s = check_new_agent(agent); !s) return s;
  agents_.insert(agents_.begin() + static_cast<std::ptrdiff_t>(std::min(index, agents_.size())), std::move(agent));
  return Status::Ok();
}

Status AgentGraph::add_edge(GraphEdge edge) { return insert_edge(edges_.size(), std::move(edge)); }

Status AgentGraph::add_edge(std::string_view from, std::string_view to) {
  return add_edge(GraphEdge{std::string(from), std::string(to)});
}

Status AgentGraph::insert_edge(std::size_t index, GraphEdge edge) {
  if (Status s = check_new_edge(edge); !s) return s;
  edges_.insert(edges_.begin() + static_cast<std::ptrdiff_t>(std::min(index, edges_.size())), std::move(edge));
  return Status::Ok();
}

Status AgentGraph::remove_edge(std::string_view from, std::string_view to) {
  std::size_t i = edge_index(from, to);
  if (i == edges_.size()) return refused("no edge " + in_quotes(from) + " → " + in_quotes(to));
  edges_.erase(edges_.begin() + static_cast<std::ptrdiff_t>(i));
  return Status::Ok();
}

Status AgentGraph::remove_agent(std::string_view id) {
  if (is_endpoint(id)) return refused("the " + std::string(id) + " cannot be removed");
  std::size_t i = agent_index(id);
  if (i == agents_.size()) return refused("no agent " + in_quotes(id));
  std::erase_if(edges_, [&](const GraphEdge& e) { return e.from == id || e.to == id; });
  agents_.erase(agents_.begin() + static_cast<std::ptrdiff_t>(i));
  return Status::Ok();
}

void AgentGraph::reset_routed() {
  for (GraphEdge& e : edges_) e.routed = 0;
}

double AgentGraph::success_rate(const GraphEdge& edge) {
  if (edge.uses <= 0) return 1.0;
  return static_cast<double>(edge.successes) / static_cast<double>(edge.uses);
}

Result<std::vector<std::string>> AgentGraph::topological_order() const {
  // A scan for the first ready agent keeps the insertion-order tie break
  // obvious; graphs have tens of agents.
  std::unordered_map<std::string_view, std::size_t> at;
  for (std::size_t i = 0; i < agents_.size(); ++i) at.emplace(agents_[i].id, i);
  std::vector<std::vector<std::size_t>> out(agents_.size());
  std::vector<int> in_degree(agents_.size(), 0);
  for (const GraphEdge& e : edges_) {
    out[at.at(e.from)].push_back(at.at(e.to));
    ++in_degree[at.at(e.to)];
  }
  std::vector<bool> placed(agents_.size(), false);
  std::vector<std::string> order;
  while (order.size() < agents_.size()) {
    std::size_t next = agents_.size();
    for (std::size_t i = 0; i < agents_.size() && next == agents_.size(); ++i)
      if (!placed[i] && in_degree[i] == 0) next = i;
    if (next == agents_.size()) break;
    placed[next] = true;
    order.push_back(agents_[next].id);
    for (std::size_t to : out[next]) --in_degree[to];
  }
  if (order.size() == agents_.size()) return order;
  std::string stuck;
  for (std::size_t i = 0; i < agents_.size(); ++i)
    if (!placed[i]) stuck += (stuck.empty() ? "" : ", ") + in_quotes(agents_[i].id);
  return refused("the graph has a cycle: no topological order for " + stuck);
}

bool AgentGraph::has_cycle() const { return !topological_order().ok(); }

std::string AgentGraph::new_agent_id(std::string_view role) const {
  constexpr std::size_t kMaxSlug = 32;
  std::string slug;
  bool gap = false;
  for (char c : role) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      gap = !slug.empty();
      continue;
    }
    if (slug.size() + (gap ? 2 : 1) > kMaxSlug) break;
    if (gap) slug += '_';
    gap = false;
    slug += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  if (slug.empty()) slug = "agent";
  for (int n = 1;; ++n) {
    std::string id = slug + "_" + std::to_string(n);
    if (!find(id)) return id;
  }
}

}  // namespace kaisha::hiva
