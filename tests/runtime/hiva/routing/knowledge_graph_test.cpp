#include "runtime/hiva/routing/knowledge_graph.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/runtime/hiva/routing/toy_embedder.hpp"

namespace kaisha::hiva {
namespace knowledge_graph_test {

// Task ─┬─ Math ── Algebra ── has_tool ── Calculator
//       └─ Coding ── Python ── has_tool ── Interpreter
//                    Testing ─ is_a Coding, requires_skill Python
json toy_json() {
  return json::parse(R"({
    "nodes": [
      {"id": "task", "kind": "concept", "label": "Task"},
      {"id": "math", "kind": "concept", "label": "Math", "keywords": ["Mathematics"]},
      {"id": "algebra", "kind": "concept", "label": "Algebra", "keywords": ["equation"]},
      {"id": "coding", "kind": "concept", "label": "Coding"},
      {"id": "python", "kind": "concept", "label": "Python", "keywords": ["script"]},
      {"id": "testing", "kind": "concept", "label": "Testing"},
      {"id": "calculator", "kind": "tool", "label": "Calculator"},
      {"id": "interpreter", "kind": "tool", "label": "Code Interpreter"}
    ],
    "edges": [
      {"from": "math", "to": "task", "type": "is_a"},
      {"from": "algebra", "to": "math", "type": "is_a"},
      {"from": "coding", "to": "task", "type": "is_a"},
      {"from": "python", "to": "coding", "type": "is_a"},
      {"from": "testing", "to": "coding", "type": "is_a"},
      {"from": "testing", "to": "python", "type": "requires_skill"},
      {"from": "algebra", "to": "calculator", "type": "has_tool"},
      {"from": "python", "to": "interpreter", "type": "has_tool"}
    ]})");
}

size_t at(const KnowledgeGraph& g, const char* id) {
  const auto i = g.find(id);
  EXPECT_TRUE(i.has_value()) << id;
  return i.value_or(0);
}

std::string error_of(const json& document) {
  auto g = knowledge_graph_from_json(document);
  EXPECT_FALSE(g.ok());
  return g.ok() ? "" : g.error().message;
}

TEST(HivaKnowledgeGraph, DepthIsTheIsAHopsBelowTheRoot) {
  auto g = knowledge_graph_from_json(toy_json());
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->root(), at(*g, "task"));
  EXPECT_EQ(g->depth(at(*g, "task")), 0);
  EXPECT_EQ(g->depth(at(*g, "math")), 1);
  EXPECT_EQ(g->depth(at(*g, "algebra")), 2);
  EXPECT_EQ(g->depth(at(*g, "testing")), 2);
  EXPECT_EQ(g->depth(at(*g, "calculator")), -1);
}

TEST(HivaKnowledgeGraph, KeepsKindsLabelsAndNormalisedKeywords) {
  auto g = knowledge_graph_from_json(toy_json());
  ASSERT_TRUE(g.ok()) << g.error().message;
  const KgNode& math = g->nodes()[at(*g, "math")];
  EXPECT_EQ(math.kind, NodeKind::concept_);
  EXPECT_EQ(math.label, "Math");
  EXPECT_EQ(math.keywords, (std::vector<std::string>{"math", "mathematics"}));
  EXPECT_EQ(g->nodes()[at(*g, "interpreter")].keywords, (std::vector<std::string>{"code", "interpreter"}));
  EXPECT_EQ(g->nodes()[at(*g, "interpreter")].kind, NodeKind::tool);
  EXPECT_EQ(g->edges().size(), 8u);
}

TEST(HivaKnowledgeGraph, UndirectedDistancesAndDiameter) {
  auto g = knowledge_graph_from_json(toy_json());
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->undirected_distance(at(*g, "algebra"), at(*g, "python")), 4);  // algebra-math-task-coding-python
  EXPECT_EQ(g->undirected_distance(at(*g, "testing"), at(*g, "python")), 1);  // requires_skill, walked either way
  EXPECT_EQ(g->undirected_distance({at(*g, "testing"), at(*g, "math")}, at(*g, "algebra")), 1);
  EXPECT_EQ(g->undirected_distance(std::vector<size_t>{}, at(*g, "algebra")), std::nullopt);
  // calculator-algebra-math-task-coding-python-interpreter
  EXPECT_EQ(g->diameter(), 6);
}

TEST(HivaKnowledgeGraph, RequiredToolsFollowRequiresSkillAndHasToolButNotIsA) {
  auto g = knowledge_graph_from_json(toy_json());
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->required_tools(at(*g, "algebra")), (std::vector<size_t>{at(*g, "calculator")}));
  EXPECT_EQ(g->required_tools(at(*g, "testing")), (std::vector<size_t>{at(*g, "interpreter")}));
  EXPECT_TRUE(g->required_tools(at(*g, "math")).empty());
  EXPECT_TRUE(g->required_tools(at(*g, "task")).empty());
}

TEST(HivaKnowledgeGraph, MostSimilarConceptUsesEmbeddingsAndBreaksTiesByNodeOrder) {
  auto g = knowledge_graph_from_json(toy_json());
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_FALSE(g->embedded());
  EXPECT_EQ(g->most_similar_concept({1.0f, 0.0f}), g->root());
  g->embed_nodes(testing::axis_embedder({{"algebra", 0}, {"equation", 0}, {"python", 1}, {"coding", 2}}, 3));
  ASSERT_TRUE(g->embedded());
  EXPECT_NEAR(cosine(g->embedding(at(*g, "algebra")), {1.0f, 0.0f, 0.0f}), 1.0, 1e-7);
  EXPECT_EQ(g->most_similar_concept({1.0f, 0.0f, 0.0f}), at(*g, "algebra"));
  EXPECT_EQ(g->most_similar_concept({0.0f, 1.0f, 0.0f}), at(*g, "python"));
  // Coding and Python equally similar: Coding comes first in node order.
  EXPECT_EQ(g->most_similar_concept(unit({0.0f, 1.0f, 1.0f})), at(*g, "coding"));
  // Nothing similar at all: the first concept, the root.
  EXPECT_EQ(g->most_similar_concept({0.0f, 0.0f, 0.0f}), at(*g, "task"));
}

TEST(HivaKnowledgeGraph, AnEdgeTypeOutsideTheThreeIsAnErrorNamingItsPath) {
  json doc = toy_json();
  doc["edges"][3]["type"] = "owns";
  EXPECT_EQ(error_of(doc), R"(edges[3].type: expected is_a, requires_skill or has_tool, got "owns")");
}

TEST(HivaKnowledgeGraph, MalformedDocumentsAreErrorsNamingWhere) {
  {
    json doc = toy_json();
    doc["edges"][1]["to"] = "maths";
    EXPECT_EQ(error_of(doc), R"(edges[1].to: no node has the id "maths")");
  }
  {
    json doc = toy_json();
    doc["nodes"][2]["kind"] = "skill";
    EXPECT_EQ(error_of(doc), R"(nodes[2].kind: expected concept, agent or tool, got "skill")");
  }
  {
    json doc = toy_json();
    doc["nodes"][2]["keywrods"] = json::array();
    EXPECT_EQ(error_of(doc), R"(nodes[2]: unknown key "keywrods")");
  }
  {
    json doc = toy_json();
    doc["nodes"][4]["keywords"] = json::array({"ok", 7});
    EXPECT_EQ(error_of(doc), "nodes[4].keywords[1]: expected a string, got an integer");
  }
  {
    json doc = toy_json();
    doc["nodes"][5]["id"] = "math";
    EXPECT_EQ(error_of(doc), R"(nodes[5].id: "math" is already the id of nodes[1])");
  }
  {
    json doc = toy_json();
    doc["nodes"][0].erase("id");
    EXPECT_EQ(error_of(doc), R"(nodes[0]: missing "id")");
  }
  EXPECT_EQ(error_of(json::array()), "knowledge graph: expected an object, got an array");
  EXPECT_EQ(error_of(json::object()), R"(knowledge graph: missing "nodes")");
}

TEST(HivaKnowledgeGraph, EdgeKindsAreChecked) {
  json doc = toy_json();
  doc["edges"].push_back({{"from", "python"}, {"to", "algebra"}, {"type", "has_tool"}});
  EXPECT_EQ(error_of(doc), R"(edges[8]: has_tool goes from a concept or an agent to a tool, but "python" is a )"
                           R"(concept and "algebra" is a concept)");
  json loop = toy_json();
  loop["edges"].push_back({{"from", "python"}, {"to", "python"}, {"type", "requires_skill"}});
  EXPECT_EQ(error_of(loop), R"(edges[8]: "python" points at itself)");
}

TEST(HivaKnowledgeGraph, EveryConceptMustBeUnderTheRoot) {
  json doc = toy_json();
  doc["nodes"].push_back({{"id", "poetry"}, {"kind", "concept"}});
  EXPECT_EQ(error_of(doc), R"(nodes[8]: the concept "poetry" is not under the root "task" by is_a edges)");
  json rooted = toy_json();
  rooted["root"] = "calculator";
  EXPECT_EQ(error_of(rooted), R"(root: "calculator" is a tool, not a concept)");
  rooted["root"] = "nothing";
  EXPECT_EQ(error_of(rooted), R"(root: no node has the id "nothing")");
}

TEST(HivaKnowledgeGraph, TheShippedGraphLoads) {
  auto g = read_knowledge_graph(std::string(KAISHA_SOURCE_DIR) + "/data/hiva/knowledge.json");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_GE(g->nodes().size(), 20u);
  EXPECT_LE(g->nodes().size(), 40u);
  EXPECT_EQ(g->nodes()[g->root()].label, "Task");
  EXPECT_EQ(g->depth(at(*g, "python_programming")), 2);
  EXPECT_EQ(g->depth(at(*g, "algebra")), 2);
  EXPECT_EQ(g->depth(at(*g, "retrieval")), 2);
  EXPECT_EQ(g->depth(at(*g, "writing")), 1);
  EXPECT_EQ(g->required_tools(at(*g, "data_analysis")),
            (std::vector<size_t>{at(*g, "code_interpreter"), at(*g, "calculator")}));
  EXPECT_EQ(g->required_tools(at(*g, "fact_checking")), (std::vector<size_t>{at(*g, "search")}));
  for (const char* kind_of_each : {"code_interpreter", "calculator", "search"}) {
    EXPECT_EQ(g->nodes()[at(*g, kind_of_each)].kind, NodeKind::tool) << kind_of_each;
  }
}

TEST(HivaKnowledgeGraph, ReadingAFileNamesItOnError) {
  const std::string missing = std::string(KAISHA_BINARY_DIR) + "/no-such-knowledge.json";
  auto absent = read_knowledge_graph(missing);
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.error().message.find(missing), std::string::npos) << absent.error().message;

  const std::string bad = std::string(KAISHA_BINARY_DIR) + "/hiva_bad_knowledge.json";
  std::ofstream(bad) << R"({"nodes": [{"id": "task", "kind": "concept"}], "edges": [{"from": "task"}]})";
  auto broken = read_knowledge_graph(bad);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().message, bad + R"(: edges[0]: missing "to")");
  std::ofstream(bad) << "{not json";
  auto garbled = read_knowledge_graph(bad);
  ASSERT_FALSE(garbled.ok());
  EXPECT_EQ(garbled.error().message.rfind(bad + ": not JSON: ", 0), 0u) << garbled.error().message;
}

}  // namespace knowledge_graph_test
}  // namespace kaisha::hiva
