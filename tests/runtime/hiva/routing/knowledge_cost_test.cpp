// hiva.md §14 item 7: Dist on a toy knowledge graph with hand-computed d_I
// and Ψ values.
#include "runtime/hiva/routing/knowledge_cost.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/hiva/routing/toy_embedder.hpp"

namespace kaisha::hiva {
namespace knowledge_cost_test {

// Task ─┬─ Math ── Algebra ── has_tool ── Calculator
//       └─ Coding ── Python ── has_tool ── Interpreter
// Undirected diameter 6 (Calculator to Interpreter).
KnowledgeGraph toy_graph(const Embed& embed) {
  auto g = knowledge_graph_from_json(json::parse(R"({
    "nodes": [
      {"id": "task", "kind": "concept", "label": "Task"},
      {"id": "math", "kind": "concept", "label": "Math"},
      {"id": "algebra", "kind": "concept", "label": "Algebra", "keywords": ["equation"]},
      {"id": "coding", "kind": "concept", "label": "Coding"},
      {"id": "python", "kind": "concept", "label": "Python", "keywords": ["script"]},
      {"id": "calculator", "kind": "tool", "label": "Calculator", "keywords": ["arithmetic"]},
      {"id": "interpreter", "kind": "tool", "label": "Interpreter", "keywords": ["sandbox"]}
    ],
    "edges": [
      {"from": "math", "to": "task", "type": "is_a"},
      {"from": "algebra", "to": "math", "type": "is_a"},
      {"from": "coding", "to": "task", "type": "is_a"},
      {"from": "python", "to": "coding", "type": "is_a"},
      {"from": "algebra", "to": "calculator", "type": "has_tool"},
      {"from": "python", "to": "interpreter", "type": "has_tool"}
    ]})"));
  EXPECT_TRUE(g.ok()) << g.error().message;
  g->embed_nodes(embed);
  return std::move(*g);
}

// One axis per topic; "equation" shares Algebra's, "executor" the
// Interpreter's.
Embed toy_embed() {
  return testing::axis_embedder({{"algebra", 0},
                                 {"equation", 0},
                                 {"math", 1},
                                 {"python", 2},
                                 {"coding", 3},
                                 {"task", 4},
                                 {"calculator", 5},
                                 {"interpreter", 6},
                                 {"executor", 6}},
                                7);
}

struct Fixture {
  Embed embed = toy_embed();
  KnowledgeGraph graph = toy_graph(embed);
  size_t id(const char* name) const { return graph.find(name).value(); }
  TaskProfile task(const std::string& text) const {
    auto t = task_profile_of(text, graph, embed);
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? *t : TaskProfile{};
  }
  KnowledgeCost cost(const AgentProfile& agent, const TaskProfile& task, const std::vector<PastTask>& history = {},
                     const KnowledgeCostSettings& settings = {}) const {
    auto c = knowledge_cost(agent, task, history, graph, settings);
    EXPECT_TRUE(c.ok()) << c.error().message;
    return c.ok() ? *c : KnowledgeCost{};
  }
};

const double kLn3 = std::log(3.0);

TEST(HivaKnowledgeCost, TheTaskConceptIsTheMostSimilarNodeAndItsDepthIsDI) {
  const Fixture f;
  const TaskProfile t = f.task("Solve this algebra equation");
  EXPECT_EQ(t.concept_node, f.id("algebra"));
  EXPECT_EQ(t.depth, 2);
  EXPECT_EQ(t.keywords, (std::vector<std::string>{"algebra", "equation", "solve"}));
  EXPECT_EQ(f.task("Write a python script").concept_node, f.id("python"));
  EXPECT_EQ(f.task("Any task at all").concept_node, f.id("task"));
}

TEST(HivaKnowledgeCost, AMismatchedAgentGetsTheHandComputedIndicators) {
  const Fixture f;
  const AgentProfile coder = profile_of("Python coding expert", "Python interpreter runs code", f.embed);
  // Records at or above 0.75 similarity count: 1, 0, 0 -> success 1/3.
  const std::vector<PastTask> history = {{0.9, 1.0}, {0.75, 0.0}, {0.8, 0.0}, {0.5, 1.0}, {0.74, 1.0}};
  const KnowledgeCost c = f.cost(coder, f.task("Solve this algebra equation"), history);
  EXPECT_EQ(c.depth, 2);
  // Ψ1: no shared keyword, orthogonal embeddings.
  EXPECT_NEAR(c.psi[0], 1.0, 1e-9);
  // Ψ2: skill concepts Coding and Python; Coding-Task-Math-Algebra is 3 of
  // the diameter's 6.
  EXPECT_EQ(c.skill_concepts, (std::vector<size_t>{f.id("coding"), f.id("python")}));
  EXPECT_NEAR(c.psi[1], 0.5, 1e-9);
  EXPECT_NEAR(c.psi[2], 1.0 - 1.0 / 3.0, 1e-9);
  // Ψ4: Algebra needs the Calculator, which an interpreter is not.
  EXPECT_EQ(c.missing_tools, (std::vector<size_t>{f.id("calculator")}));
  EXPECT_EQ(c.psi[3], 1.0);
  EXPECT_NEAR(c.dist, kLn3 * 0.25 * (1.0 + 0.5 + 2.0 / 3.0 + 1.0), 1e-9);

  KnowledgeCostSettings weighted;
  weighted.weights = {0.4, 0.3, 0.2, 0.1};
  EXPECT_NEAR(f.cost(coder, f.task("Solve this algebra equation"), history, weighted).dist,
              kLn3 * (0.4 * 1.0 + 0.3 * 0.5 + 0.2 * (2.0 / 3.0) + 0.1 * 1.0), 1e-9);
}

TEST(HivaKnowledgeCost, AMatchingAgentCostsLess) {
  const Fixture f;
  const AgentProfile tutor = profile_of("Algebra and math tutor", "Calculator for numbers", f.embed);
  const TaskProfile task = f.task("Solve this algebra equation");
  const KnowledgeCost c = f.cost(tutor, task);
  // Ψ1: Jaccard {algebra} / {algebra, equation, math, solve, tutor} = 1/5;
  // cosine of (e0 + e1)/√2 with e0 is 1/√2.
  EXPECT_NEAR(c.psi[0], 1.0 - (0.5 * 0.2 + 0.5 / std::sqrt(2.0)), 1e-6);
  EXPECT_EQ(c.skill_concepts, (std::vector<size_t>{f.id("math"), f.id("algebra")}));
  EXPECT_EQ(c.psi[1], 0.0);
  EXPECT_EQ(c.psi[2], 0.5);  // no history: neutral
  EXPECT_EQ(c.psi[3], 0.0);  // "calculator" is a keyword of the tool node
  EXPECT_NEAR(c.dist, kLn3 * 0.25 * (c.psi[0] + 0.5), 1e-12);
  const AgentProfile coder = profile_of("Python coding expert", "Python interpreter runs code", f.embed);
  EXPECT_LT(c.dist, f.cost(coder, task).dist);
}

TEST(HivaKnowledgeCost, AToolMatchesByEmbeddingAtTheThreshold) {
  const Fixture f;
  const TaskProfile python_task = f.task("Write a python script");
  // "executor" shares no keyword with the Interpreter node, but its axis.
  const AgentProfile with_executor = profile_of("Python coding expert", "executor", f.embed);
  EXPECT_EQ(f.cost(with_executor, python_task).psi[3], 0.0);
  const AgentProfile with_calculator = profile_of("Python coding expert", "calculator", f.embed);
  const KnowledgeCost c = f.cost(with_calculator, python_task);
  EXPECT_EQ(c.psi[3], 1.0);
  EXPECT_EQ(c.missing_tools, (std::vector<size_t>{f.id("interpreter")}));
  const AgentProfile toolless = profile_of("Python coding expert", "", f.embed);
  EXPECT_EQ(f.cost(toolless, python_task).psi[3], 1.0);
  EXPECT_EQ(f.cost(toolless, f.task("Explain the math")).psi[3], 0.0);  // Math needs no tool
}

TEST(HivaKnowledgeCost, ATaskAtTheRootCostsNothing) {
  const Fixture f;
  const AgentProfile coder = profile_of("Python coding expert", "", f.embed);
  const KnowledgeCost c = f.cost(coder, f.task("Any task at all"), {{0.9, 0.0}});
  EXPECT_EQ(c.depth, 0);
  EXPECT_GT(c.psi[0] + c.psi[2], 0.0);
  EXPECT_EQ(c.dist, 0.0);  // ln(1 + 0) = 0
}

TEST(HivaKnowledgeCost, ProfileOfUsesPromptAndToolAndSkipsAnEmptyTool) {
  int calls = 0;
  const Embed counting = [&](const std::string& text) {
    ++calls;
    return Embedding{static_cast<float>(text.size()), 0.0f};
  };
  const AgentProfile p = profile_of("Du bist ein Übersetzer", "", counting);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(p.keywords, (std::vector<std::string>{"bist", "du", "ein", "Übersetzer"}));
  EXPECT_EQ(p.embedding, (Embedding{1.0f, 0.0f}));  // scaled to unit length
  EXPECT_TRUE(p.tool_keywords.empty());
  EXPECT_TRUE(p.tool_embedding.empty());
  const AgentProfile q = profile_of("Coder", "Runs Python", counting);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(q.tool_keywords, (std::vector<std::string>{"python", "runs"}));
}

TEST(HivaKnowledgeCost, WeightsMustBeNonNegativeAndSumToOne) {
  KnowledgeCostSettings s;
  EXPECT_TRUE(validate(s).ok());
  s.weights = {0.25, 0.25, 0.25, 0.15};
  ASSERT_FALSE(validate(s).ok());
  EXPECT_EQ(validate(s).error().message,
            "KABB knowledge cost settings: weights [0.25, 0.25, 0.25, 0.15] sum to 0.9; they must sum to 1 (within "
            "1e-9)");
  s.weights = {0.5, 0.5, 0.25, -0.25};
  ASSERT_FALSE(validate(s).ok());
  EXPECT_EQ(validate(s).error().message,
            "KABB knowledge cost settings: weights [0.5, 0.5, 0.25, -0.25]: ω4 = -0.25 must be a finite number >= 0");
  s.weights = {0.1, 0.2, 0.3, 0.4};  // sums to 1 within rounding
  EXPECT_TRUE(validate(s).ok());
  s.similarity_threshold = 1.5;
  EXPECT_FALSE(validate(s).ok());

  const Fixture f;
  KnowledgeCostSettings bad;
  bad.weights = {1.0, 1.0, 0.0, 0.0};
  auto c = knowledge_cost(profile_of("x", "", f.embed), f.task("Solve this algebra equation"), {}, f.graph, bad);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, "config");
}

TEST(HivaKnowledgeCost, HistoryMismatchIsTheFailureRateOfTheKMostSimilarPastTasksAboveTheThreshold) {
  KnowledgeCostSettings s;  // threshold 0.75, k 5, neutral 0.5
  EXPECT_EQ(history_mismatch({}, s), 0.5);
  EXPECT_EQ(history_mismatch({{0.74, 1.0}, {-0.2, 0.0}}, s), 0.5);  // none similar enough
  // Nine records at or above 0.75 (the 0.5 one is not similar enough).
  const std::vector<PastTask> many = {{0.8, 0.0}, {0.9, 1.0},  {0.99, 1.0}, {0.76, 0.0}, {0.95, 0.0},
                                      {0.9, 1.0}, {0.85, 0.5}, {0.75, 0.0}, {0.9, 0.0},  {0.5, 1.0}};
  // k = 5: 0.99 (1), 0.95 (0) and the three at 0.9 (1, 1, 0): 3 of 5.
  s.history_k = 5;
  EXPECT_NEAR(history_mismatch(many, s), 1.0 - 3.0 / 5.0, 1e-12);
  // k = 4: of the three at 0.9 the two earlier records (both successes)
  // are read: 0.99 (1), 0.95 (0), 0.9 (1), 0.9 (1): 3 of 4.
  s.history_k = 4;
  EXPECT_NEAR(history_mismatch(many, s), 0.25, 1e-12);
  // k = 1: only the closest, a success.
  s.history_k = 1;
  EXPECT_EQ(history_mismatch(many, s), 0.0);
  // A k beyond the similar records reads all nine: 0+1+1+0+0+1+0.5+0+0 = 3.5.
  s.history_k = 100;
  EXPECT_NEAR(history_mismatch(many, s), 1.0 - 3.5 / 9.0, 1e-12);
  // A lower threshold admits the 0.5 record (a success) too.
  s.similarity_threshold = 0.5;
  EXPECT_NEAR(history_mismatch(many, s), 1.0 - 4.5 / 10.0, 1e-12);
  s.history_k = 0;
  ASSERT_FALSE(validate(s).ok());
  EXPECT_EQ(validate(s).error().message, "KABB knowledge cost settings: history_k is 0; it must be at least 1");
}

TEST(HivaKnowledgeCost, BadInputsAreErrorsNamingThem) {
  const Fixture f;
  const AgentProfile coder = profile_of("Python coding expert", "", f.embed);
  const TaskProfile task = f.task("Solve this algebra equation");
  auto c = knowledge_cost(coder, task, {{0.9, 1.0}, {0.8, 0.0}, {0.9, 1.5}}, f.graph);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "history[2].success: 1.5 is outside [0, 1]");
  c = knowledge_cost(coder, task, {{2.0, 1.0}}, f.graph);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "history[0].similarity: 2 is outside [-1, 1]");
  TaskProfile on_a_tool = task;
  on_a_tool.concept_node = f.id("calculator");
  EXPECT_FALSE(knowledge_cost(coder, on_a_tool, {}, f.graph).ok());

  auto unembedded = knowledge_graph_from_json(json::parse(R"({"nodes": [{"id": "task", "kind": "concept"}]})"));
  ASSERT_TRUE(unembedded.ok());
  auto t = task_profile_of("anything", *unembedded, f.embed);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("embed_nodes"), std::string::npos);
}

}  // namespace knowledge_cost_test
}  // namespace kaisha::hiva
