#include "runtime/hiva/routing/knowledge_graph.hpp"

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/json_parse_error.hpp"
#include "runtime/core/params_check.hpp"
#include "runtime/hiva/routing/keywords.hpp"

namespace kaisha::hiva {

namespace {

constexpr int kUnreached = -1;

Error graph_config_error(std::string message) { return Error{"config", std::move(message)}; }

std::string json_quoted(std::string_view s) { return json(std::string(s)).dump(); }

bool allowed(EdgeType type, NodeKind from, NodeKind to) {
  switch (type) {
    case EdgeType::is_a:
      return from == NodeKind::concept_ && to == NodeKind::concept_;
    case EdgeType::requires_skill:
      return from != NodeKind::tool && to != NodeKind::agent;
    case EdgeType::has_tool:
      return from != NodeKind::tool && to == NodeKind::tool;
  }
  return false;
}

const char* allowed_text(EdgeType type) {
  switch (type) {
    case EdgeType::is_a:
      return "is_a joins a concept to a concept";
    case EdgeType::requires_skill:
      return "requires_skill goes from a concept or an agent to a concept or a tool";
    case EdgeType::has_tool:
      return "has_tool goes from a concept or an agent to a tool";
  }
  return "";
}

// Status of reading one JSON object: every key must be one of `known`.
Status only_keys(const json& object, const std::string& path, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return graph_config_error(path + ": unknown key " + json_quoted(key));
    }
  }
  return Status::Ok();
}

Result<std::string> string_at(const json& object, const std::string& path, const char* key, bool required) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (required) return graph_config_error(path + ": missing \"" + key + "\"");
    return std::string();
  }
  if (!it->is_string()) {
    return graph_config_error(path + "." + key + ": expected a string, got " + json_kind(*it));
  }
  return it->get<std::string>();
}

Result<KgNode> node_from_json(const json& j, const std::string& path) {
  if (!j.is_object()) return graph_config_error(path + ": expected an object, got " + json_kind(j));
  if (Status s = only_keys(j, path, {"id", "kind", "label", "keywords"}); !s) return s.error();
  KgNode node;
  auto id = string_at(j, path, "id", true);
  if (!id) return id.error();
  if (id->empty()) return graph_config_error(path + ".id: must not be empty");
  node.id = std::move(*id);
  auto kind = string_at(j, path, "kind", true);
  if (!kind) return kind.error();
  if (*kind == "concept") {
    node.kind = NodeKind::concept_;
  } else if (*kind == "agent") {
    node.kind = NodeKind::agent;
  } else if (*kind == "tool") {
    node.kind = NodeKind::tool;
  } else {
    return graph_config_error(path + ".kind: expected concept, agent or tool, got " + json_quoted(*kind));
  }
  auto label = string_at(j, path, "label", false);
  if (!label) return label.error();
  node.label = label->empty() ? node.id : std::move(*label);
  std::vector<std::string> texts{node.label};
  if (const auto it = j.find("keywords"); it != j.end()) {
    if (!it->is_array()) return graph_config_error(path + ".keywords: expected an array, got " + json_kind(*it));
    for (size_t i = 0; i < it->size(); ++i) {
      const json& k = (*it)[i];
      if (!k.is_string()) {
        return graph_config_error(path + ".keywords[" + std::to_string(i) + "]: expected a string, got " +
                                  json_kind(k));
      }
      texts.push_back(k.get<std::string>());
    }
  }
  node.keywords = keywords_of_all(texts);
  return node;
}

}  // namespace

const char* to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::concept_:
      return "concept";
    case NodeKind::agent:
      return "agent";
    case NodeKind::tool:
      return "tool";
  }
  return "unknown";
}

const char* to_string(EdgeType type) {
  switch (type) {
    case EdgeType::is_a:
      return "is_a";
    case EdgeType::requires_skill:
      return "requires_skill";
    case EdgeType::has_tool:
      return "has_tool";
  }
  return "unknown";
}

Result<KnowledgeGraph> KnowledgeGraph::create(std::vector<KgNode> nodes, std::vector<KgEdge> edges,
                                              std::string_view root_id) {
  KnowledgeGraph g;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = "nodes[" + std::to_string(i) + "]";
    if (nodes[i].id.empty()) return graph_config_error(where + ".id: must not be empty");
    const auto [it, inserted] = g.index_.emplace(nodes[i].id, i);
    if (!inserted) {
      return graph_config_error(where + ".id: " + json_quoted(nodes[i].id) + " is already the id of nodes[" +
                                std::to_string(it->second) + "]");
    }
  }
  for (size_t e = 0; e < edges.size(); ++e) {
    const std::string where = "edges[" + std::to_string(e) + "]";
    const KgEdge& edge = edges[e];
    if (edge.from >= nodes.size() || edge.to >= nodes.size()) {
      return graph_config_error(where + ": node index out of range");
    }
    if (edge.from == edge.to)
      return graph_config_error(where + ": " + json_quoted(nodes[edge.from].id) + " points at itself");
    if (!allowed(edge.type, nodes[edge.from].kind, nodes[edge.to].kind)) {
      return graph_config_error(where + ": " + allowed_text(edge.type) + ", but " + json_quoted(nodes[edge.from].id) +
                                " is a " + to_string(nodes[edge.from].kind) + " and " + json_quoted(nodes[edge.to].id) +
                                " is a " + to_string(nodes[edge.to].kind));
    }
  }
  const auto root = g.index_.find(std::string(root_id));
  if (root == g.index_.end()) return graph_config_error("root: no node has the id " + json_quoted(root_id));
  if (nodes[root->second].kind != NodeKind::concept_) {
    return graph_config_error("root: " + json_quoted(root_id) + " is a " + to_string(nodes[root->second].kind) +
                              ", not a concept");
  }
  g.root_ = root->second;
  g.nodes_ = std::move(nodes);
  g.edges_ = std::move(edges);

  // d_I: breadth-first from the root, walking is_a edges from parent to child.
  std::vector<std::vector<size_t>> children(g.nodes_.size());
  g.neighbours_.assign(g.nodes_.size(), {});
  for (const KgEdge& edge : g.edges_) {
    if (edge.type == EdgeType::is_a) children[edge.to].push_back(edge.from);
    g.neighbours_[edge.from].push_back(edge.to);
    g.neighbours_[edge.to].push_back(edge.from);
  }
  g.depth_.assign(g.nodes_.size(), kUnreached);
  std::deque<size_t> queue{g.root_};
  g.depth_[g.root_] = 0;
  while (!queue.empty()) {
    const size_t n = queue.front();
    queue.pop_front();
    for (size_t c : children[n]) {
      if (g.depth_[c] != kUnreached) continue;
      g.depth_[c] = g.depth_[n] + 1;
      queue.push_back(c);
    }
  }
  for (size_t i = 0; i < g.nodes_.size(); ++i) {
    if (g.nodes_[i].kind == NodeKind::concept_ && g.depth_[i] == kUnreached) {
      return graph_config_error("nodes[" + std::to_string(i) + "]: the concept " + json_quoted(g.nodes_[i].id) +
                                " is not under the root " + json_quoted(root_id) + " by is_a edges");
    }
  }
  for (size_t i = 0; i < g.nodes_.size(); ++i) {
    for (int d : g.distances_from({i})) g.diameter_ = std::max(g.diameter_, d);
  }
  return g;
}

std::optional<size_t> KnowledgeGraph::find(std::string_view id) const {
  const auto it = index_.find(std::string(id));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> KnowledgeGraph::distances_from(const std::vector<size_t>& sources) const {
  std::vector<int> dist(nodes_.size(), kUnreached);
  std::deque<size_t> queue;
  for (size_t s : sources) {
    if (dist[s] == kUnreached) {
      dist[s] = 0;
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    const size_t n = queue.front();
    queue.pop_front();
    for (size_t m : neighbours_[n]) {
      if (dist[m] != kUnreached) continue;
      dist[m] = dist[n] + 1;
      queue.push_back(m);
    }
  }
  return dist;
}

std::optional<int> KnowledgeGraph::undirected_distance(size_t from, size_t to) const {
  return undirected_distance(std::vector<size_t>{from}, to);
}

std::optional<int> KnowledgeGraph::undirected_distance(const std::vector<size_t>& from, size_t to) const {
  if (from.empty()) return std::nullopt;
  const int d = distances_from(from)[to];
  if (d == kUnreached) return std::nullopt;
  return d;
}

std::vector<size_t> KnowledgeGraph::required_tools(size_t node) const {
  std::vector<bool> seen(nodes_.size(), false);
  std::deque<size_t> queue{node};
  seen[node] = true;
  while (!queue.empty()) {
    const size_t n = queue.front();
    queue.pop_front();
    for (const KgEdge& edge : edges_) {
      if (edge.from != n || edge.type == EdgeType::is_a || seen[edge.to]) continue;
      seen[edge.to] = true;
      queue.push_back(edge.to);
    }
  }
  std::vector<size_t> tools;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (i != node && seen[i] && nodes_[i].kind == NodeKind::tool) tools.push_back(i);
  }
  return tools;
}

std::vector<std::string> KnowledgeGraph::node_texts() const {
  std::vector<std::string> out;
  out.reserve(nodes_.size());
  for (const KgNode& node : nodes_) {
    std::string text = node.label;
    for (const std::string& k : node.keywords) text += " " + k;
    out.push_back(std::move(text));
  }
  return out;
}

void KnowledgeGraph::embed_nodes(const Embed& embed) {
  std::vector<Embedding> out;
  out.reserve(nodes_.size());
  for (const std::string& text : node_texts()) out.push_back(unit(embed(text)));
  embeddings_ = std::move(out);
}

const Embedding& KnowledgeGraph::embedding(size_t node) const {
  static const Embedding kNone;
  return embeddings_.empty() ? kNone : embeddings_[node];
}

size_t KnowledgeGraph::most_similar_concept(const Embedding& v) const {
  size_t best = root_;
  double best_similarity = 0.0;
  bool found = false;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind != NodeKind::concept_) continue;
    const double similarity = cosine(embedding(i), v);
    if (!found || similarity > best_similarity) {
      best = i;
      best_similarity = similarity;
      found = true;
    }
  }
  return best;
}

Result<KnowledgeGraph> knowledge_graph_from_json(const json& document) {
  if (!document.is_object())
    return graph_config_error("knowledge graph: expected an object, got " + std::string(json_kind(document)));
  if (Status s = only_keys(document, "knowledge graph", {"root", "nodes", "edges"}); !s) return s.error();
  std::string root(KnowledgeGraph::kDefaultRoot);
  if (const auto it = document.find("root"); it != document.end()) {
    if (!it->is_string()) return graph_config_error(std::string("root: expected a string, got ") + json_kind(*it));
    root = it->get<std::string>();
  }
  const auto nodes_it = document.find("nodes");
  if (nodes_it == document.end()) return graph_config_error("knowledge graph: missing \"nodes\"");
  if (!nodes_it->is_array())
    return graph_config_error(std::string("nodes: expected an array, got ") + json_kind(*nodes_it));
  std::vector<KgNode> nodes;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < nodes_it->size(); ++i) {
    auto node = node_from_json((*nodes_it)[i], "nodes[" + std::to_string(i) + "]");
    if (!node) return node.error();
    // Checked here as well as in create(), so that the duplicate, not an
    // edge naming it, is what the error reports.
    const auto [it, inserted] = index.emplace(node->id, i);
    if (!inserted) {
      return graph_config_error("nodes[" + std::to_string(i) + "].id: " + json_quoted(node->id) +
                                " is already the id of nodes[" + std::to_string(it->second) + "]");
    }
    nodes.push_back(std::move(*node));
  }
  std::vector<KgEdge> edges;
  if (const auto it = document.find("edges"); it != document.end()) {
    if (!it->is_array()) return graph_config_error(std::string("edges: expected an array, got ") + json_kind(*it));
    for (size_t e = 0; e < it->size(); ++e) {
      const json& j = (*it)[e];
      const std::string path = "edges[" + std::to_string(e) + "]";
      if (!j.is_object()) return graph_config_error(path + ": expected an object, got " + json_kind(j));
      if (Status s = only_keys(j, path, {"from", "to", "type"}); !s) return s.error();
      KgEdge edge;
      for (const char* end : {"from", "to"}) {
        auto id = string_at(j, path, end, true);
        if (!id) return id.error();
        const auto found = index.find(*id);
        if (found == index.end())
          return graph_config_error(path + "." + end + ": no node has the id " + json_quoted(*id));
        (std::string_view(end) == "from" ? edge.from : edge.to) = found->second;
      }
      auto type = string_at(j, path, "type", true);
      if (!type) return type.error();
      if (*type == "is_a") {
        edge.type = EdgeType::is_a;
      } else if (*type == "requires_skill") {
        edge.type = EdgeType::requires_skill;
      } else if (*type == "has_tool") {
        edge.type = EdgeType::has_tool;
      } else {
        return graph_config_error(path + ".type: expected is_a, requires_skill or has_tool, got " + json_quoted(*type));
      }
      edges.push_back(edge);
    }
  }
  return KnowledgeGraph::create(std::move(nodes), std::move(edges), root);
}

Result<KnowledgeGraph> read_knowledge_graph(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  json document;
  try {
    document = json::parse(*text);
  } catch (const json::exception& e) {
    return graph_config_error(path + ": not JSON: " + json_parse_error_reason(e));
  }
  auto graph = knowledge_graph_from_json(document);
  if (!graph) return graph_config_error(path + ": " + graph.error().message);
  return graph;
}

}  // namespace kaisha::hiva
