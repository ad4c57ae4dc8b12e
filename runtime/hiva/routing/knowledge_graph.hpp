// The external knowledge graph KABB's cost function reads (hiva.md §3, App.
// D.3): typed nodes (concepts such as "Algebra", agents, tools such as
// "Code Interpreter") and typed directed edges, each node with keywords and,
// once embed_nodes() has run, a unit embedding.
//
// Edge directions, read as sentences "from <type> to":
//   is_a            concept -> concept   "Algebra is_a Mathematics" (child to parent)
//   requires_skill  concept|agent -> concept|tool
//                                        "Data Analysis requires_skill Statistics"
//   has_tool        concept|agent -> tool
//                                        "Arithmetic has_tool Calculator": work on
//                                        the concept is done with the tool
// A graph that loads promises: node ids are unique and non-empty, every edge
// joins two known, different nodes with kinds its type allows, and the root
// is a concept from which every concept is reached by following is_a edges
// backwards (parent to child), so every concept has a depth d_I.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/hiva/routing/embedding.hpp"

namespace kaisha::hiva {

enum class NodeKind { concept_, agent, tool };
enum class EdgeType { is_a, requires_skill, has_tool };

const char* to_string(NodeKind kind);  // "concept", "agent", "tool"
const char* to_string(EdgeType type);  // "is_a", "requires_skill", "has_tool"

struct KgNode {
  std::string id;
  NodeKind kind = NodeKind::concept_;
  std::string label;
  // keywords_of() of the label and of each listed keyword: sorted, unique.
  std::vector<std::string> keywords;
};

struct KgEdge {
  size_t from = 0;  // node indices
  size_t to = 0;
  EdgeType type = EdgeType::is_a;
};

class KnowledgeGraph {
 public:
  // The root's id when the JSON names none.
  static constexpr std::string_view kDefaultRoot = "task";

  // Checks the promises above; an error names the offending node or edge by
  // its index ("edges[3]: ...").
  static Result<KnowledgeGraph> create(std::vector<KgNode> nodes, std::vector<KgEdge> edges, std::string_view root_id);

  const std::vector<KgNode>& nodes() const { return nodes_; }
  const std::vector<KgEdge>& edges() const { return edges_; }
  size_t root() const { return root_; }
  std::optional<size_t> find(std::string_view id) const;

  // d_I: the fewest is_a edges from `node` up to the root (0 for
  // the root itself). Defined for every concept; -1 for agents and tools.
  int depth(size_t node) const { return depth_[node]; }

  // The fewest edges between two nodes with every edge walked either way;
  // nullopt when no path joins them.
  std::optional<int> undirected_distance(size_t from, size_t to) const;
  // The fewest edges from any of `from` to `to`, walked either way.
  std::optional<int> undirected_distance(const std::vector<size_t>& from, size_t to) const;
  // The longest undirected_distance between two joined nodes (0 for a graph
  // without edges).
  int diameter() const { return diameter_; }

  // The tools reached from `node` by following requires_skill and has_tool
  // edges forwards, in node order. is_a is not followed: a concept does not
  // need every tool of its parent ("Task" would otherwise need them all).
  std::vector<size_t> required_tools(size_t node) const;

  // Each node's text, in node order: its label, then its keywords, space
  // separated (what embed_nodes embeds; an embedder answering over the
  // network can take them in one batch).
  std::vector<std::string> node_texts() const;
  // Embeds every node's text with `embed`, scaled to unit length.
  void embed_nodes(const Embed& embed);
  bool embedded() const { return !embeddings_.empty(); }
  // Empty before embed_nodes().
  const Embedding& embedding(size_t node) const;

  // The concept whose embedding is most similar to `v` (cosine), ties and
  // all-zero similarities going to the first in node order; the root when
  // the graph is not embedded.
  size_t most_similar_concept(const Embedding& v) const;

 private:
  KnowledgeGraph() = default;
  std::vector<int> distances_from(const std::vector<size_t>& sources) const;

  std::vector<KgNode> nodes_;
  std::vector<KgEdge> edges_;
  std::unordered_map<std::string, size_t> index_;
  size_t root_ = 0;
  std::vector<int> depth_;
  std::vector<std::vector<size_t>> neighbours_;  // undirected
  int diameter_ = 0;
  std::vector<Embedding> embeddings_;
};

// Reads the JSON form:
//   {"root": "task",                       (optional, default "task")
//    "nodes": [{"id": "task", "kind": "concept", "label": "Task",
//               "keywords": ["task", "goal"]}, ...],   (label, keywords optional)
//    "edges": [{"from": "coding", "to": "task", "type": "is_a"}, ...]}
// Unknown keys are errors (a misspelt "keywrods" would otherwise be lost).
// An error is Error{"config", message} whose message names the path, e.g.
// `edges[3].type: expected is_a, requires_skill or has_tool, got "owns"`.
Result<KnowledgeGraph> knowledge_graph_from_json(const json& document);

// Reads and parses a JSON file (e.g. data_file("data/hiva/knowledge.json"));
// errors name the file.
Result<KnowledgeGraph> read_knowledge_graph(const std::string& path);

}  // namespace kaisha::hiva
